/// Reads the classes of the scalars of valid UTF-8 text at byte offsets, which is all the
/// split patterns need: they never look at a scalar's value beyond ASCII.
///
///     let reader = ScalarReader(utf8.baseAddress!, count: utf8.count, table: .shared)
///     let (cls, length) = reader.class(at: 0)   // ([.letter, .lowerish], 1) for "a"
///
/// Offsets must fall on scalar boundaries; Swift strings are always valid UTF-8, so no
/// check is made.
struct ScalarReader {
    let bytes: UnsafePointer<UInt8>
    let count: Int
    private let basic: UnsafePointer<ScalarClass>
    private let table: ScalarClassTable

    init(_ bytes: UnsafePointer<UInt8>, count: Int, table: ScalarClassTable) {
        self.bytes = bytes
        self.count = count
        self.basic = UnsafePointer(table.basic)
        self.table = table
    }

    @inline(__always) subscript(_ offset: Int) -> UInt8 { bytes[offset] }

    /// The class of the scalar starting at `offset` and its length in bytes.
    @inline(__always) func `class`(at offset: Int) -> (ScalarClass, Int) {
        let b0 = UInt32(bytes[offset])
        if b0 < 0x80 { return (basic[Int(b0)], 1) }
        if b0 < 0xE0 {
            let value = (b0 & 0x1F) << 6 | UInt32(bytes[offset + 1] & 0x3F)
            return (basic[Int(value)], 2)
        }
        if b0 < 0xF0 {
            let value = (b0 & 0x0F) << 12 | UInt32(bytes[offset + 1] & 0x3F) << 6 | UInt32(bytes[offset + 2] & 0x3F)
            return (basic[Int(value)], 3)
        }
        let value = (b0 & 0x07) << 18 | UInt32(bytes[offset + 1] & 0x3F) << 12
            | UInt32(bytes[offset + 2] & 0x3F) << 6 | UInt32(bytes[offset + 3] & 0x3F)
        return (table.supplementary(value), 4)
    }

    /// Whether the scalar at `offset` (which may be the end) is in `cls`.
    @inline(__always) func scalar(at offset: Int, isIn cls: ScalarClass) -> Bool {
        offset < count && !self.class(at: offset).0.isDisjoint(with: cls)
    }
}
