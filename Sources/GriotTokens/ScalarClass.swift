/// The character classes that the cl100k_base and o200k_base split patterns test, as flags
/// of one Unicode scalar: `\p{L}`, `\p{N}`, `\s`, `[\r\n]`, and o200k's two case classes.
/// A scalar with none of letter, number and space is what the patterns call
/// `[^\s\p{L}\p{N}]` (punctuation, symbols, marks, controls, unassigned).
struct ScalarClass: OptionSet, Sendable {
    let rawValue: UInt8

    /// `\p{L}`: Lu, Ll, Lt, Lm, Lo.
    static let letter = ScalarClass(rawValue: 1)
    /// `\p{N}`: Nd, Nl, No.
    static let number = ScalarClass(rawValue: 2)
    /// `\s`: the White_Space property (not Python's `isspace`, which adds U+001C–U+001F).
    static let space = ScalarClass(rawValue: 4)
    /// `\r` or `\n`.
    static let lineBreak = ScalarClass(rawValue: 8)
    /// o200k's `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
    static let upperish = ScalarClass(rawValue: 16)
    /// o200k's `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
    static let lowerish = ScalarClass(rawValue: 32)

    /// `[^\s\p{L}\p{N}]`.
    @inline(__always) var isOther: Bool { rawValue & 0b111 == 0 }

    /// `[^\r\n\p{L}\p{N}]`, the optional character before a word.
    @inline(__always) var canLeadWord: Bool { rawValue & 0b1011 == 0 }

    /// The classes of one scalar as tiktoken 0.14's regex sees them. Its regex crate
    /// (regex-syntax 0.8.11) has Unicode 16.0 tables while Swift 6.3 has 17.0, so a
    /// scalar assigned after 16.0 is unassigned here (measured: tiktoken splits
    /// U+11DE0, a Unicode 17 digit, from the digits after it, and joins U+10D40, a
    /// Unicode 16 digit, to them). Checked on every code point against unicodedata2
    /// 16.0.0: the one scalar whose class differs besides those is U+0295, which
    /// Unicode 17 moved from Ll to Lo.
    static func of(_ scalar: Unicode.Scalar) -> ScalarClass {
        switch scalar.value {
        case 0x0A, 0x0D: return [.space, .lineBreak]
        case 0x0295: return [.letter, .lowerish]
        default: break
        }
        let properties = scalar.properties
        var result: ScalarClass = properties.isWhitespace ? .space : []
        guard let age = properties.age, age.major < 16 || (age.major == 16 && age.minor == 0) else {
            return result
        }
        switch properties.generalCategory {
        case .uppercaseLetter, .titlecaseLetter: result.formUnion([.letter, .upperish])
        case .lowercaseLetter: result.formUnion([.letter, .lowerish])
        case .modifierLetter, .otherLetter: result.formUnion([.letter, .upperish, .lowerish])
        case .nonspacingMark, .spacingMark, .enclosingMark: result.formUnion([.upperish, .lowerish])
        case .decimalNumber, .letterNumber, .otherNumber: result.insert(.number)
        default: break
        }
        return result
    }
}
