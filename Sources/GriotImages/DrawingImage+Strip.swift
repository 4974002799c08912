import Foundation

extension DrawingImage {
    /// The drawing without EXIF (and its GPS position), XMP, IPTC, comments or text chunks, ready
    /// to store; the bytes that make the picture are copied unchanged. Stripping twice changes nothing.
    public static func stripMetadata(_ data: Data) throws(ImageError) -> Data {
        try strip(data).data
    }

    /// `stripMetadata`, also returning the EXIF Orientation the file carried, since a phone's
    /// portrait photo stands upright only by it. Anything after the end-of-image marker (camera
    /// trailers, appended preview or depth images) is dropped with the metadata.
    public static func strip(_ data: Data) throws(ImageError) -> StrippedImage {
        let result = try data.withImageBytes { bytes throws(ImageError) -> (kept: [Range<Int>], orientation: ImageOrientation) in
            switch ImageSignature.recognise(bytes) {
            case .failure(let refusal):
                throw refusal
            case .success(.jpeg):
                let layout = try JPEGLayout.read(bytes)
                let dropped = layout.segments.lazy.filter { !JPEGMetadataPolicy.keeps($0, in: bytes) }.map(\.range)
                return (kept(0..<layout.end, without: dropped), orientation(layout, bytes))
            case .success(.png):
                let layout = try PNGLayout.read(bytes)
                let dropped = layout.chunks.lazy.filter { !PNGMetadataPolicy.keeps($0) }.map(\.range)
                return (kept(0..<layout.end, without: dropped), orientation(layout, bytes))
            }
        }
        if result.kept == [0..<data.count] {
            return StrippedImage(data: data, orientation: result.orientation)
        }
        var stripped = Data(capacity: result.kept.reduce(0) { $0 + $1.count })
        data.withUnsafeBytes { bytes in
            for range in result.kept { stripped.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[range])) }
        }
        return StrippedImage(data: stripped, orientation: result.orientation)
    }

    /// `whole` less the (ordered, disjoint) `dropped` ranges, neighbours merged.
    static func kept(_ whole: Range<Int>, without dropped: some Sequence<Range<Int>>) -> [Range<Int>] {
        var kept: [Range<Int>] = []
        var start = whole.lowerBound
        for range in dropped {
            if range.lowerBound > start { kept.append(start..<range.lowerBound) }
            start = range.upperBound
        }
        if whole.upperBound > start { kept.append(start..<whole.upperBound) }
        return kept
    }
}
