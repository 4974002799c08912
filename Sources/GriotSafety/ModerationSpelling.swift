import Foundation
import GriotText

/// Spellings crafted to slip past a word list, read back as plain text before the moderator
/// tokenises. The character-level work is the shared normalised view (`NormalizedText`,
/// `.standard`: NFKC for full-width "ｋｉｌｌ" and ligatures, invisible format characters
/// removed, digits of any script as ASCII, Cyrillic and Greek look-alikes folded where the text
/// is Latin); on top of it, the moderator's own readings, tuned against HateCheck's spelling
/// functionalities: letters spelt out with dots or hyphens ("k.i.l.l", "s-u-i-c-i-d-e") joined,
/// censored letters ("k*ll", "f***ing") filled in from the lexicon, and common euphemisms
/// ("kms", "unalive", "sewerslide") read as what they stand for.
enum ModerationSpelling {
    /// The message with compatibility forms, invisible characters, look-alikes and spelt-out
    /// letters undone; ASCII text without a spelt-out run comes back unchanged (the common case).
    static func plain(_ message: String) -> String {
        var text = message.utf8.allSatisfy { $0 < 0x80 } ? message : NormalizedText(message, options: .standard).text
        if hasSpeltOutRun(text) { text = joinedSpeltOut(text) }
        return text
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
