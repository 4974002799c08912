import Foundation

/// Uploaded drawings: what they are, their metadata stripped, and their thumbnails.
///
/// ```swift
/// let info = try DrawingImage.inspect(upload)           // PNG or JPEG, its size; or a refusal to show
/// let stripped = try DrawingImage.strip(upload)         // no EXIF, GPS, XMP or comments; which way is up
/// let thumb = try DrawingImage.thumbnail(stripped.data, maxSide: 512, orientation: stripped.orientation)
/// ```
public enum DrawingImage {
    /// The longest side read, in pixels: a 12,000 px side is beyond any phone camera or home scanner.
    public static let maxSide = 12_000
    /// The most pixels read (50 megapixels): a thumbnail of one decodes at most this many.
    public static let maxPixels = 50_000_000

    /// Reads the format and size from the bytes (never the file name) and checks the whole
    /// structure, so a cut-short upload is refused here rather than stored.
    public static func inspect(_ data: Data) throws(ImageError) -> ImageInfo {
        try data.withImageBytes { bytes throws(ImageError) in try inspect(bytes) }
    }

    static func inspect(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageInfo {
        switch ImageSignature.recognise(bytes) {
        case .failure(let refusal): throw refusal
        case .success(.jpeg): return try inspect(JPEGLayout.read(bytes), bytes)
        case .success(.png): return try inspect(PNGLayout.read(bytes), bytes)
        }
    }

    private static func inspect(_ layout: JPEGLayout, _ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageInfo {
        guard let frame = layout.frame else { throw JPEGLayout.malformed("it has no frame header") }
        switch frame.marker {
        case 0xC0, 0xC1, 0xC2, 0xC9, 0xCA: break
        case 0xC3, 0xC7, 0xCB, 0xCF: throw JPEGLayout.unsupported("it is a lossless JPEG")
        default: throw JPEGLayout.unsupported("it is a hierarchical JPEG")
        }
        guard frame.precision == 8 else { throw JPEGLayout.unsupported("it has \(frame.precision)-bit samples") }
        guard [1, 3, 4].contains(frame.components) else {
            throw JPEGLayout.unsupported("it has \(frame.components) colour components")
        }
        guard frame.height > 0, frame.width > 0 else { throw JPEGLayout.unsupported("its height is given after its image data") }
        try checkSize(width: frame.width, height: frame.height)
        return ImageInfo(format: .jpeg, width: frame.width, height: frame.height, orientation: orientation(layout, bytes))
    }

    private static func inspect(_ layout: PNGLayout, _ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageInfo {
        if let unknown = layout.chunks.first(where: { $0.isCritical && !PNGLayout.criticalTypes.contains($0.type) }) {
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(unknown.range.lowerBound + 4)..<(unknown.range.lowerBound + 8)]),
                              as: UTF8.self)
            throw ImageError(.unsupportedFormat,
                "This PNG needs a part named \(name) that no image viewer reads; save it again as an ordinary PNG or JPEG and re-send it.")
        }
        try checkSize(width: layout.width, height: layout.height)
        return ImageInfo(format: .png, width: layout.width, height: layout.height, orientation: orientation(layout, bytes))
    }

    static func checkSize(width: Int, height: Int) throws(ImageError) {
        guard width > maxSide || height > maxSide || width * height > maxPixels else { return }
        throw ImageError(.tooLarge,
            "This drawing is \(grouped(width)) × \(grouped(height)) pixels; the limit is \(grouped(maxSide)) pixels a side "
            + "and \(maxPixels / 1_000_000) megapixels. Send a smaller copy (a phone's \"Large\" or \"Medium\" size is plenty).")
    }

    /// EXIF Orientation from the first APP1 "Exif" segment.
    static func orientation(_ layout: JPEGLayout, _ bytes: UnsafeRawBufferPointer) -> ImageOrientation {
        guard let exif = layout.segments.first(where: { $0.marker == 0xE1 && $0.payloadStarts(with: JPEGMetadataPolicy.exif, in: bytes) })
        else { return .up }
        let tiff = (exif.payload.lowerBound + JPEGMetadataPolicy.exif.count)..<exif.payload.upperBound
        return ImageOrientation.fromTIFF(bytes, tiff) ?? .up
    }

    /// EXIF Orientation from an eXIf chunk (a bare TIFF structure).
    static func orientation(_ layout: PNGLayout, _ bytes: UnsafeRawBufferPointer) -> ImageOrientation {
        guard let exif = layout.chunks.first(where: { $0.type == PNGMetadataPolicy.exif }) else { return .up }
        return ImageOrientation.fromTIFF(bytes, exif.data) ?? .up
    }

    /// 12000 → "12,000", so a limit reads the same in every message.
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}

extension PNGLayout {
    static let criticalTypes: Set<UInt32> = [ihdr, plte, idat, iend]
}

extension Data {
    /// `withUnsafeBytes` for a body that throws `ImageError`, keeping the error's type.
    func withImageBytes<Value>(_ body: (UnsafeRawBufferPointer) throws(ImageError) -> Value) throws(ImageError) -> Value {
        let result: Result<Value, ImageError> = withUnsafeBytes { bytes in
            Result { () throws(ImageError) -> Value in try body(bytes) }
        }
        return try result.get()
    }
}
