import Foundation

/// Turns a word as written into the form we compare: Unicode NFKC, case folded, diacritics
/// folded, curly apostrophes made straight, digit-group commas removed.
///
/// ```swift
/// TermNormalizer.normalize(Array("Café".unicodeScalars)[...])    // "cafe"
/// TermNormalizer.normalize(Array("1,000".unicodeScalars)[...])   // "1000"
/// ```
public enum TermNormalizer {
    public static func normalize(_ word: ArraySlice<Unicode.Scalar>) -> String {
        var isASCII = true
        for scalar in word where !scalar.isASCII {
            isASCII = false
            break
        }
        if isASCII { return normalizeASCII(word) }
        var view = String.UnicodeScalarView()
        for scalar in word {
            if WordTokenizer.isApostrophe(scalar) {
                view.append("'")
            } else if scalar != "," {
                view.append(scalar)
            }
        }
        // NFKC first so ligatures and full-width forms become plain letters, then fold.
        let folded = String(view).precomposedStringWithCompatibilityMapping
            .folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .lowercased()
        return folded
    }

    @inline(__always)
    static func normalizeASCII(_ word: ArraySlice<Unicode.Scalar>) -> String {
        String(unsafeUninitializedCapacity: word.count) { buffer in
            var length = 0
            for scalar in word {
                var byte = UInt8(truncatingIfNeeded: scalar.value)
                if byte == 44 { continue }  // ","
                if byte &- 65 < 26 { byte |= 0x20 }
                buffer[length] = byte
                length += 1
            }
            return length
        }
    }
}
