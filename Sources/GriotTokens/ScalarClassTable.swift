/// The classes of every scalar of the Basic Multilingual Plane, worked out once per process
/// (16 ms measured) because each of Swift's Unicode property look-ups costs 150–200 ns,
/// far more than the rest of tokenizing a scalar. Scalars above U+FFFF (emoji, rare CJK)
/// are classified as they come: they are few in real text.
final class ScalarClassTable: @unchecked Sendable {
    // @unchecked: `basic` is written only in `init` and read-only afterwards.

    static let shared = ScalarClassTable()

    /// The classes of U+0000…U+FFFF; surrogate code points are "other".
    let basic: UnsafeMutablePointer<ScalarClass>

    private init() {
        basic = .allocate(capacity: 0x10000)
        for value in 0..<0x10000 {
            basic[value] = Unicode.Scalar(UInt32(value)).map(ScalarClass.of) ?? []
        }
    }

    deinit { basic.deallocate() }

    @inline(never) func supplementary(_ value: UInt32) -> ScalarClass {
        Unicode.Scalar(value).map(ScalarClass.of) ?? []
    }
}
