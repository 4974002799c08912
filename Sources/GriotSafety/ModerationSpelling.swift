import Foundation
import GriotText

/// Spellings crafted to slip past a word list, read back as plain text before the moderator
/// tokenises. The character-level work is the shared normalised view (`NormalizedText`,
/// `.standard`: NFKC for full-width "ｋｉｌｌ" and ligatures, invisible format characters
/// removed, digits of any script as ASCII, Cyrillic and Greek look-alikes folded where the text
/// is Latin); on top of it, the moderator's own readings, tuned against HateCheck's spelling
/// functionalities: letters spelt out with dots or hyphens ("k.i.l.l", "s-u-i-c-i-d-e") joined,
/// censored letters ("k*ll", "f***ing") filled in from the lexicon, and common euphemisms
/// ("kms", "unalive", "sewerslide") read as what they stand for. Issue 35 added the letters that
/// only nearly look Latin (Cyrillic "к", "м", "т", Greek "κ", "η"), folded where the message is
/// written in Latin letters, and a mark put inside a word ("s.uicide", "wan_t") taken out when
/// the word without it is one the lexicon knows.
///
/// This is the one place a message is normalised for moderation: `ModerationText` reads its
/// output, and every reading (rules, Spanish, other languages, plain harm, the semantic layer)
/// reads `ModerationText`.
enum ModerationSpelling {
    /// The message with compatibility forms, invisible characters, look-alikes and spelt-out
    /// letters undone; ASCII text without a spelt-out run comes back unchanged (the common case).
    static func plain(_ message: String) -> String {
        var text = message
        if !message.utf8.allSatisfy({ $0 < 0x80 }) {
            text = NormalizedText(message, options: .standard).text
            if !text.utf8.allSatisfy({ $0 < 0x80 }) { text = foldedNearLookalikes(text) }
        }
        if hasSpeltOutRun(text) { text = joinedSpeltOut(text) }
        if hasMarkInsideWord(text) { text = joinedAcrossMarks(text) }
        return text
    }

    private static let spellingMarks: Set<UInt8> = [UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"), UInt8(ascii: "*"), UInt8(ascii: "~"), UInt8(ascii: "|"), UInt8(ascii: "+")]

    /// Letters of other scripts that look like a Latin letter at small sizes, beyond the pairs
    /// UTS #39 lists (which `NormalizedText` folds): the table pairs shapes of one case, so
    /// Cyrillic "к" and "т" (small capitals of k and t) and Greek "κ", "η", "τ" are not in it,
    /// and people who write "κιll" use them exactly for that.
    static let nearLookalikes: [Unicode.Scalar: Unicode.Scalar] = {
        var table: [Unicode.Scalar: Unicode.Scalar] = [:]
        let pairs: [(String, Unicode.Scalar)] = [
            ("\u{0430}\u{03B1}\u{0251}", "a"), ("\u{0432}\u{03B2}\u{0184}\u{042C}\u{044C}", "b"), ("\u{0441}\u{03F2}\u{03C2}", "c"), ("\u{0501}", "d"),
            ("\u{0435}\u{0454}\u{03B5}\u{0451}", "e"), ("\u{0261}", "g"), ("\u{04BB}\u{043D}", "h"), ("\u{0456}\u{03B9}\u{0457}\u{0131}\u{026A}", "i"),
            ("\u{0458}\u{03F3}", "j"), ("\u{03BA}\u{043A}\u{0138}", "k"), ("\u{04CF}", "l"), ("\u{043C}", "m"), ("\u{0578}\u{03B7}\u{043F}", "n"),
            ("\u{043E}\u{03BF}\u{03C3}\u{0585}", "o"), ("\u{0440}\u{03C1}", "p"), ("\u{051B}", "q"), ("\u{0433}", "r"), ("\u{0455}", "s"),
            ("\u{0442}\u{03C4}", "t"), ("\u{03C5}\u{057D}\u{03BC}", "u"), ("\u{03BD}\u{0475}", "v"), ("\u{051D}\u{0461}\u{03C9}\u{0448}", "w"),
            ("\u{0445}\u{03C7}", "x"), ("\u{0443}\u{03B3}\u{04AF}", "y"), ("\u{1D22}", "z"),
        ]
        for (sources, target) in pairs { for source in sources.unicodeScalars { table[source] = target } }
        return table
    }()

    /// Near look-alikes folded to Latin inside a word that holds a Latin letter, and everywhere
    /// when most of the message's letters are Latin ("κms fr"); a Russian or Greek message, where
    /// most letters are not, reads as written.
    static func foldedNearLookalikes(_ text: String) -> String {
        var latin = 0, other = 0
        for scalar in text.unicodeScalars where scalar.properties.isAlphabetic {
            if scalar.isASCII { latin += 1 } else if nearLookalikes[scalar] != nil { other += 1 }
        }
        guard other > 0 else { return text }
        let everywhere = latin >= other
        var out = String.UnicodeScalarView()
        var word: [Unicode.Scalar] = []
        func flush() {
            if everywhere || word.contains(where: { $0.isASCII }) {
                out.append(contentsOf: word.map { nearLookalikes[$0] ?? $0 })
            } else {
                out.append(contentsOf: word)
            }
            word.removeAll(keepingCapacity: true)
        }
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic { word.append(scalar) } else { flush(); out.append(scalar) }
        }
        flush()
        return String(out)
    }

    /// Whether a letter, a mark, a letter ("e.nd", "wan_t") is somewhere in the text.
    private static func hasMarkInsideWord(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3 else { return false }
        for index in 1..<(bytes.count - 1) where insideWordMarks.contains(bytes[index]) && isASCIILetter(bytes[index - 1]) && isASCIILetter(bytes[index + 1]) {
            return true
        }
        return false
    }

    /// The words a disguised spelling is read back into: the lexicon's words and euphemisms, and
    /// the common English words of `ModerationSegmentationWords`.
    static let words: Set<String> = {
        let lexicon = ModerationLexicon.shared
        // Words of the crisis and threat phrases that the common-word list lacks.
        let phraseWords = ["suicidal", "pills", "overdose", "overdosing", "noose", "razor", "razors", "unalive", "worthless", "pathetic", "asshole", "goodbye", "disappear", "paracetamol", "ibuprofen", "tylenol"]
        return lexicon.known.union(lexicon.slurs.keys).union(euphemisms.keys).union(ModerationSegmentationWords.words).union(ModerationSegmentationWords.ruleWords).union(phraseWords)
            .union(spanishWords)
    }()

    /// The words of the Spanish phrases, so "q u i e r o m o r i r" is cut as Spanish.
    private static var spanishWords: Set<String> {
        var found: Set<String> = ["voy", "quiero", "eres", "los", "las", "una", "por", "para", "que", "mi", "tu", "te", "me", "casa", "noche", "esta", "vida"]
        for phrase in ModerationSpanish.crisis + ModerationSpanish.threats { found.formUnion(phrase) }
        found.formUnion(ModerationSpanish.violentVerbs)
        found.formUnion(ModerationSpanish.insults)
        found.formUnion(ModerationSpanish.groups)
        found.formUnion(ModerationSpanish.dehumanising)
        return found.filter { $0.count >= 2 }
    }

    private static let insideWordMarks: Set<UInt8> = [UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "*"), UInt8(ascii: "/"), UInt8(ascii: "~"), UInt8(ascii: "|")]

    /// "s.uicide", "wORtHLe.SS", "wan_T": one mark inside a run of letters is taken out when the
    /// letters without it are a word the lexicon knows and the parts are not both words ("self-harm"
    /// and "end.Then" stay as they are).
    static func joinedAcrossMarks(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        func letterRun(from start: Int) -> Int {
            var end = start
            while end < bytes.count, isASCIILetter(bytes[end]) { end += 1 }
            return end
        }
        while index < bytes.count {
            guard isASCIILetter(bytes[index]), index == 0 || !isASCIILetter(bytes[index - 1]) else { out.append(bytes[index]); index += 1; continue }
            let leftEnd = letterRun(from: index)
            if leftEnd + 1 < bytes.count, insideWordMarks.contains(bytes[leftEnd]), isASCIILetter(bytes[leftEnd + 1]) {
                let rightEnd = letterRun(from: leftEnd + 1)
                let left = String(decoding: bytes[index..<leftEnd], as: UTF8.self).lowercased()
                let right = String(decoding: bytes[(leftEnd + 1)..<rightEnd], as: UTF8.self).lowercased()
                // The parts are judged by the lexicon's own words: the common-word list holds
                // fragments ("wan", "er") that would keep "wan_t" and "bett.er" apart.
                let known = ModerationLexicon.shared.known
                let leftWord = left.count >= 2 && known.contains(left), rightWord = right.count >= 2 && known.contains(right)
                // A hyphen joins real compounds ("good-bye", "over-dose"): taken out only between two
                // fragments, or beside a single letter ("T-he", "fad-E").
                // Or when one side is no word at all ("Wh-AT", "TA-blets").
                // The joined word must be a common one or one the rules read ("co-op" is not "coop").
                let joinedWord = left + right
                let likely = ModerationSegmentationWords.rank[joinedWord].map { $0 <= 15000 } ?? true
                let fragment = !words.contains(left) || !words.contains(right)
                let joins = bytes[leftEnd] == UInt8(ascii: "-") ? (!leftWord && !rightWord || fragment) && likely || left.count == 1 || right.count == 1 : !(leftWord && rightWord)
                if joins, words.contains(joinedWord) {
                    out += bytes[index..<leftEnd]
                    out += bytes[(leftEnd + 1)..<rightEnd]
                    index = rightEnd
                    continue
                }
            }
            out += bytes[index..<leftEnd]
            index = leftEnd
        }
        return String(decoding: out, as: UTF8.self)
    }

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
