import Foundation

/// Spellings crafted to slip past a word list, read back as plain text before the moderator
/// tokenises: compatibility forms (full-width "ｋｉｌｌ", ligatures) by NFKC, invisible format
/// characters (zero-width spaces and joiners, soft hyphens) removed, Cyrillic and Greek
/// look-alike letters folded to Latin, letters spelt out with dots or hyphens ("k.i.l.l",
/// "s-u-i-c-i-d-e") joined, censored letters ("k*ll", "f***ing") filled in from the lexicon, and
/// common euphemisms ("kms", "unalive", "sewerslide") read as what they stand for.
///
/// This is the moderator's own view. When the shared normalised view (`GriotText`, NFKC,
/// confusables, span maps) is on this branch, `plain` should read from it instead.
enum ModerationSpelling {
    /// The message with compatibility forms, invisible characters, look-alikes and spelt-out
    /// letters undone; ASCII text without a spelt-out run comes back unchanged (the common case).
    static func plain(_ message: String) -> String {
        let ascii = message.utf8.allSatisfy { $0 < 0x80 }
        var text = message
        if !ascii {
            text = text.precomposedStringWithCompatibilityMapping
            text = foldedLookAlikes(text)
        }
        if hasSpeltOutRun(text) { text = joinedSpeltOut(text) }
        return text
    }

    /// Invisible characters people put inside words so the word is not seen: format characters
    /// (zero-width space, joiners, soft hyphen, word joiner, BOM) and variation selectors.
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .format || (0xFE00...0xFE0F).contains(scalar.value) || scalar.value == 0x034F
    }

    /// Cyrillic and Greek letters that look like Latin ones, in lower and upper case.
    static let lookAlikes: [Unicode.Scalar: Unicode.Scalar] = {
        let pairs: [(String, String)] = [
            ("аеорсухіјѕԁһӏ", "aeopcyxijsdhl"), ("АВЕКМНОРСТХІЈЅ", "abekmhopctxijs"),
            ("αοεικνρτυχ", "aoeikvptux"), ("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "abezhikmnoptyx"),
            ("ёїќ", "eik"),
        ]
        var table: [Unicode.Scalar: Unicode.Scalar] = [:]
        for (from, to) in pairs {
            for (a, b) in zip(from.unicodeScalars, to.unicodeScalars) { table[a] = b }
        }
        return table
    }()

    /// Folds look-alikes word by word, and only in a word that mixes them with Latin letters or
    /// is made of look-alikes alone: a real Russian or Greek word nearly always holds letters with
    /// no Latin twin ("друг"), so it is left as written. Invisible characters are dropped.
    static func foldedLookAlikes(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var word: [Unicode.Scalar] = []
        func flush() {
            guard !word.isEmpty else { return }
            let hasLatin = word.contains { $0.isASCII && $0.properties.isAlphabetic }
            let foreign = word.filter { !$0.isASCII && $0.properties.isAlphabetic }
            let fold = !foreign.isEmpty && (hasLatin || foreign.allSatisfy { lookAlikes[$0] != nil })
            for scalar in word { out.append(fold ? lookAlikes[scalar] ?? scalar : scalar) }
            word.removeAll(keepingCapacity: true)
        }
        for scalar in text.unicodeScalars {
            if isInvisible(scalar) { continue }
            if scalar.properties.isAlphabetic || scalar.properties.generalCategory == .nonspacingMark { word.append(scalar) } else { flush(); out.append(scalar) }
        }
        flush()
        return String(out)
    }

    private static let spellingMarks: Set<UInt8> = [UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_")]

    /// Whether some letter, mark, letter, mark, letter run ("k.i.l") is in the text.
    private static func hasSpeltOutRun(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 5 else { return false }
        for start in 0..<(bytes.count - 4) where isASCIILetter(bytes[start]) && spellingMarks.contains(bytes[start + 1])
            && isASCIILetter(bytes[start + 2]) && bytes[start + 3] == bytes[start + 1] && isASCIILetter(bytes[start + 4])
            && (start == 0 || !isASCIILetter(bytes[start - 1])) {
            return true
        }
        return false
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    /// "k.i.l.l" as "kill", "s-u-i-c-i-d-e" as "suicide": three or more single letters with the
    /// same mark between them; "U.S." and "e-mail" are shorter or not single letters.
    static func joinedSpeltOut(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if isASCIILetter(bytes[index]), index == 0 || !isASCIILetter(bytes[index - 1]), index + 1 < bytes.count, spellingMarks.contains(bytes[index + 1]) {
                let mark = bytes[index + 1]
                var letters = [bytes[index]]
                var cursor = index + 1
                while cursor + 1 < bytes.count, bytes[cursor] == mark, isASCIILetter(bytes[cursor + 1]),
                      cursor + 2 >= bytes.count || !isASCIILetter(bytes[cursor + 2]) {
                    letters.append(bytes[cursor + 1])
                    cursor += 2
                }
                if letters.count >= 3 {
                    out += letters
                    // A trailing mark of the run ("k.i.l.l.") belongs to it, not to the sentence.
                    if cursor < bytes.count, bytes[cursor] == mark, mark != UInt8(ascii: ".") { cursor += 1 }
                    index = cursor
                    continue
                }
            }
            out.append(bytes[index])
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Words people censor with asterisks, most likely first; the lexicon's words and slurs of the
    /// same length are tried after them.
    private static let commonlyCensored = [
        "fuck", "fucking", "fucker", "fucked", "shit", "asshole", "bastard", "damn", "hell", "piss", "dick",
        "moron", "stupid", "idiot", "loser", "kill", "killing", "myself", "yourself", "die", "dead", "suicide", "murder", "stab", "shoot",
    ]

    private static let censorable: [Int: [String]] = {
        var byLength: [Int: [String]] = [:]
        for word in commonlyCensored { byLength[word.count, default: []].append(word) }
        let lexicon = ModerationLexicon.shared
        let wanted: ModerationCue = [.profanity, .insult, .violentAct, .dehumanising, .negativeAttribute]
        for word in lexicon.cues.keys.sorted() where !lexicon.cue(word).intersection(wanted).isEmpty && !commonlyCensored.contains(word) {
            byLength[word.count, default: []].append(word)
        }
        // Slurs last (kept ROT13-encoded in the lexicon's source, never spelt out here).
        for word in lexicon.slurs.keys.sorted() where !commonlyCensored.contains(word) { byLength[word.count, default: []].append(word) }
        return byLength
    }()

    /// "k*ll" as "kill", "f***ing" as "fucking": the first censorable word of the same length
    /// whose other letters agree; the asterisks are dropped when none does.
    static func uncensored(_ word: String) -> String {
        let letters = Array(word)
        guard letters.contains(where: { $0 != "*" }) else { return word }
        for candidate in censorable[letters.count] ?? [] {
            if zip(letters, candidate).allSatisfy({ $0 == "*" || $0 == $1 }) { return candidate }
        }
        return word.replacingOccurrences(of: "*", with: "")
    }

    /// Euphemisms and abbreviations for suicide and for telling someone to die, as the words
    /// they stand for.
    static let euphemisms: [String: [String]] = [
        "kms": ["kill", "myself"], "kys": ["kill", "yourself"], "ctb": ["kill", "myself"],
        "unalive": ["kill"], "unalived": ["killed"], "unaliving": ["killing"], "unaliveing": ["killing"],
        "sewerslide": ["suicide"],
    ]
}
