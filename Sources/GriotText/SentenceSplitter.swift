/// Finds sentence boundaries, for passage splitting now and sentence-wise output checks later.
///
/// A sentence ends at `.`, `!`, `?` or `…` (with any closing quotes and brackets after it)
/// when white space and then a capital, a digit, a letter of a script without case (Arabic,
/// Hebrew) or an opening quote (with "¿", "«", "„") follows; at "。", "！" or "？" wherever
/// they stand (Chinese and Japanese leave no space); at a blank
/// line; or at the end of the text. Common abbreviations ("Mr.", "Rev.", "St.") and single
/// initials ("J. C. Carter") do not end a sentence.
///
/// ```swift
/// let scalars = Array("Rev. Amos preached. We listened.".unicodeScalars)
/// SentenceSplitter.sentences(in: scalars)   // two spans
/// ```
public enum SentenceSplitter {
    public static func sentences(in scalars: [Unicode.Scalar], from lower: Int = 0, to upper: Int? = nil) -> [WordSpan] {
        let upper = upper ?? scalars.count
        var sentences: [WordSpan] = []
        var start = skipSpace(scalars, lower, upper)
        var index = start
        while index < upper {
            let scalar = scalars[index]
            if scalar == "\n", index + 1 < upper, isBlankLineAhead(scalars, index + 1, upper) {
                append(&sentences, scalars, start, index)
                start = skipSpace(scalars, index, upper)
                index = start
                continue
            }
            if isFullWidthTerminal(scalar) {
                // Chinese and Japanese put no space after a sentence: "。" ends one wherever it stands.
                var end = index + 1
                while end < upper, isFullWidthTerminal(scalars[end]) || isTerminal(scalars[end]) || isCloser(scalars[end]) { end += 1 }
                append(&sentences, scalars, start, end)
                start = skipSpace(scalars, end, upper)
                index = start
                continue
            }
            if isTerminal(scalar) {
                var end = index + 1
                while end < upper, isTerminal(scalars[end]) || isCloser(scalars[end]) { end += 1 }
                if end >= upper || (isSpace(scalars[end]) && startsSentence(scalars, skipSpace(scalars, end, upper), upper)),
                   !(scalar == "." && isAbbreviation(scalars, start, index)) {
                    append(&sentences, scalars, start, end)
                    start = skipSpace(scalars, end, upper)
                    index = start
                    continue
                }
                index = end
                continue
            }
            index += 1
        }
        append(&sentences, scalars, start, upper)
        return sentences
    }

    private static func append(_ sentences: inout [WordSpan], _ scalars: [Unicode.Scalar], _ start: Int, _ end: Int) {
        var end = end
        while end > start, isSpace(scalars[end - 1]) { end -= 1 }
        if end > start { sentences.append(WordSpan(start: start, end: end)) }
    }

    private static func skipSpace(_ scalars: [Unicode.Scalar], _ index: Int, _ upper: Int) -> Int {
        var index = index
        while index < upper, isSpace(scalars[index]) { index += 1 }
        return index
    }

    private static func isBlankLineAhead(_ scalars: [Unicode.Scalar], _ index: Int, _ upper: Int) -> Bool {
        var index = index
        while index < upper, scalars[index] == " " || scalars[index] == "\t" || scalars[index] == "\r" { index += 1 }
        return index < upper && scalars[index] == "\n"
    }

    private static func startsSentence(_ scalars: [Unicode.Scalar], _ index: Int, _ upper: Int) -> Bool {
        guard index < upper else { return true }
        let scalar = scalars[index]
        if isOpener(scalar) || scalar == "-" || scalar == "\u{2014}" { return true }
        let properties = scalar.properties
        // A capital, a digit, or a letter of a script without case (Arabic, Hebrew, Devanagari).
        return properties.isUppercase || properties.numericType != nil || (properties.isAlphabetic && !properties.isLowercase)
    }

    /// True when the word that ends just before `dot` is a known abbreviation or an initial.
    private static func isAbbreviation(_ scalars: [Unicode.Scalar], _ sentenceStart: Int, _ dot: Int) -> Bool {
        var wordStart = dot
        while wordStart > sentenceStart, WordTokenizer.isWordScalar(scalars[wordStart - 1]) || scalars[wordStart - 1] == "." {
            wordStart -= 1
        }
        let length = dot - wordStart
        guard length > 0, length <= 5 else { return false }
        var word = ""
        for scalar in scalars[wordStart..<dot] { word.unicodeScalars.append(scalar) }
        if length == 1, scalars[wordStart].properties.isUppercase { return true }
        return abbreviations.contains(word.lowercased())
    }

    private static let abbreviations: Set<String> = [
        "mr", "mrs", "ms", "dr", "rev", "st", "mt", "jr", "sr", "sgt", "capt", "col", "gen", "lt",
        "prof", "hon", "ft", "ave", "blvd", "corp", "inc", "vs", "etc", "e.g", "i.e",
        "u.s", "a.m", "p.m", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
        "oct", "nov", "dec", "ala", "ga", "fla", "tex", "s.c", "n.c",
    ]

    /// ".", "!", "?", "…", and the Arabic question mark "؟", the Urdu full stop "۔" and the
    /// Devanagari danda "।", which are followed by a space as "." is.
    private static func isTerminal(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "." || scalar == "!" || scalar == "?" || scalar == "\u{2026}" || scalar == "\u{061F}" || scalar == "\u{06D4}" || scalar == "\u{0964}"
    }

    /// The ideographic full stop and the full-width "！", "？", "．".
    private static func isFullWidthTerminal(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\u{3002}" || scalar == "\u{FF01}" || scalar == "\u{FF1F}" || scalar == "\u{FF0E}"
    }

    /// Closing quotes and brackets, with the French and German forms ("»", "“" after „) and the
    /// corner brackets of Chinese and Japanese.
    private static func isCloser(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\"", "'", ")", "]", "\u{201D}", "\u{2019}", "\u{201C}", "\u{00BB}", "\u{203A}", "\u{300D}", "\u{300F}", "\u{FF09}": return true
        default: return false
        }
    }

    /// Opening quotes and brackets, with "«", "„", "‹", Spanish "¿" and "¡", and corner brackets.
    private static func isOpener(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "\"", "'", "(", "[", "\u{201C}", "\u{2018}", "\u{00AB}", "\u{201E}", "\u{201A}", "\u{2039}", "\u{00BF}", "\u{00A1}", "\u{300C}", "\u{300E}", "\u{FF08}":
            return true
        default: return false
        }
    }

    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" || scalar.properties.isWhitespace
    }
}
