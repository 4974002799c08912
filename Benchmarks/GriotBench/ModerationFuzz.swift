/// Disguised spellings of a message, made the way people make them to slip a message past a
/// word list: letters spaced out ("k i l l"), leetspeak ("k1ll"), look-alike letters from other
/// scripts and full-width forms ("kіll", "ｋｉｌｌ"), invisible characters between letters, a mark
/// between every letter ("k.i.l.l"), mixed case with a mark inside the word ("Ki.Ll"), and
/// repeated letters ("kiiill"). Deterministic: the same text, technique and variant number give
/// the same variant on every machine (a SplitMix64 stream seeded from the text's FNV-1a hash).
///
/// ```swift
/// let variant = ModerationFuzz.variant(of: "I will kill you", technique: .leetspeak, number: 0)
/// // "I wi11 k1ll y0u" or similar: each word of three letters or more is disguised with
/// // probability 0.6, and at least one is.
/// ```
enum ModerationFuzz {
    enum Technique: String, CaseIterable {
        case spacedLetters = "spaced-out letters"
        case leetspeak = "leetspeak"
        case homoglyphs = "homoglyphs (look-alikes, full-width)"
        case invisible = "invisible characters"
        case markBetweenLetters = "a mark between letters"
        case mixedCaseAndMark = "mixed case, a mark inside the word"
        case repeatedLetters = "repeated letters"
    }

    /// The bench's seeded generator (`SplitMix`), with the two draws the techniques make.
    typealias Stream = SplitMix

    static func seed(_ text: String, _ technique: Technique, _ number: Int) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in Array(text.utf8) + Array(technique.rawValue.utf8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash ^ UInt64(number) &* 0x2545_F491_4F6C_DD1D
    }

    /// One disguised variant: words of three ASCII letters or more are disguised with
    /// probability 0.6, at least one of them.
    static func variant(of text: String, technique: Technique, number: Int) -> String {
        var stream = Stream(seed: seed(text, technique, number))
        var words: [(range: Range<String.Index>, word: String)] = []
        var start: String.Index?
        for index in text.indices {
            let isLetter = text[index].isASCII && text[index].isLetter
            if isLetter, start == nil { start = index }
            if !isLetter, let first = start {
                if text.distance(from: first, to: index) >= 3 { words.append((first..<index, String(text[first..<index]))) }
                start = nil
            }
        }
        if let first = start, text.distance(from: first, to: text.endIndex) >= 3 { words.append((first..<text.endIndex, String(text[first...]))) }
        guard !words.isEmpty else { return text }
        var chosen = words.indices.filter { _ in stream.chance(0.6) }
        if chosen.isEmpty { chosen = [Int(stream.next() % UInt64(words.count))] }
        var result = text
        // Replaced from the last word to the first, so the earlier ranges stay valid.
        for position in chosen.reversed() {
            result.replaceSubrange(words[position].range, with: disguise(words[position].word, technique, &stream))
        }
        return result
    }

    static func disguise(_ word: String, _ technique: Technique, _ stream: inout Stream) -> String {
        let letters = Array(word)
        switch technique {
        case .spacedLetters:
            return letters.map(String.init).joined(separator: " ")
        case .leetspeak:
            var out = ""
            var changed = false
            for letter in letters {
                if let options = leet[Character(letter.lowercased())], stream.chance(0.7) {
                    out += stream.pick(options)
                    changed = true
                } else { out.append(letter) }
            }
            if !changed, let index = letters.firstIndex(where: { leet[Character($0.lowercased())] != nil }) {
                out = String(letters[..<index]) + leet[Character(letters[index].lowercased())]![0] + String(letters[(index + 1)...])
            }
            return out
        case .homoglyphs:
            if stream.chance(0.25) {
                // Full-width forms: U+FF01 + (ASCII - 0x21).
                return String(String.UnicodeScalarView(letters.flatMap(\.unicodeScalars).map { Unicode.Scalar($0.value - 0x21 + 0xFF01)! }))
            }
            var out = ""
            var changed = false
            for letter in letters {
                if let options = lookalikes[Character(letter.lowercased())], stream.chance(0.6) {
                    out += stream.pick(options)
                    changed = true
                } else { out.append(letter) }
            }
            if !changed, let index = letters.firstIndex(where: { lookalikes[Character($0.lowercased())] != nil }) {
                out = String(letters[..<index]) + lookalikes[Character(letters[index].lowercased())]![0] + String(letters[(index + 1)...])
            }
            return out
        case .invisible:
            var out = String(letters[0])
            for letter in letters.dropFirst() {
                if stream.chance(0.6) { out.unicodeScalars.append(stream.pick(invisibles)) }
                out.append(letter)
            }
            if out.unicodeScalars.count == letters.count { out.insert(Character(invisibles[0]), at: out.index(after: out.startIndex)) }
            return out
        case .markBetweenLetters:
            return letters.map(String.init).joined(separator: stream.pick([".", "-", "_", "*", "/"]))
        case .mixedCaseAndMark:
            var cased = letters.map { stream.chance(0.5) ? Character($0.uppercased()) : Character($0.lowercased()) }
            let at = 1 + Int(stream.next() % UInt64(letters.count - 1))
            cased.insert(stream.pick([".", "-", "_", "*", "'"]), at: at)
            return String(cased)
        case .repeatedLetters:
            var out = ""
            let repeated = Set((0..<(stream.chance(0.5) ? 2 : 1)).map { _ in Int(stream.next() % UInt64(letters.count)) })
            for (index, letter) in letters.enumerated() {
                out.append(letter)
                if repeated.contains(index) { out += String(repeating: letter, count: 1 + Int(stream.next() % 4)) }
            }
            return out
        }
    }

    static let leet: [Character: [String]] = [
        "a": ["4", "@"], "e": ["3"], "i": ["1", "!"], "o": ["0"], "s": ["5", "$"], "t": ["7"], "b": ["8"], "l": ["1"], "g": ["9"],
    ]

    /// Cyrillic, Greek and other letters that look like Latin ones; some are in Unicode's
    /// confusables table, some (Greek kappa, Cyrillic small letters) are only near.
    static let lookalikes: [Character: [String]] = [
        "a": ["\u{0430}", "\u{03B1}"], "c": ["\u{0441}", "\u{03F2}"], "d": ["\u{0501}"], "e": ["\u{0435}", "\u{0454}"],
        "g": ["\u{0261}"], "h": ["\u{04BB}"], "i": ["\u{0456}", "\u{03B9}"], "j": ["\u{0458}"], "k": ["\u{03BA}", "\u{043A}"],
        "l": ["\u{04CF}", "\u{217C}"], "m": ["\u{043C}"], "n": ["\u{0578}", "\u{03B7}"], "o": ["\u{043E}", "\u{03BF}"], "p": ["\u{0440}", "\u{03C1}"],
        "q": ["\u{051B}"], "r": ["\u{0433}"], "s": ["\u{0455}"], "t": ["\u{0442}", "\u{03C4}"], "u": ["\u{03C5}", "\u{057D}"],
        "v": ["\u{03BD}", "\u{0475}"], "w": ["\u{051D}", "\u{0461}"], "x": ["\u{0445}", "\u{03C7}"], "y": ["\u{0443}", "\u{03B3}"],
    ]

    static let invisibles: [Unicode.Scalar] = ["\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{00AD}", "\u{FE0F}", "\u{FEFF}"]
}

extension SplitMix {
    mutating func chance(_ probability: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < probability }
    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
}
