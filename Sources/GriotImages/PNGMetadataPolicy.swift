/// Which PNG chunks a stored drawing keeps: the image, its palette, transparency and colour
/// chunks, and animation; text (tEXt, zTXt, iTXt), eXIf, tIME and any private or unknown
/// ancillary chunk (C2PA caBX credentials, Apple's iDOT offsets, editor state) go.
enum PNGMetadataPolicy {
    static let exif = PNGLayout.type("eXIf")

    static let keptAncillary: Set<UInt32> = [
        "tRNS", "cHRM", "gAMA", "iCCP", "sBIT", "sRGB", "cICP", "mDCv", "cLLI", "bKGD", "hIST", "pHYs", "sPLT",
        "acTL", "fcTL", "fdAT",
    ].reduce(into: []) { kept, name in
        let letters = Array(name.utf8)
        kept.insert(UInt32(letters[0]) << 24 | UInt32(letters[1]) << 16 | UInt32(letters[2]) << 8 | UInt32(letters[3]))
    }

    static func keeps(_ chunk: PNGLayout.Chunk) -> Bool {
        chunk.isCritical || keptAncillary.contains(chunk.type)
    }
}
