/// EXIF Orientation (tag 0x0112): how the stored pixels must be turned to stand upright.
public enum ImageOrientation: Int, Sendable, Hashable, Codable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    /// The stored image must be turned 90° clockwise (a phone held upright).
    case right = 6
    case rightMirrored = 7
    /// The stored image must be turned 90° counter-clockwise.
    case left = 8

    /// Whether standing the image upright swaps its width and height.
    public var swapsSides: Bool { rawValue >= 5 }

    /// The Orientation entry of a TIFF structure's first directory (an EXIF APP1 payload after
    /// "Exif\0\0", or a PNG eXIf chunk), or nil when there is none or the structure is damaged.
    static func fromTIFF(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> ImageOrientation? {
        let start = range.lowerBound, end = range.upperBound
        guard end - start >= 8 else { return nil }
        let little: Bool
        switch (bytes[start], bytes[start + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int {
            little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) -> Int { little ? u16(at) | u16(at + 2) << 16 : u16(at) << 16 | u16(at + 2) }
        guard u16(start + 2) == 42 else { return nil }
        let directory = start + u32(start + 4)
        guard directory >= start + 8, directory + 2 <= end else { return nil }
        let entries = u16(directory)
        for index in 0..<entries {
            let entry = directory + 2 + index * 12
            guard entry + 12 <= end else { return nil }
            // A SHORT with count 1: the value sits in the first two bytes of the value field.
            if u16(entry) == 0x0112 {
                guard u16(entry + 2) == 3, u32(entry + 4) == 1 else { return nil }
                return ImageOrientation(rawValue: u16(entry + 8))
            }
        }
        return nil
    }
}
