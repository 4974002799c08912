import Foundation

/// What a file is, read from its first bytes (never its name): a PNG or JPEG to accept, or a
/// refusal that names what it is and how to send it instead. A photo named `.heic` whose bytes
/// are JPEG (what iPhones send with "Most Compatible") is a JPEG here.
enum ImageSignature {
    static let sendAsJPEGOrPNG = "send the drawing as a JPEG or PNG"

    static func recognise(_ bytes: UnsafeRawBufferPointer) -> Result<ImageFormat, ImageError> {
        let count = bytes.count
        func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
            guard count >= offset + prefix.count else { return false }
            for (index, byte) in prefix.enumerated() where bytes[offset + index] != byte { return false }
            return true
        }
        if count == 0 {
            return .failure(ImageError(.empty, "The file is empty (0 bytes); choose the drawing again and re-send it."))
        }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .success(.png) }
        if starts(with: [0xFF, 0xD8]) { return .success(.jpeg) }
        if starts(with: Array("ftyp".utf8), at: 4), count >= 12 {
            return .failure(isoMediaRefusal(brand: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[8..<12]), as: UTF8.self)))
        }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) {
            return .failure(refusal("a GIF", "\(sendAsJPEGOrPNG) (a photo or screenshot of it works too)."))
        }
        if starts(with: Array("RIFF".utf8)), starts(with: Array("WEBP".utf8), at: 8) {
            return .failure(refusal("a WebP image", "save it as JPEG or PNG and send that."))
        }
        if starts(with: Array("BM".utf8)), count >= 26 {
            return .failure(refusal("a BMP bitmap", "save it as PNG (or JPEG) and send that."))
        }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            return .failure(refusal("a TIFF image (from a scanner?)", "scan or save it as JPEG or PNG and send that."))
        }
        if starts(with: Array("%PDF-".utf8)) {
            return .failure(refusal("a PDF document", "export the page with the drawing as PNG or JPEG, or send a photo of it."))
        }
        if starts(with: [0xFF, 0x0A]) || starts(with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) {
            return .failure(refusal("a JPEG XL image", "save it as ordinary JPEG or PNG and send that."))
        }
        if starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            return .failure(refusal("a ZIP archive", "unpack it and send each drawing as a JPEG or PNG."))
        }
        if looksLikeSVG(bytes) {
            return .failure(refusal("an SVG (vector) drawing", "export it as PNG and send that."))
        }
        let shown = (0..<min(count, 8)).map { hex(bytes[$0]) }.joined(separator: " ")
        return .failure(ImageError(.unsupportedFormat,
            "This file is not a PNG or JPEG image (it starts with \(shown)); \(sendAsJPEGOrPNG)."))
    }

    /// HEIF family and MP4/QuickTime share one box structure; the brand says which.
    private static func isoMediaRefusal(brand: String) -> ImageError {
        switch brand {
        case "heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "mif2":
            return refusal("a HEIC photo", "send it as JPEG instead (iPhone: Settings › Camera › Formats › Most Compatible, "
                + "or share the photo to Files, which converts it), or send a PNG.")
        case "avif", "avis":
            return refusal("an AVIF image", "save it as JPEG or PNG and send that.")
        default:
            return refusal("a video or other media file (\(brand.trimmingCharacters(in: .whitespaces)))",
                           "send a photo of the drawing as JPEG or PNG.")
        }
    }

    private static func looksLikeSVG(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let head = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, 1024)]), as: UTF8.self)
        let trimmed = head.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        return trimmed.hasPrefix("<") && head.lowercased().contains("<svg")
    }

    private static func refusal(_ what: String, _ next: String) -> ImageError {
        ImageError(.unsupportedFormat, "This is \(what), which is not read here; \(next)")
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
