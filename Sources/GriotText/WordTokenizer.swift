/// A word found in a text, as a range of Unicode scalar offsets into that text.
public struct WordSpan: Sendable, Hashable {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }
}

/// Splits text into words.
///
/// A word is a run of letters, digits and combining marks. An apostrophe between two letters
/// stays inside the word ("o'brien", "mama's", "don't"), a point or comma between two digits
/// stays inside the number ("1,000", "3.5"); hyphens, dashes and all other punctuation split.
/// So "twenty-one" is two words, and "Jean-Baptiste" finds both "Jean" and "Baptiste".
///
/// Scripts written without spaces between words (Han, kana, Thai, Lao, Khmer, Myanmar) give
/// runs of their own: "Chengdu成都" is two spans, "成都" and "Chengdu", so the analyser can cut
/// the run into character pairs (`TextAnalyzer`) without taking the Latin word with it.
///
/// ```swift
/// let scalars = Array("Mama's 1,000 pies".unicodeScalars)
/// let spans = WordTokenizer.spans(in: scalars)   // 3 spans
/// ```
public enum WordTokenizer {
    public static func spans(in scalars: [Unicode.Scalar]) -> [WordSpan] {
        var spans: [WordSpan] = []
        spans.reserveCapacity(scalars.count / 5)
        forEachSpan(in: scalars) { spans.append($0) }
        return spans
    }

    /// Calls `body` for each word, without collecting them; the indexer's hot path.
    @inlinable
    public static func forEachSpan(in scalars: [Unicode.Scalar], _ body: (WordSpan) -> Void) {
        let count = scalars.count
        var index = 0
        while index < count {
            guard isWordScalar(scalars[index]) else {
                index += 1
                continue
            }
            let start = index
            var end = index
            let spaceless = isSpaceless(scalars[start])
            while true {
                while end < count, isWordScalar(scalars[end]), isSpaceless(scalars[end]) == spaceless { end += 1 }
                if !spaceless, end + 1 < count, isWordScalar(scalars[end + 1]), joins(scalars[end], before: scalars[end - 1], after: scalars[end + 1]) {
                    end += 1
                    continue
                }
                break
            }
            body(WordSpan(start: start, end: end))
            index = end
        }
    }

    /// How many words a text holds, for length limits: a word of a spaced script is one, a run
    /// of a script without spaces counts one word per two characters (a Chinese word is one to
    /// three characters, most often two).
    public static func wordCount(in scalars: [Unicode.Scalar]) -> Int {
        var words = 0
        forEachSpan(in: scalars) { span in
            words += isSpaceless(scalars[span.start]) ? (span.end - span.start + 1) / 2 : 1
        }
        return words
    }

    public static func wordCount(_ text: String) -> Int { wordCount(in: Array(text.unicodeScalars)) }

    /// Letters of the scripts written without spaces between words: Thai, Lao, Myanmar, Khmer,
    /// hiragana, katakana and Han ideographs (with their extensions and compatibility forms).
    @inlinable
    public static func isSpaceless(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x0E00 { return false }
        switch value {
        case 0x0E00...0x0EFF, 0x1000...0x109F, 0x1780...0x17FF, 0x3040...0x30FF, 0x31F0...0x31FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF66...0xFF9F, 0x20000...0x3134F:
            return true
        default:
            return false
        }
    }

    @inlinable
    static func joins(_ scalar: Unicode.Scalar, before: Unicode.Scalar, after: Unicode.Scalar) -> Bool {
        if isApostrophe(scalar) { return isLetter(before) && isLetter(after) }
        if scalar == "." || scalar == "," { return isDigit(before) && isDigit(after) }
        return false
    }

    @inlinable
    public static func isApostrophe(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "'" || scalar == "\u{2019}" || scalar == "\u{02BC}"
    }

    @inlinable
    static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value &- 48 < 10 }
        return scalar.properties.numericType != nil
    }

    @inlinable
    static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return (scalar.value | 0x20) &- 97 < 26 }
        return scalar.properties.isAlphabetic
    }

    @inlinable
    public static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            return value &- 48 < 10 || (value | 0x20) &- 97 < 26
        }
        let properties = scalar.properties
        if properties.isAlphabetic || properties.numericType != nil { return true }
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }
}
