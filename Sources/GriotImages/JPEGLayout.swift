import Foundation

/// The marker segments of a JPEG, walked once from SOI to EOI.
///
/// Entropy-coded scan data is skipped with `memchr` for the next 0xFF, so the walk is O(n) with
/// no copy: a 2 MB photo is a few hundred segments and one pass over its scans.
struct JPEGLayout {
    struct Segment {
        let marker: UInt8
        /// From the 0xFF of the marker to the end of its payload.
        let range: Range<Int>
        /// The payload after the two length bytes.
        let payload: Range<Int>
    }

    struct Frame {
        let marker: UInt8
        let precision: Int
        let width: Int
        let height: Int
        let components: Int
    }

    /// Every segment with a length (APPn, COM, DQT, DHT, SOFn, SOS headers, …), in file order.
    var segments: [Segment] = []
    var frame: Frame?
    /// Just past EOI; any bytes after it (camera trailers, appended images) are not the picture.
    var end = 0

    static let eoiMissing = "This JPEG ends before its image data does, so the upload was cut short; send the file again."

    static func read(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> JPEGLayout {
        let count = bytes.count
        guard count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw malformed("it does not start with the JPEG start-of-image marker")
        }
        var layout = JPEGLayout()
        var sawScan = false
        var index = 2
        while true {
            guard index < count else { throw ImageError(.truncated, eoiMissing) }
            guard bytes[index] == 0xFF else { throw malformed("a marker was expected at byte \(index)") }
            var markerAt = index + 1
            while markerAt < count, bytes[markerAt] == 0xFF { markerAt += 1 }  // fill bytes
            guard markerAt < count else { throw ImageError(.truncated, eoiMissing) }
            let marker = bytes[markerAt]
            index = markerAt + 1
            switch marker {
            case 0xD9:
                guard layout.frame != nil, sawScan else { throw malformed("it ends before any image data") }
                layout.end = index
                return layout
            case 0xD0...0xD7, 0x01:
                continue  // standalone markers, no length
            case 0x00, 0xD8:
                throw malformed("marker 0x\(String(marker, radix: 16)) at byte \(markerAt) is out of place")
            default:
                break
            }
            guard index + 2 <= count else { throw ImageError(.truncated, eoiMissing) }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            guard length >= 2 else { throw malformed("a segment at byte \(index) has a length below 2") }
            guard index + length <= count else { throw ImageError(.truncated, eoiMissing) }
            let segment = Segment(marker: marker, range: (markerAt - 1)..<(index + length), payload: (index + 2)..<(index + length))
            layout.segments.append(segment)
            index += length
            if isFrameMarker(marker) {
                guard layout.frame == nil else { throw unsupported("it holds more than one frame (a hierarchical JPEG)") }
                guard segment.payload.count >= 6 else { throw malformed("its frame header is too short") }
                let at = segment.payload.lowerBound
                layout.frame = Frame(marker: marker, precision: Int(bytes[at]),
                                     width: Int(bytes[at + 3]) << 8 | Int(bytes[at + 4]),
                                     height: Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]),
                                     components: Int(bytes[at + 5]))
            }
            if marker == 0xDA {
                guard layout.frame != nil else { throw malformed("its image data comes before its frame header") }
                sawScan = true
                index = try skipEntropyCodedData(bytes, from: index)
            }
        }
    }

    /// SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    static func isFrameMarker(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// Returns the offset of the marker that ends the scan: 0xFF followed by anything other than
    /// a stuffed 0x00, a restart marker or another fill byte.
    private static func skipEntropyCodedData(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(ImageError) -> Int {
        guard let base = bytes.baseAddress else { throw ImageError(.truncated, eoiMissing) }
        let count = bytes.count
        var index = start
        while index < count {
            guard let found = memchr(base + index, 0xFF, count - index) else { break }
            let at = base.distance(to: UnsafeRawPointer(found))
            guard at + 1 < count else { break }
            let next = bytes[at + 1]
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                index = at + 2
            } else if next == 0xFF {
                index = at + 1
            } else {
                return at
            }
        }
        throw ImageError(.truncated, eoiMissing)
    }

    static func malformed(_ why: String) -> ImageError {
        ImageError(.malformed, "This JPEG is damaged (\(why)); open it on the device it came from, save it again, and re-send it.")
    }

    static func unsupported(_ why: String) -> ImageError {
        ImageError(.unsupportedFormat, "This JPEG cannot be read here (\(why)); save it again as an ordinary JPEG or as PNG and re-send it.")
    }
}

extension JPEGLayout.Segment {
    func payloadStarts(with prefix: [UInt8], in bytes: UnsafeRawBufferPointer) -> Bool {
        guard payload.count >= prefix.count else { return false }
        for (offset, byte) in prefix.enumerated() where bytes[payload.lowerBound + offset] != byte { return false }
        return true
    }
}
