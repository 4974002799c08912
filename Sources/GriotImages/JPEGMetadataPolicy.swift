/// Which JPEG segments a stored drawing keeps: what it takes to show the picture, nothing about
/// who took it, where, or with what.
enum JPEGMetadataPolicy {
    static let exif = Array("Exif\0\0".utf8)
    static let jfif = Array("JFIF\0".utf8)
    static let iccProfile = Array("ICC_PROFILE\0".utf8)
    static let adobe = Array("Adobe".utf8)

    /// APP0 JFIF (pixel density), APP2 ICC_PROFILE (its colours) and APP14 Adobe (whether the
    /// three channels are YCbCr or RGB/CMYK: without it some files decode in false colours) stay;
    /// every other APPn (EXIF with GPS, XMP, Photoshop/IPTC, MPF, maker notes, JFXX thumbnails)
    /// and COM go. Tables, frame and scans are never touched.
    static func keeps(_ segment: JPEGLayout.Segment, in bytes: UnsafeRawBufferPointer) -> Bool {
        switch segment.marker {
        case 0xE0: segment.payloadStarts(with: jfif, in: bytes)
        case 0xE2: segment.payloadStarts(with: iccProfile, in: bytes)
        case 0xEE: segment.payloadStarts(with: adobe, in: bytes)
        case 0xE1...0xEF, 0xFE: false
        default: true
        }
    }
}
