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
            while true {
                while end < count, isWordScalar(scalars[end]) { end += 1 }
                if end + 1 < count, isWordScalar(scalars[end + 1]), joins(scalars[end], before: scalars[end - 1], after: scalars[end + 1]) {
                    end += 1
                    continue
                }
                break
            }
            body(WordSpan(start: start, end: end))
            index = end
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
