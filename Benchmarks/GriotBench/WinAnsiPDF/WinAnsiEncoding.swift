import Foundation

/// Turns text into the single-byte codes of PDF's `WinAnsiEncoding` (Windows code page 1252),
/// the encoding the export's standard Helvetica fonts are set in.
///
/// One byte per character (grapheme cluster), so a line's width is the sum of its bytes' widths:
/// - Text is first composed (NFC), so "e" plus a combining acute becomes "é" (0xE9).
/// - ASCII and Latin-1 letters keep their codes; typographic quotes, dashes, the ellipsis,
///   bullet, euro and the other code page 1252 extras get their WinAnsi codes (“ is 0x93).
/// - Look-alikes with no WinAnsi glyph are folded: other hyphens and the minus sign become
///   "-", unusual spaces become a space, primes become straight quotes; zero-width characters,
///   soft hyphens and variation selectors are dropped, and a tab becomes a space.
/// - Anything else — emoji, CJK, Cyrillic, Greek, control characters — becomes "?" (0x3F),
///   one per character, so the file stays valid and the reader sees where text was lost.
///
/// ```swift
/// let bytes = WinAnsiEncoding.bytes(for: "“Aunt Lil” — 1932 🎉")
/// // [0x93, 0x41, …, 0x94, 0x20, 0x97, 0x20, 0x31, 0x39, 0x33, 0x32, 0x20, 0x3F]
/// ```
enum WinAnsiEncoding {
    /// The byte written in place of a character WinAnsi cannot show.
    static let replacement: UInt8 = 0x3F

    /// Encodes `text`. Line breaks are the caller's business: split paragraphs first, since a
    /// newline here is treated like any other control character and becomes "?".
    static func bytes(for text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for character in text.precomposedStringWithCanonicalMapping {
            // Invisible marks only join or shape ("©️" is © with a presentation selector);
            // what is left decides, and a character made only of them writes nothing.
            let visible = character.unicodeScalars.filter { !ignorable.contains($0.value) }
            if visible.isEmpty { continue }
            if visible.count == 1, let scalar = visible.first, let byte = byte(for: scalar) {
                bytes.append(byte)
            } else {
                bytes.append(replacement)
            }
        }
        return bytes
    }

    private static func byte(for scalar: Unicode.Scalar) -> UInt8? {
        switch scalar.value {
        case 0x09: return 0x20
        case 0x20...0x7E: return UInt8(scalar.value)
        // Latin-1's upper half is WinAnsi's upper half; the soft hyphen is dropped (see isIgnorable).
        case 0xA0...0xFF where scalar.value != 0xAD: return UInt8(scalar.value)
        default: return extras[scalar.value] ?? lookAlikes[scalar.value]
        }
    }

    /// Code page 1252's characters in 0x80...0x9F, which Latin-1 leaves to control codes.
    private static let extras: [UInt32: UInt8] = [
        0x20AC: 0x80, // €
        0x201A: 0x82, // ‚
        0x0192: 0x83, // ƒ
        0x201E: 0x84, // „
        0x2026: 0x85, // …
        0x2020: 0x86, // †
        0x2021: 0x87, // ‡
        0x02C6: 0x88, // ˆ
        0x2030: 0x89, // ‰
        0x0160: 0x8A, // Š
        0x2039: 0x8B, // ‹
        0x0152: 0x8C, // Œ
        0x017D: 0x8E, // Ž
        0x2018: 0x91, // ‘
        0x2019: 0x92, // ’
        0x201C: 0x93, // “
        0x201D: 0x94, // ”
        0x2022: 0x95, // •
        0x2013: 0x96, // –
        0x2014: 0x97, // —
        0x02DC: 0x98, // ˜
        0x2122: 0x99, // ™
        0x0161: 0x9A, // š
        0x203A: 0x9B, // ›
        0x0153: 0x9C, // œ
        0x017E: 0x9E, // ž
        0x0178: 0x9F, // Ÿ
    ]

    /// Characters with no WinAnsi glyph that read the same as one that has.
    private static let lookAlikes: [UInt32: UInt8] = {
        var map: [UInt32: UInt8] = [
            0x2010: 0x2D, 0x2011: 0x2D, 0x2012: 0x2D, 0x2043: 0x2D, 0x2212: 0x2D, // hyphens, minus
            0x2015: 0x97,                                                          // horizontal bar
            0x201B: 0x91, 0x201F: 0x93,                                            // reversed quotes
            0x2032: 0x27, 0x2033: 0x22,                                            // prime, double prime
            0x2027: 0xB7, 0x2219: 0xB7,                                            // middle dots
            0x2044: 0x2F,                                                          // fraction slash
        ]
        for space in [0x2000...0x200A, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000].joined() {
            map[UInt32(space)] = 0x20
        }
        return map
    }()

    /// Invisible characters that would otherwise each print as "?".
    private static let ignorable: Set<UInt32> = {
        var set: Set<UInt32> = [
            0x00AD,                         // soft hyphen
            0x200B, 0x200C, 0x200D, 0x2060, // zero-width space, non-joiner, joiner, word joiner
            0xFEFF,                         // byte order mark
        ]
        set.formUnion(0xFE00...0xFE0F)      // variation selectors, text and emoji presentation among them
        return set
    }()
}
