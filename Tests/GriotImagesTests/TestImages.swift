import Foundation
@testable import GriotImages

/// Drawings made in the test: PNGs from a small encoder here (stored deflate blocks), JPEGs
/// from libjpeg through the module's encoder, and the metadata a phone would add to them.
enum TestImages {
    /// A deterministic pseudo-random byte stream, so a failing image can be made again.
    struct Noise {
        var state: UInt64
        mutating func next() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    /// Left half red, right half blue, with `noise` (0…255) of grain.
    static func rgb(width: Int, height: Int, noise amount: Int = 0, seed: UInt64 = 1) -> [UInt8] {
        var noise = Noise(state: seed)
        return [UInt8](unsafeUninitializedCapacity: width * height * 3) { buffer, count in
            let red: [Int] = [220, 30, 30], blue: [Int] = [30, 30, 220]
            var index = 0
            for _ in 0..<height {
                for x in 0..<width {
                    let base = x < width / 2 ? red : blue
                    for channel in 0..<3 {
                        let grain = amount == 0 ? 0 : Int(noise.next()) % (amount + 1) - amount / 2
                        buffer[index] = UInt8(clamping: base[channel] + grain)
                        index += 1
                    }
                }
            }
            count = index
        }
    }

    static func jpeg(width: Int, height: Int, noise: Int = 0, quality: Int = 90,
                     progressive: Bool = false, restartRows: Int = 0) throws -> Data {
        try JPEGEncoder.encode(rgb: rgb(width: width, height: height, noise: noise), width: width, height: height, quality: quality,
                               progressive: progressive, restartRows: restartRows)
    }

    // MARK: PNG

    static func png(width: Int, height: Int, bitDepth: Int = 8, colorType: Int = 2, rows: [[UInt8]],
                    before: [(String, [UInt8])] = [], after: [(String, [UInt8])] = []) -> Data {
        var header = [UInt8]()
        header += be32(width) + be32(height) + [UInt8(bitDepth), UInt8(colorType), 0, 0, 0]
        var raw = [UInt8]()
        for row in rows { raw.append(0); raw += row }  // filter type 0 on every row
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        file += chunk("IHDR", header)
        for (type, data) in before { file += chunk(type, data) }
        file += chunk("IDAT", zlibStored(raw))
        for (type, data) in after { file += chunk(type, data) }
        file += chunk("IEND", [])
        return file
    }

    /// An Adam7-interlaced RGB PNG of the red/blue picture: seven passes of sub-images, each
    /// row with its own filter byte.
    static func interlacedPNG(width: Int, height: Int) -> Data {
        let pixels = rgb(width: width, height: height)
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var raw = [UInt8]()
        for (startX, startY, stepX, stepY) in passes {
            guard startX < width, startY < height else { continue }
            for y in stride(from: startY, to: height, by: stepY) {
                raw.append(0)
                for x in stride(from: startX, to: width, by: stepX) {
                    raw += pixels[((y * width + x) * 3)..<((y * width + x) * 3 + 3)]
                }
            }
        }
        var header = be32(width) + be32(height)
        header += [8, 2, 0, 0, 1]
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        file += chunk("IHDR", header)
        file += chunk("IDAT", zlibStored(raw))
        file += chunk("IEND", [])
        return file
    }

    /// An RGB PNG of the red/blue picture.
    static func rgbPNG(width: Int, height: Int, before: [(String, [UInt8])] = [], after: [(String, [UInt8])] = []) -> Data {
        let pixels = rgb(width: width, height: height)
        let rows = (0..<height).map { Array(pixels[($0 * width * 3)..<(($0 + 1) * width * 3)]) }
        return png(width: width, height: height, rows: rows, before: before, after: after)
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> Data {
        let typed = Array(type.utf8) + data
        return Data(be32(data.count) + typed + be32(Int(crc32(typed))))
    }

    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, raw.count - offset)
            let final: UInt8 = offset + count == raw.count ? 1 : 0
            out += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += raw[offset..<(offset + count)]
            offset += count
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + be32(Int(b << 16 | a))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func be32(_ value: Int) -> [UInt8] {
        [UInt8((value >> 24) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func be16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }

    // MARK: Metadata a phone adds

    static let gpsText = "48.8584N 2.2945E"
    static let personName = "Zofia Łukasiewicz 李秀英"

    /// A big-endian TIFF structure: IFD0 with Orientation, Make and a GPSInfo pointer; a GPS IFD
    /// with GPSLatitudeRef, GPSLatitude (48° 51' 30.24") and GPSMapDatum holding `gpsText`.
    static func exifTIFF(orientation: Int) -> [UInt8] {
        let make = Array("GriotPhone\0".utf8)
        let datum = Array((gpsText + "\0").utf8)
        // Layout: header 8 | IFD0 (2 + 3×12 + 4 = 42) | make | GPS IFD (2 + 3×12 + 4 = 42) | rationals 24 | datum
        let ifd0 = 8, makeAt = ifd0 + 42, gpsIFD = makeAt + make.count, rationals = gpsIFD + 42, datumAt = rationals + 24
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            be16(tag) + be16(type) + be32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        var tiff: [UInt8] = Array("MM".utf8) + be16(42) + be32(ifd0)
        tiff += be16(3)
        tiff += entry(0x010F, 2, make.count, be32(makeAt))
        tiff += entry(0x0112, 3, 1, be16(orientation))
        tiff += entry(0x8825, 4, 1, be32(gpsIFD))
        tiff += be32(0)
        tiff += make
        tiff += be16(3)
        tiff += entry(0x0001, 2, 2, Array("N\0".utf8))
        tiff += entry(0x0002, 5, 3, be32(rationals))
        tiff += entry(0x0012, 2, datum.count, be32(datumAt))
        tiff += be32(0)
        tiff += be32(48) + be32(1) + be32(51) + be32(1) + be32(3024) + be32(100)
        tiff += datum
        return tiff
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(payload.count + 2) + payload
    }

    static let iccPayload = Array("ICC_PROFILE\0".utf8) + [1, 1] + Array("not a real profile, kept as is".utf8)

    /// `jpeg` with, after its APP0: an EXIF APP1 (orientation and GPS), an XMP APP1, a Photoshop
    /// APP13, an ICC APP2, a COM; and a trailer after EOI.
    static func phoneJPEG(_ jpeg: Data, orientation: Int = 6) -> Data {
        var bytes = [UInt8](jpeg)
        precondition(bytes[2] == 0xFF && bytes[3] == 0xE0, "libjpeg writes APP0 JFIF first")
        let afterAPP0 = 4 + (Int(bytes[4]) << 8 | Int(bytes[5]))
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
            + Array("<x:xmpmeta><exif:GPSLatitude>\(gpsText)</exif:GPSLatitude><dc:creator>\(personName)</dc:creator></x:xmpmeta>".utf8)
        let photoshop = Array("Photoshop 3.0\0".utf8) + Array("8BIM IPTC city Paris \(gpsText)".utf8)
        var inserted = segment(0xE1, Array("Exif\0\0".utf8) + exifTIFF(orientation: orientation))
        inserted += segment(0xE1, xmp)
        inserted += segment(0xED, photoshop)
        inserted += segment(0xE2, iccPayload)
        inserted += segment(0xFE, Array("Taken at \(gpsText) by \(personName)".utf8))
        bytes.insert(contentsOf: inserted, at: afterAPP0)
        bytes += Array("SEFT trailer \(gpsText)".utf8)
        return Data(bytes)
    }

    /// Decoded pixels of a JPEG or PNG at full size, through the module's own decoders.
    static func decode(_ data: Data) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let info = try DrawingImage.inspect(data)
        return try data.withImageBytes { bytes throws(ImageError) in
            let decoder: any RowDecoder = info.format == .jpeg ? try JPEGRowDecoder(bytes, targetSide: 0) : try PNGRowDecoder(bytes)
            var pixels = [UInt8]()
            let row = UnsafeMutablePointer<UInt8>.allocate(capacity: decoder.width * 3)
            defer { row.deallocate() }
            for _ in 0..<decoder.height {
                try decoder.readRow(into: row)
                pixels.append(contentsOf: UnsafeBufferPointer(start: row, count: decoder.width * 3))
            }
            return (decoder.width, decoder.height, pixels)
        }
    }
}

extension Data {
    func contains(_ text: String) -> Bool { range(of: Data(text.utf8)) != nil }
    func contains(bytes: [UInt8]) -> Bool { range(of: Data(bytes)) != nil }
}
