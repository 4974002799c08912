/// The chunks of a PNG, walked once from the signature to IEND.
struct PNGLayout {
    struct Chunk {
        /// The four type letters as one big-endian number, e.g. `PNGLayout.type("IDAT")`.
        let type: UInt32
        /// Length, type, data and CRC.
        let range: Range<Int>
        let data: Range<Int>

        /// Critical chunks (upper-case first letter) must be understood to show the image.
        var isCritical: Bool { type & 0x2000_0000 == 0 }
    }

    var chunks: [Chunk] = []
    var width = 0
    var height = 0
    var bitDepth = 0
    var colorType = 0
    /// Just past IEND's CRC; anything after it is not the picture.
    var end = 0

    static let signatureLength = 8
    static let iendMissing = "This PNG ends before its image data does, so the upload was cut short; send the file again."

    static func type(_ letters: StaticString) -> UInt32 {
        precondition(letters.utf8CodeUnitCount == 4)
        let pointer = letters.utf8Start
        return UInt32(pointer[0]) << 24 | UInt32(pointer[1]) << 16 | UInt32(pointer[2]) << 8 | UInt32(pointer[3])
    }

    /// Colour type → bit depths the PNG specification allows for it.
    static let allowedBitDepths: [Int: Set<Int>] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]

    static let ihdr = type("IHDR"), plte = type("PLTE"), idat = type("IDAT"), iend = type("IEND")

    static func read(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> PNGLayout {
        let count = bytes.count
        guard count >= signatureLength else { throw ImageError(.truncated, iendMissing) }
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        var layout = PNGLayout()
        var sawData = false
        var sawPalette = false
        var index = signatureLength
        while true {
            guard index + 12 <= count else { throw ImageError(.truncated, iendMissing) }
            let length = u32(index)
            guard length <= 0x7FFF_FFFF else { throw malformed("a chunk at byte \(index) claims \(length) bytes") }
            for offset in 4..<8 {
                let letter = bytes[index + offset]
                guard (0x41...0x5A).contains(letter) || (0x61...0x7A).contains(letter) else {
                    throw malformed("a chunk at byte \(index) has no name")
                }
            }
            let type = u32(index + 4)
            let dataStart = index + 8, dataEnd = dataStart + Int(length)
            guard dataEnd + 4 <= count else { throw ImageError(.truncated, iendMissing) }
            let chunk = Chunk(type: type, range: index..<(dataEnd + 4), data: dataStart..<dataEnd)
            if layout.chunks.isEmpty {
                guard type == ihdr, length == 13 else { throw malformed("its first chunk is not a 13-byte IHDR") }
                layout.width = Int(u32(dataStart))
                layout.height = Int(u32(dataStart + 4))
                layout.bitDepth = Int(bytes[dataStart + 8])
                layout.colorType = Int(bytes[dataStart + 9])
                guard layout.width > 0, layout.height > 0, layout.width <= 0x7FFF_FFFF, layout.height <= 0x7FFF_FFFF else {
                    throw malformed("its header gives a width or height of zero")
                }
                guard allowedBitDepths[layout.colorType]?.contains(layout.bitDepth) == true,
                      bytes[dataStart + 10] == 0, bytes[dataStart + 11] == 0, bytes[dataStart + 12] <= 1 else {
                    throw malformed("its header names colour type \(layout.colorType) at \(layout.bitDepth) bits, or an unknown method")
                }
            } else if type == ihdr {
                throw malformed("it has a second IHDR")
            }
            layout.chunks.append(chunk)
            if type == idat { sawData = true }
            index = chunk.range.upperBound
            if type == plte { sawPalette = true }
            if type == iend {
                guard sawData else { throw malformed("it ends before any image data") }
                guard layout.colorType != 3 || sawPalette else { throw malformed("it has palette colours but no palette") }
                layout.end = index
                return layout
            }
        }
    }

    static func malformed(_ why: String) -> ImageError {
        ImageError(.malformed, "This PNG is damaged (\(why)); save it again and re-send it.")
    }
}
