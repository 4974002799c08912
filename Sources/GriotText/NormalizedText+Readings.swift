/// The readings a check may ask for, made on the text after the character passes: spelled-out
/// digits, emails written with "at" and "dot", spaced letters, symbols standing in for letters.
/// Each reading finds spans and what they read as; spans that overlap an earlier one are left.
extension NormalizedText {
    static func readingEdits(in bytes: UnsafeBufferPointer<UInt8>, options: Options) -> TextEdits {
        // Most texts hold none of these: one walk over the words, without storing them, says
        // which readings could apply before any is made.
        let wanted = possibleReadings(in: bytes, options: options)
        if wanted.isEmpty { return TextEdits() }
        var found: [(range: Range<Int>, reading: [UInt8])] = []
        if !wanted.isDisjoint(with: [.readSpelledEmail, .readSpelledDigits, .joinSpacedLetters]) {
            let words = asciiWords(in: bytes)
            if wanted.contains(.readSpelledEmail) { spelledEmails(bytes, words, into: &found) }
            if wanted.contains(.readSpelledDigits) { spelledDigits(bytes, words, into: &found) }
            if wanted.contains(.joinSpacedLetters) { spacedLetters(bytes, words, into: &found) }
        }
        if wanted.contains(.uncensorLetters) { censoredLetters(bytes, into: &found) }
        if wanted.contains(.joinSpacedDigits) { spacedDigits(bytes, into: &found) }
        found.sort { $0.range.lowerBound < $1.range.lowerBound }
        var edits = TextEdits()
        for (range, reading) in found where range.lowerBound >= edits.lastInputEnd {
            edits.replace(range, with: reading)
        }
        return edits
    }

    /// The readings among `options` whose first sign is in the text: three number words, an
    /// "at" or " @ " followed by a word and a dot ("." or "dot"), three single letters in a row,
    /// a symbol that may stand for a letter.
    private static func possibleReadings(in bytes: UnsafeBufferPointer<UInt8>, options: Options) -> Options {
        var wanted: Options = []
        let uncensor = options.contains(.uncensorLetters)
        var numberWords = 0, singleLetters = 0, singleDigits = 0
        /// Where an "at" marker (or " @ ") ended, while its domain's first word is awaited.
        var afterAt = -1
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            guard isASCIILetterOrDigit(byte) else {
                if byte == UInt8(ascii: "@"), index > 0, index + 1 < count, bytes[index - 1] == 0x20, bytes[index + 1] == 0x20 {
                    afterAt = index + 1
                }
                if uncensor, symbolLetter(byte) != nil || isMaskingSymbol(byte) {
                    wanted.insert(.uncensorLetters)
                }
                index += 1
                continue
            }
            let start = index
            var hasLetter = false, hasDigit = false
            while index < count && isASCIILetterOrDigit(bytes[index]) {
                if bytes[index] <= 0x39 { hasDigit = true } else { hasLetter = true }
                index += 1
            }
            let word = start..<index
            if hasLetter && hasDigit && uncensor { wanted.insert(.uncensorLetters) }
            if digitValue(bytes, word) != nil { numberWords += 1 }
            singleLetters = word.count == 1 && isLetter(bytes[start]) ? singleLetters + 1 : 0
            singleDigits = word.count == 1 && !isLetter(bytes[start]) ? singleDigits + 1 : 0
            if singleDigits >= 7 { wanted.insert(.joinSpacedDigits) }
            if singleLetters >= 3 { wanted.insert(.joinSpacedLetters) }
            if afterAt >= 0 {
                // The domain's first word, then ".", " . " or a "dot" word ("[dot]", " dot ").
                var next = index
                while next < count && (bytes[next] == 0x20 || bytes[next] == UInt8(ascii: "[") || bytes[next] == UInt8(ascii: "(")
                                       || bytes[next] == UInt8(ascii: "{") || bytes[next] == UInt8(ascii: "<")) { next += 1 }
                if next < count && bytes[next] == UInt8(ascii: ".") && next + 1 < count && bytes[next + 1] != 0x0A {
                    wanted.insert(.readSpelledEmail)
                } else if next + 3 <= count && isWord(bytes, next..<next + 3, "dot") {
                    wanted.insert(.readSpelledEmail)
                }
                afterAt = -1
            }
            if word.count == 2, packedWord(bytes, word) == 0x7461, index < count,  // "at"
               bytes[index] == 0x20 || bytes[index] == UInt8(ascii: "]") || bytes[index] == UInt8(ascii: ")")
                || bytes[index] == UInt8(ascii: "}") || bytes[index] == UInt8(ascii: ">") {
                afterAt = index
            }
        }
        if numberWords >= 3 { wanted.insert(.readSpelledDigits) }
        return wanted.intersection(options)
    }

    /// Runs of ASCII letters or digits (a byte of another script ends a run and starts none).
    private static func asciiWords(in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var words: [Range<Int>] = []
        words.reserveCapacity(bytes.count / 5)
        var index = 0
        while index < bytes.count {
            guard isASCIILetterOrDigit(bytes[index]) else { index += 1; continue }
            let start = index
            while index < bytes.count && isASCIILetterOrDigit(bytes[index]) { index += 1 }
            if (start == 0 || bytes[start - 1] < 0x80) && (index == bytes.count || bytes[index] < 0x80) {
                words.append(start..<index)
            }
        }
        return words
    }

    private static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: bytes[range].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether the word at `range` is `word` (lower-case ASCII), in any case; no allocation.
    @inline(__always)
    static func isWord(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for (offset, byte) in expected.enumerated() {
            let actual = bytes[range.lowerBound + offset]
            if (actual >= 0x41 && actual <= 0x5A ? actual | 0x20 : actual) != byte { return false }
        }
        return true
    }

    /// The word's bytes, lower-cased, packed little-endian into an integer (words of up to
    /// eight bytes; longer ones give 0), so a word is compared with one integer comparison.
    @inline(__always)
    static func packedWord(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64 {
        guard range.count <= 8 else { return 0 }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        for index in range {
            let byte = bytes[index]
            value |= UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) << shift
            shift += 8
        }
        return value
    }

    /// The digit a number word stands for ("five", "Oh", "NINER"), without allocating.
    @inline(__always)
    static func digitValue(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt8? {
        guard range.count >= 2, range.count <= 5 else { return nil }
        switch packedWord(bytes, range) {
        case 0x6f72657a: return 0  // "zero"
        case 0x686f: return 0  // "oh"
        case 0x656e6f: return 1  // "one"
        case 0x6f7774: return 2  // "two"
        case 0x6565726874: return 3  // "three"
        case 0x72756f66: return 4  // "four"
        case 0x65766966: return 5  // "five"
        case 0x786973: return 6  // "six"
        case 0x6e65766573: return 7  // "seven"
        case 0x7468676965: return 8  // "eight"
        case 0x656e696e: return 9  // "nine"
        case 0x72656e696e: return 9  // "niner"
        default: return nil
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    // MARK: - Spelled-out digits


    /// Three or more number words in a row, with digit groups among them ("four one two, 555
    /// oh one eight seven"), read as digits. Number words next to each other join into one
    /// group; a dash or a comma between them becomes "-" or " "; "oh" counts only after a digit.
    private static func spelledDigits(_ bytes: UnsafeBufferPointer<UInt8>, _ words: [Range<Int>],
                                      into found: inout [(range: Range<Int>, reading: [UInt8])]) {
        var index = 0
        while index < words.count {
            var run: [(range: Range<Int>, digits: [UInt8], spelled: Bool)] = []
            var next = index
            while next < words.count {
                let word = words[next]
                if let last = run.last, !isDigitGap(bytes, last.range.upperBound..<word.lowerBound) { break }
                if let digit = digitValue(bytes, word), !run.isEmpty || !isWord(bytes, word, "oh") {
                    run.append((word, [0x30 + digit], true))
                } else if bytes[word].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), word.count <= 4, !run.isEmpty || isDigitWordAhead(bytes, words, next) {
                    run.append((word, Array(bytes[word]), false))
                } else {
                    break
                }
                next += 1
            }
            // "oh" at the end of a run is an exclamation more often than a zero.
            while let last = run.last, last.spelled, isWord(bytes, last.range, "oh") { run.removeLast() }
            while let last = run.last, !last.spelled { run.removeLast() }
            if run.filter(\.spelled).count >= 3 {
                var reading: [UInt8] = []
                for (position, token) in run.enumerated() {
                    if position > 0 {
                        let gap = bytes[run[position - 1].range.upperBound..<token.range.lowerBound]
                        if gap.contains(UInt8(ascii: "-")) {
                            reading.append(UInt8(ascii: "-"))
                        } else if gap.contains(UInt8(ascii: ",")) || !(token.spelled && run[position - 1].spelled) {
                            reading.append(UInt8(ascii: " "))
                        }
                    }
                    reading.append(contentsOf: token.digits)
                }
                found.append((run[0].range.lowerBound..<run[run.count - 1].range.upperBound, reading))
            }
            index = max(index + 1, next)
        }
    }

    /// What may stand between two number words: spaces, one comma or one dash.
    private static func isDigitGap(_ bytes: UnsafeBufferPointer<UInt8>, _ gap: Range<Int>) -> Bool {
        guard !gap.isEmpty, gap.count <= 3 else { return false }
        var marks = 0
        for byte in bytes[gap] {
            if isSpace(byte) && byte != 0x0A { continue }
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "-") { marks += 1 } else { return false }
        }
        return marks <= 1
    }

    private static func isDigitWordAhead(_ bytes: UnsafeBufferPointer<UInt8>, _ words: [Range<Int>], _ index: Int) -> Bool {
        index + 1 < words.count && digitValue(bytes, words[index + 1]) != nil
            && isDigitGap(bytes, words[index].upperBound..<words[index + 1].lowerBound)
    }

    // MARK: - Emails written out

    static let topLevelDomains: Set<String> = [
        "com", "org", "net", "edu", "gov", "mil", "int", "info", "biz", "io", "co", "me", "us", "uk", "ca", "au",
        "de", "fr", "es", "it", "nl", "be", "ch", "at", "se", "no", "dk", "fi", "pl", "ie", "pt", "ru", "jp",
        "cn", "in", "br", "mx", "nz", "za", "ng", "ke", "gh", "app", "dev", "online", "email", "mail",
    ]

    /// "ida.mae at gmail dot com", "ida (at) gmail (dot) com", "ida [at] gmail.com", "ida @ gmail
    /// . com" read as "ida.mae@gmail.com". The bare words "at" and "dot" count only when the
    /// name ends in a known top-level domain, so "look at it dot by dot" stays prose.
    private static func spelledEmails(_ bytes: UnsafeBufferPointer<UInt8>, _ words: [Range<Int>],
                                      into found: inout [(range: Range<Int>, reading: [UInt8])]) {
        for (position, word) in words.enumerated() where position > 0 && position + 1 < words.count {
            let at = marker(bytes, around: word, named: "at")
            let spacedAt = at == nil ? spacedSymbol(bytes, between: words[position - 1], and: words[position], symbol: "@") : nil
            guard at != nil || spacedAt != nil else { continue }
            // The local part ends at the word before the marker; its start may be dotted words.
            let atSpan: (range: Range<Int>, bare: Bool)
            let domainFirst: Int
            if let at {
                atSpan = at
                domainFirst = position + 1
            } else {
                atSpan = (spacedAt!, false)
                domainFirst = position
            }
            // The local part must end right where the marker starts ("ida at", "ida[at]").
            guard words[position - 1].upperBound == atSpan.range.lowerBound, domainFirst < words.count else { continue }
            var pieces: [(range: Range<Int>, reading: [UInt8])] = []
            pieces.append((atSpan.range, [UInt8(ascii: "@")]))
            // Domain labels joined by "dot" markers or real dots.
            var label = domainFirst
            var bareMarkers = atSpan.bare
            var lastLabel = domainFirst
            var labels = 1
            while label + 1 < words.count {
                let gapStart = words[label].upperBound, nextWord = words[label + 1]
                if nextWord.lowerBound == gapStart + 1, bytes[gapStart] == UInt8(ascii: ".") || bytes[gapStart] == UInt8(ascii: "-") {
                    label += 1; lastLabel = label; labels += 1
                    continue
                }
                if label + 2 < words.count, let dot = marker(bytes, around: words[label + 1], named: "dot"),
                   dot.range.lowerBound >= gapStart, dot.range.upperBound <= words[label + 2].lowerBound {
                    pieces.append((dot.range, [UInt8(ascii: ".")]))
                    bareMarkers = bareMarkers || dot.bare
                    label += 2; lastLabel = label; labels += 1
                    continue
                }
                if let dot = spacedSymbol(bytes, between: words[label], and: words[label + 1], symbol: ".") {
                    pieces.append((dot, [UInt8(ascii: ".")]))
                    label += 1; lastLabel = label; labels += 1
                    continue
                }
                break
            }
            let tld = lowercased(bytes, words[lastLabel])
            guard labels >= 2, tld.utf8.count >= 2, tld.utf8.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }),
                  !bareMarkers || topLevelDomains.contains(tld) else { continue }
            found.append(contentsOf: pieces)
        }
    }

    /// "at" as a marker around `word`: " at ", "[at]", "(at)", "{at}", "<at>", with or without
    /// spaces; `bare` when it has no brackets. The range covers the spaces and brackets.
    private static func marker(_ bytes: UnsafeBufferPointer<UInt8>, around word: Range<Int>, named name: StaticString)
        -> (range: Range<Int>, bare: Bool)? {
        guard isWord(bytes, word, name) else { return nil }
        var start = word.lowerBound, end = word.upperBound
        let openers: [UInt8] = Array("[({<".utf8), closers: [UInt8] = Array("])}>".utf8)
        if start > 0, let kind = openers.firstIndex(of: bytes[start - 1]), end < bytes.count, bytes[end] == closers[kind] {
            start -= 1; end += 1
            while start > 0, bytes[start - 1] == 0x20 { start -= 1 }
            while end < bytes.count, bytes[end] == 0x20 { end += 1 }
            return (start..<end, false)
        }
        guard start > 0, bytes[start - 1] == 0x20, end < bytes.count, bytes[end] == 0x20 else { return nil }
        return (start - 1..<end + 1, true)
    }

    /// " @ " or " . " (a symbol with spaces around it) between two words.
    private static func spacedSymbol(_ bytes: UnsafeBufferPointer<UInt8>, between first: Range<Int>, and second: Range<Int>,
                                     symbol: Unicode.Scalar) -> Range<Int>? {
        let gap = first.upperBound..<second.lowerBound
        guard gap.count >= 3, gap.count <= 5, bytes[gap.lowerBound] == 0x20, bytes[gap.upperBound - 1] == 0x20 else { return nil }
        var symbols = 0
        for byte in bytes[gap] {
            if byte == 0x20 { continue }
            if byte == UInt8(symbol.value) { symbols += 1 } else { return nil }
        }
        return symbols == 1 ? gap : nil
    }

    // MARK: - Spaced letters

    /// Three or more single letters with the same one-byte separator (" ", ".", "-", "_", "*")
    /// read as one word: "k i l l", "k.i.l.l".
    private static func spacedLetters(_ bytes: UnsafeBufferPointer<UInt8>, _ words: [Range<Int>],
                                      into found: inout [(range: Range<Int>, reading: [UInt8])]) {
        var index = 0
        while index < words.count {
            guard words[index].count == 1, isLetter(bytes[words[index].lowerBound]) else { index += 1; continue }
            var end = index
            var separator: UInt8?
            while end + 1 < words.count, words[end + 1].count == 1, isLetter(bytes[words[end + 1].lowerBound]),
                  words[end + 1].lowerBound == words[end].upperBound + 1 {
                let between = bytes[words[end].upperBound]
                guard between == 0x20 || between == UInt8(ascii: ".") || between == UInt8(ascii: "-")
                        || between == UInt8(ascii: "_") || between == UInt8(ascii: "*") else { break }
                if let separator, separator != between { break }
                separator = between
                end += 1
            }
            if end - index >= 2 {
                // Each separator is a deletion, so every letter keeps its own place.
                for position in index..<end {
                    found.append((words[position].upperBound..<words[position + 1].lowerBound, []))
                }
            }
            index = end + 1
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A }

    // MARK: - Symbols for letters

    /// The letter a symbol or digit stands for inside a word ("@" a, "$" s, "1" i, "4" a ...).
    static func symbolLetter(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "@"), UInt8(ascii: "4"): return UInt8(ascii: "a")
        case UInt8(ascii: "$"), UInt8(ascii: "5"): return UInt8(ascii: "s")
        case UInt8(ascii: "!"), UInt8(ascii: "1"): return UInt8(ascii: "i")
        case UInt8(ascii: "|"): return UInt8(ascii: "l")
        case UInt8(ascii: "0"): return UInt8(ascii: "o")
        case UInt8(ascii: "3"): return UInt8(ascii: "e")
        case UInt8(ascii: "7"): return UInt8(ascii: "t")
        case UInt8(ascii: "8"): return UInt8(ascii: "b")
        default: return nil
        }
    }

    /// Symbols that hide a letter ("f*ck", "f#ck", "f__k").
    static func isMaskingSymbol(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "*") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "~")
    }

    /// Inside a word of at least two letters: a masking symbol becomes `censorMark`; "@", "$",
    /// "!", "|" and leet digits become the letter they stand for. Digits count only between two
    /// letters ("k1ll", not "4th" or "mp3"); "@" and "$" may also start a word ("$hit").
    private static func censoredLetters(_ bytes: UnsafeBufferPointer<UInt8>,
                                        into found: inout [(range: Range<Int>, reading: [UInt8])]) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard isLetter(byte) || symbolLetter(byte) != nil || isMaskingSymbol(byte) else { index += 1; continue }
            let start = index
            while index < bytes.count, isLetter(bytes[index]) || symbolLetter(bytes[index]) != nil
                    || isMaskingSymbol(bytes[index]) { index += 1 }
            var end = index
            // Punctuation at the end of a word is punctuation ("help!", "why?"), but masking
            // symbols after letters hide letters ("fu**").
            while end > start, !isLetter(bytes[end - 1]), !isMaskingSymbol(bytes[end - 1]) || bytes[end - 1] == UInt8(ascii: "?") { end -= 1 }
            var letters = 0
            for position in start..<end where isLetter(bytes[position]) { letters += 1 }
            guard letters >= 2, end - start > letters else { continue }
            // A token glued to a longer run of digits is a number or a code, not a word.
            if index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 { continue }
            // An email address ("ida@example.com") is not a censored word.
            if bytes[start..<end].contains(UInt8(ascii: "@")), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "."),
               isLetter(bytes[index + 1]) { continue }
            var position = start
            while position < end {
                let symbol = bytes[position]
                if isLetter(symbol) { position += 1; continue }
                if isMaskingSymbol(symbol) {
                    // A run of masking symbols between letters ("f**k"), or after one ("fu**").
                    var runEnd = position
                    while runEnd < end, isMaskingSymbol(bytes[runEnd]) { runEnd += 1 }
                    if position > start && isLetter(bytes[position - 1]) {
                        for masked in position..<runEnd where bytes[masked] != UInt8(ascii: "*") {
                            found.append((masked..<masked + 1, [UInt8(ascii: "*")]))
                        }
                    }
                    position = runEnd
                    continue
                }
                if let letter = symbolLetter(symbol) {
                    let before = position > start && isLetter(bytes[position - 1])
                    let after = position + 1 < end && isLetter(bytes[position + 1])
                    let opensWord = position == start && (symbol == UInt8(ascii: "@") || symbol == UInt8(ascii: "$")) && after
                    if (before && after) || opensWord { found.append((position..<position + 1, [letter])) }
                }
                position += 1
            }
        }
    }

    // MARK: - Digits one at a time

    /// Seven or more single digits, each followed by a short separator (up to three of " ", ".",
    /// "-", "_", "/"): the separator most of them share is dropped, any other becomes "-" (or
    /// "." when it holds one and no dash), so "4 1 2 - 5 5 5 - 0 1 8 7" reads "412-555-0187".
    private static func spacedDigits(_ bytes: UnsafeBufferPointer<UInt8>, into found: inout [(range: Range<Int>, reading: [UInt8])]) {
        func isDigit(_ index: Int) -> Bool { index >= 0 && index < bytes.count && bytes[index] &- 0x30 < 10 }
        func isSeparator(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "/")
        }
        var index = 0
        while index < bytes.count {
            guard isDigit(index), index == 0 || !isASCIILetterOrDigit(bytes[index - 1]), !isDigit(index + 1) else { index += 1; continue }
            // Single digits and the gaps between them.
            var digits = [index]
            var gaps: [Range<Int>] = []
            var cursor = index + 1
            while cursor < bytes.count {
                var gapEnd = cursor
                while gapEnd < bytes.count, gapEnd - cursor < 3, isSeparator(bytes[gapEnd]) { gapEnd += 1 }
                guard gapEnd > cursor, isDigit(gapEnd), !isDigit(gapEnd + 1),
                      gapEnd + 1 >= bytes.count || !isASCIILetterOrDigit(bytes[gapEnd + 1]) else { break }
                gaps.append(cursor..<gapEnd)
                digits.append(gapEnd)
                cursor = gapEnd + 1
            }
            index = cursor
            guard digits.count >= 7 else { continue }
            // The separator most digits share.
            var counts: [[UInt8]: Int] = [:]
            for gap in gaps { counts[Array(bytes[gap]), default: 0] += 1 }
            guard let common = counts.max(by: { $0.value < $1.value })?.key, counts[common]! * 2 >= gaps.count else { continue }
            for gap in gaps {
                let separator = Array(bytes[gap])
                if separator == common {
                    found.append((gap, []))
                } else if separator.contains(UInt8(ascii: "-")) || separator.contains(UInt8(ascii: "/")) || !separator.contains(UInt8(ascii: ".")) {
                    found.append((gap, [separator.allSatisfy { $0 == 0x20 } ? 0x20 : UInt8(ascii: "-")]))
                } else {
                    found.append((gap, [UInt8(ascii: ".")]))
                }
            }
        }
    }
}
