import Foundation

/// The character passes: NFKC, invisible characters, digits of any script, punctuation
/// look-alikes (one pass), then look-alike letters, which need the words around them.
extension NormalizedText {
    /// Edits for every non-ASCII character (with the combining marks that follow it) that reads
    /// differently once normalised. ASCII bytes are never touched, except a letter that a
    /// combining mark after it composes with ("e" + U+0301).
    static func characterEdits(in bytes: UnsafeBufferPointer<UInt8>, options: Options) -> TextEdits {
        var edits = TextEdits()
        var index = 0
        var replacement: [UInt8] = []
        while index < bytes.count {
            if bytes[index] < 0x80 {
                index += 1
                continue
            }
            var start = index
            let (scalar, scalarEnd) = decode(bytes, at: index)
            var end = scalarEnd
            if isCombining(scalar), start > edits.lastInputEnd, start > 0, bytes[start - 1] < 0x80 {
                start -= 1  // the ASCII letter it sits on belongs to the same character
            }
            // The whole character: its base and every combining mark after it.
            while end < bytes.count, bytes[end] >= 0x80 {
                let (next, nextEnd) = decode(bytes, at: end)
                guard isCombining(next) else { break }
                end = nextEnd
            }
            replacement.removeAll(keepingCapacity: true)
            let character = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if normalize(character, options: options, into: &replacement),
               !replacement.elementsEqual(character) {
                edits.replace(start..<end, with: replacement)
            }
            index = end
        }
        return edits
    }

    /// Writes the normalised form of one character into `output`; false when it is certainly
    /// unchanged (the fast path for CJK, Cyrillic, Arabic and accented Latin letters).
    private static func normalize(_ character: UnsafeBufferPointer<UInt8>, options: Options, into output: inout [UInt8]) -> Bool {
        let (first, firstEnd) = decode(character, at: 0)
        if firstEnd == character.count, isStable(first, options: options) { return false }
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < character.count {
            let (scalar, next) = decode(character, at: index)
            scalars.append(scalar)
            index = next
        }
        var text = String(scalars)
        if options.contains(.compatibility) { text = text.precomposedStringWithCompatibilityMapping }
        for scalar in text.unicodeScalars {
            if options.contains(.removeInvisible), isInvisible(scalar) { continue }
            if options.contains(.asciiDigits), !scalar.isASCII, scalar.properties.numericType == .decimal,
               let value = scalar.properties.numericValue, value >= 0, value <= 9 {
                output.append(UInt8(0x30 + Int(value)))
                continue
            }
            if options.contains(.foldLookalikes), !scalar.isASCII, let (ascii, kind) = LatinLookalikes.lookalike(of: scalar),
               kind == .symbol, !isASCIILetterOrDigit(ascii) {
                output.append(ascii)
                continue
            }
            output.append(contentsOf: String(scalar).utf8)
        }
        return true
    }

    /// Characters that no option changes: letters of the big scripts that NFKC leaves alone and
    /// that are neither digits, format characters nor punctuation look-alikes.
    private static func isStable(_ scalar: Unicode.Scalar, options: Options) -> Bool {
        let value = scalar.value
        switch value {
        case 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0x3400...0x4DBF:  // CJK ideographs, Hangul syllables
            return true
        case 0x00C0...0x00FF, 0x0100...0x0130, 0x0134...0x013E, 0x0141...0x0148, 0x014A...0x017E:
            return true  // accented Latin letters (not "ĳ", "ŀ", "ŉ", "ſ", which NFKC rewrites)
        case 0x0400...0x045F, 0x0391...0x03C9, 0x0621...0x063A, 0x0641...0x064A, 0x05D0...0x05EA:
            // Cyrillic, Greek, Arabic and Hebrew letters: NFKC keeps them; look-alike letters
            // among them are the next pass's business.
            return true
        default:
            return false
        }
    }

    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xFE00...0xFE0F, 0xE0100...0xE01EF, 0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x180B...0x180F:
            // Variation selectors, the combining grapheme joiner, Hangul fillers, Mongolian
            // free variation selectors: marks or letters by category, invisible in practice.
            return true
        default:
            return scalar.properties.generalCategory == .format
        }
    }

    static func isCombining(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }

    /// The scalar at `index` of well-formed UTF-8 and the offset after it.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (Unicode.Scalar, Int) {
        let lead = bytes[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), index + 1) }
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length where index + offset < bytes.count {
            value = value << 6 | UInt32(bytes[index + offset] & 0x3F)
        }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", min(bytes.count, index + length))
    }

    // MARK: - Look-alike letters

    /// Folds look-alike letters to Latin inside words that mix them with Latin letters, and in
    /// words made only of look-alikes when the text's letters are mostly Latin.
    static func lookalikeEdits(in bytes: UnsafeBufferPointer<UInt8>) -> TextEdits {
        // Letters of the text that are Latin, and letters of other scripts that look like no
        // Latin letter (a Russian text has many: "и", "л", "б", "ж"...).
        var latinLetters = 0, otherLetters = 0
        var index = 0
        while index < bytes.count {
            let (scalar, next) = decode(bytes, at: index)
            index = next
            if isLatinLetter(scalar) {
                latinLetters += 1
            } else if scalar.properties.isAlphabetic, LatinLookalikes.lookalike(of: scalar) == nil {
                otherLetters += 1
            }
        }
        let textIsLatin = latinLetters > otherLetters

        var edits = TextEdits()
        index = 0
        var word: [(range: Range<Int>, scalar: Unicode.Scalar)] = []
        func flushWord() {
            defer { word.removeAll(keepingCapacity: true) }
            var hasLatin = false, allLookalikeOrLatin = true, hasLookalike = false
            for (_, scalar) in word {
                if !scalar.isASCII, LatinLookalikes.lookalike(of: scalar) != nil {
                    hasLookalike = true
                } else if isLatinLetter(scalar) {
                    hasLatin = true
                } else if !scalar.isASCII && !isCombining(scalar) {
                    allLookalikeOrLatin = false
                }
            }
            guard hasLookalike else { return }
            let foldForeign = hasLatin || (textIsLatin && allLookalikeOrLatin)
            for (range, scalar) in word where !scalar.isASCII {
                guard let (ascii, kind) = LatinLookalikes.lookalike(of: scalar) else { continue }
                switch kind {
                case .latin: edits.replace(range, with: CollectionOfOne(ascii))
                case .foreign, .symbol: if foldForeign { edits.replace(range, with: CollectionOfOne(ascii)) }
                }
            }
        }
        while index < bytes.count {
            let (scalar, next) = decode(bytes, at: index)
            if isWordScalar(scalar) {
                word.append((index..<next, scalar))
            } else {
                flushWord()
            }
            index = next
        }
        flushWord()
        return edits
    }

    /// Letters, digits, marks, and symbol look-alikes of letters ("∣" for "l") build a word.
    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return isASCIILetterOrDigit(UInt8(scalar.value)) }
        if scalar.properties.isAlphabetic || scalar.properties.numericType != nil || isCombining(scalar) { return true }
        if let (ascii, _) = LatinLookalikes.lookalike(of: scalar) { return isASCIILetterOrDigit(ascii) }
        return false
    }

    /// Latin-script letters beyond ASCII: Latin-1, Latin Extended-A and -B, IPA, Latin Extended
    /// Additional, -C, -D, -E.
    static func isLatinLetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A: return true
        case 0x00C0...0x02AF, 0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F:
            return scalar.properties.isAlphabetic && scalar.value != 0xD7 && scalar.value != 0xF7
        default: return false
        }
    }
}
