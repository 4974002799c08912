import Foundation

/// One word or punctuation mark of a message, after the moderation normalisations.
struct ModerationToken: Sendable {
    var text: String
    /// Inside double quotation marks: someone else's words being quoted.
    var quoted: Bool
    var sentence: Int
    var isPunctuation: Bool
}

/// A message as the local moderator reads it: lower case, accents folded, leetspeak decoded
/// ("h4te"), letters spread out with spaces joined ("h a t e"), runs of a repeated letter
/// shortened ("haaate"), contractions expanded ("can't" as "can not"), words glued together
/// split ("ihate"), and a dropped or swapped letter in a lexicon word repaired ("hatrd").
struct ModerationText: Sendable {
    private(set) var tokens: [ModerationToken] = []
    private(set) var sentenceCount = 0
    /// Words written with a capital inside a sentence ("hurt Jerome"), lower-cased: most likely
    /// a person's name, which the lexicon cannot list, so a threat against them has a target.
    private(set) var names: Set<String> = []

    init(_ message: String) {
        let plain = ModerationSpelling.plain(message)
        names = Self.capitalisedWords(plain)
        var source = plain.lowercased()
        if !source.utf8.allSatisfy({ $0 < 0x80 }) {
            source = source.folding(options: .diacriticInsensitive, locale: nil)
        }
        var raw: [ModerationToken] = []
        // The word's UTF-8, made a String once at its end (appending scalar by scalar to a
        // String was a tenth of the moderator's time on the reply's sentences).
        var word: [UInt8] = []
        var quoted = false
        var sentence = 0
        func flush() {
            if !word.isEmpty { raw.append(ModerationToken(text: String(decoding: word, as: UTF8.self), quoted: quoted, sentence: sentence, isPunctuation: false)) }
            word.removeAll(keepingCapacity: true)
        }
        func append(_ scalar: Unicode.Scalar) {
            if scalar.isASCII { word.append(UInt8(scalar.value)) } else { word.append(contentsOf: UTF8.encode(scalar)!) }
        }
        let scalars = Array(source.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            let next = index + 1 < scalars.count ? scalars[index + 1] : " "
            let previous = index > 0 ? scalars[index - 1] : " "
            switch scalar {
            case "a"..."z", "0"..."9":
                append(scalar)
            case "*" where isLetter(previous) || isLetter(next):
                // "f***ing", "k*ll": a censored letter, resolved against the lexicon below.
                append(scalar)
            case "!" where (isLetter(previous) || !word.isEmpty && isLeetSign(previous)) && (isLetter(next) || isLeetSign(next) || next == "*"):
                // "sh!t", "d!e": an i written as "!".
                append("i")
            case "!" where word.isEmpty && (index == 0 || previous == " ") && isLetter(next):
                // "!n7o", "!diota": an i written as "!" opening a word.
                append("i")
            case _ where scalar.value >= 0x80 && scalar.properties.isAlphabetic:
                // Letters of every script stay inside their word ("Łukasiewicz", "matarte"),
                // so one non-ASCII letter no longer hides a word.
                append(scalar)
            case "@", "$":
                // Leetspeak for a and s only when inside or at the edge of a word.
                // "$7opped": a digit standing for a letter after it, then a letter.
                // "$70p": signs for letters, then a letter.
                var after = index + 1
                while after < scalars.count, isLeetSign(scalars[after]) { after += 1 }
                let leetAfter = after > index + 1 && after < scalars.count && isLetter(scalars[after])
                if isLetter(next) || isLetter(previous) || leetAfter || !word.isEmpty && (isLeetSign(next) || isLeetSign(previous)) { append(scalar) } else { flush() }
            case "'", "\u{2019}":
                if isLetter(previous) && isLetter(next) { append("'") } else { flush() }
            case "\"", "\u{201C}", "\u{201D}", "\u{00AB}", "\u{00BB}":
                flush()
                quoted.toggle()
            case "." where isLetter(previous) && isLetter(next):
                // "tMu.x", "P.ArA": a stop between letters with no space is a disguise or an
                // abbreviation, never the end of a sentence.
                flush()
            case ".", "?", "!", ";", ":", ",":
                flush()
                raw.append(ModerationToken(text: String(scalar), quoted: quoted, sentence: sentence, isPunctuation: true))
                if scalar == "." || scalar == "?" || scalar == "!" {
                    sentence += 1
                    // A quotation left open at the end of a sentence is a stray mark, not a quote.
                    if quoted && !scalars[(index + 1)...].contains(where: { $0 == "\"" || $0 == "\u{201D}" }) { quoted = false }
                }
            default:
                flush()
            }
        }
        flush()
        sentenceCount = sentence + 1

        // "h a t e": three or more one-letter words in a row are one word spread out.
        var joined: [ModerationToken] = []
        var index = 0
        while index < raw.count {
            var end = index
            while end < raw.count, !raw[end].isPunctuation, raw[end].text.count == 1 { end += 1 }
            // "w o n't", "i s n't": two letters and a contraction opening with a third.
            let contractionNext = end < raw.count && !raw[end].isPunctuation && raw[end].text.count >= 3
                && raw[end].text.dropFirst().first == "'"
            if end - index >= 3 || end - index == 2 && contractionNext {
                // Spread-out words that follow one another run together ("d o n e w i t h"): the
                // run is cut back into the words the lexicon knows. A contraction after it
                // ("d o n't", "t h e r e's") ends the run's last word.
                var run = raw[index..<end].map(\.text).joined()
                var tail = ""
                if end < raw.count, !raw[end].isPunctuation, let apostrophe = raw[end].text.firstIndex(of: "'"),
                   raw[end].text.distance(from: raw[end].text.startIndex, to: apostrophe) == 1 {
                    run += raw[end].text[..<apostrophe]
                    tail = String(raw[end].text[apostrophe...])
                    end += 1
                }
                let parts = Self.segmented(run)
                for (number, part) in parts.enumerated() {
                    var merged = raw[index]
                    merged.text = number == parts.count - 1 ? part + tail : part
                    joined.append(merged)
                }
                index = end
            } else {
                joined.append(raw[index])
                index += 1
            }
        }

        let lexicon = ModerationLexicon.shared
        for (position, token) in joined.enumerated() {
            if token.isPunctuation { tokens.append(token); continue }
            var spelt = Self.decodeLeet(token.text)
            if spelt.utf8.contains(UInt8(ascii: "*")) { spelt = ModerationSpelling.uncensored(spelt) }
            // "u'naLiVe", "սnαӏiνє": a euphemism behind a mark or look-alike letters is still the euphemism.
            // The reading is kept: the word is read back once, here, when it has no mark.
            var reading: (word: String, read: String)?
            if ModerationSpelling.euphemisms[spelt] == nil {
                let bare = spelt.replacingOccurrences(of: "'", with: "")
                let read = Self.readBack(bare)
                if ModerationSpelling.euphemisms[read] != nil { spelt = read } else { reading = (bare, read) }
            }
            // "kkkms", "unaalive": a euphemism with its letters doubled is still the euphemism.
            if ModerationSpelling.euphemisms[spelt] == nil, ModerationSpelling.euphemisms[ModerationLexicon.undouble(spelt)] != nil { spelt = ModerationLexicon.undouble(spelt) }
            // "kms", "unalive", "sewerslide": the euphemism read as what it stands for ("12 kms" is a distance).
            let afterNumber = position > 0 && joined[position - 1].text.allSatisfy(\.isNumber)
            // "ready to unalive", with no one named after it, is about the speaker.
            if spelt == "unalive", position + 1 >= joined.count || joined[position + 1].isPunctuation
                || !["me", "myself", "you", "yourself", "him", "her", "them", "everyone", "someone"].contains(joined[position + 1].text) {
                for part in ["kill", "myself"] { tokens.append(ModerationToken(text: part, quoted: token.quoted, sentence: token.sentence, isPunctuation: false)) }
                continue
            }
            if !afterNumber, let meaning = ModerationSpelling.euphemisms[spelt] {
                for part in meaning { tokens.append(ModerationToken(text: part, quoted: token.quoted, sentence: token.sentence, isPunctuation: false)) }
                continue
            }
            if spelt == "slide", let last = tokens.last, last.text == "sewer" {
                tokens[tokens.count - 1].text = "suicide"
                continue
            }
            // "waasnnnn't": the letters before a contraction read back first, so it expands as "wasn't".
            if let apostrophe = spelt.firstIndex(of: "'") {
                let head = String(spelt[..<apostrophe])
                let reading = Self.readBack(head)
                if reading != head, ModerationSpelling.words.contains(reading) { spelt = reading + spelt[apostrophe...] }
            }
            for piece in Self.expand(spelt) {
                for part in lexicon.repaired(reading?.word == piece ? reading!.read : Self.readBack(piece)) {
                    if let last = tokens.last, !last.isPunctuation, lexicon.slurs[last.text + part] != nil {
                        tokens[tokens.count - 1].text = last.text + part
                        continue
                    }
                    tokens.append(ModerationToken(text: part, quoted: token.quoted, sentence: token.sentence, isPunctuation: false))
                }
            }
        }
    }

    /// A run of joined single letters cut into known words, the likeliest cut winning: each word
    /// costs the logarithm of its rank among common English words (`ModerationSegmentationWords`,
    /// commonest first) plus a constant, so common words and fewer of them win ("the sea tonight",
    /// not "these a tonight"); letters no known word covers cost more than any word and stay
    /// together as one piece ("iwasdead" as "i was dead", "grandpaotis" keeps "otis"). A run the
    /// lexicon knows whole ("kill") is one piece.
    static func segmented(_ run: String) -> [String] {
        let lexicon = ModerationLexicon.shared
        let letters = Array(run)
        guard letters.count > 3, letters.count <= 80, !lexicon.known.contains(run) else { return [run] }
        var cost = [Double](repeating: .infinity, count: letters.count + 1)
        var from = [Int](repeating: 0, count: letters.count + 1)
        var known = [Bool](repeating: false, count: letters.count + 1)
        cost[0] = 0
        for end in 1...letters.count {
            for start in max(0, end - 20)..<end {
                let piece = String(letters[start..<end])
                let weight = wordCost(piece) ?? (end - start == 1 ? uncoveredLetterCost : nil)
                guard let weight else { continue }
                let candidate = cost[start] + weight
                if candidate < cost[end] { cost[end] = candidate; from[end] = start; known[end] = end - start > 1 || weight < uncoveredLetterCost }
            }
        }
        var pieces: [(text: String, known: Bool)] = []
        var end = letters.count
        while end > 0 {
            pieces.append((String(letters[from[end]..<end]), known[end]))
            end = from[end]
        }
        var out: [String] = []
        var uncovered = ""
        for piece in pieces.reversed() {
            if piece.known {
                if !uncovered.isEmpty { out.append(uncovered); uncovered = "" }
                out.append(piece.text)
            } else { uncovered += piece.text }
        }
        if !uncovered.isEmpty { out.append(uncovered) }
        return out
    }

    /// A letter no known word covers: dearer than the rarest word, so a cut uses words where it can.
    private static let uncoveredLetterCost = 16.0

    /// What a known word costs in a cut, nil for a piece that is no word: the natural logarithm
    /// of its rank, plus 4 a word. Words only the moderator's own lists hold (the lexicon, the
    /// rules' words, Spanish) count as rank 300, since they are what the rules read ("v o y a m a t a r"
    /// as "voy a matar", not "voy ama tara"); a plural of a known word as twice its rank.
    static func wordCost(_ piece: String) -> Double? {
        // "a" and "i" are common, but a one-letter word in a run is more often a cut gone wrong
        // ("these a tonight", "a renumbered"): they cost as a word of rank 60.
        if piece == "a" || piece == "i" { return log(60.0) + 4 }
        guard piece.utf8.count > 1 else { return nil }
        if let rank = ModerationSegmentationWords.rank[piece] { return log(Double(rank)) + 4 }
        if ModerationSpelling.words.contains(piece) { return log(300.0) + 4 }
        if piece.utf8.count > 3, piece.hasSuffix("s") {
            let single = String(piece.dropLast())
            if let rank = ModerationSegmentationWords.rank[single] { return log(Double(rank) * 2) + 4 }
            if ModerationSpelling.words.contains(single) { return log(600.0) + 4 }
        }
        return nil
    }

    /// Capitalised words that do not open a sentence, "I" and all-capital words left out.
    static func capitalisedWords(_ text: String) -> Set<String> {
        var found: Set<String> = []
        var word = String.UnicodeScalarView()
        var opensSentence = true
        var wordOpensSentence = true
        func flush() {
            // A name is capitalised and otherwise lower case ("Sandra", "O'Brien", "McKay"):
            // "THan", "EsSIoN" and "InTeRView" are a disguise's mixed case, not a name.
            let letters = Array(word)
            let restLower = letters.indices.dropFirst().allSatisfy { index in
                !letters[index].properties.isUppercase || letters[index - 1] == "'" || index == 2 && letters[0] == "M" && letters[1] == "c"
            }
            // A word that opens a sentence is a name only when it is no common word ("Ngozi parks…", not "Every…").
            let opener = wordOpensSentence && isCommon(String(word).lowercased(), within: 3000)
            if let first = word.first, first.properties.isUppercase, !opener, word.count > 1, restLower,
               word.dropFirst().contains(where: { $0.properties.isLowercase }) {
                var name = String(word).lowercased()
                if name.hasSuffix("'s") { name.removeLast(2) }
                // "Th.e" is not a person: a function word is never a name.
                if !ModerationLexicon.functionWords.contains(name) { found.insert(name) }
            }
            word.removeAll()
        }
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar == "'" && !word.isEmpty {
                if word.isEmpty { wordOpensSentence = opensSentence }
                word.append(scalar)
                opensSentence = false
            } else {
                flush()
                if scalar == "." || scalar == "!" || scalar == "?" || scalar == "\n" || scalar == "\"" || scalar == ":" { opensSentence = true }
            }
        }
        flush()
        return found
    }

    /// The words of each sentence outside quotation marks, in order: what the speaker says in
    /// their own voice.
    var unquotedSentences: [[String]] {
        var sentences: [[String]] = []
        var current = -1
        for token in tokens where !token.isPunctuation && !token.quoted {
            if token.sentence != current { sentences.append([]); current = token.sentence }
            sentences[sentences.count - 1].append(token.text)
        }
        return sentences
    }

    /// A digit or sign that stands for a letter inside a word ("p@r4$!7e").
    private func isLeetSign(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) || scalar == "$" || scalar == "@" }

    private func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || scalar.value >= 0x80 && scalar.properties.isAlphabetic }

    /// "h4te" as "hate", "st00pid" as "stoopid"; a word of digits alone ("1931") is left alone.
    static func decodeLeet(_ word: String) -> String {
        let scalars = word.unicodeScalars
        guard scalars.contains(where: { !("a"..."z").contains($0) }),
              scalars.contains(where: { ("a"..."z").contains($0) }) else { return word }
        var decoded = String.UnicodeScalarView()
        for scalar in scalars {
            switch scalar {
            case "4", "@": decoded.append("a")
            case "3": decoded.append("e")
            case "1": decoded.append("i")
            case "0": decoded.append("o")
            case "5", "$": decoded.append("s")
            case "7": decoded.append("t")
            case "8": decoded.append("b")
            default: decoded.append(scalar)
            }
        }
        let word = String(decoded)
        // "1" is i or l ("k1ll", "a11", "my5e1f"), "9" g ("hur7in9"): the reading the lexicon knows wins.
        let ones = scalars.filter { $0 == "1" }.count
        if ones > 0 || scalars.contains("9") {
            let known = ModerationSpelling.words
            if known.contains(word) { return word }
            let asG = Array(word.replacingOccurrences(of: "9", with: "g").unicodeScalars)
            let original = Array(scalars)
            let onePositions = original.indices.filter { original[$0] == "1" }
            // Every choice of i or l for each "1" (up to 32), with 9 as g; the lexicon's own
            // words first ("a11" is "all" before it is the name "ali").
            for vocabulary in [ModerationLexicon.shared.known, known] {
                for choice in 0..<(1 << min(ones, 5)) {
                    var letters = asG
                    for (bit, position) in onePositions.prefix(5).enumerated() { letters[position] = choice & (1 << bit) == 0 ? "i" : "l" }
                    let candidate = String(String.UnicodeScalarView(letters))
                    if vocabulary.contains(candidate) { return candidate }
                }
            }
            return word
        }
        return word
    }

    /// Runs of three or more of one letter become one ("haaate" as "hate"); doubled letters are
    /// kept, since English has them ("kill"); the lexicon also matches words with them shortened.
    static func squeeze(_ word: String) -> String {
        // Most words have no run of three: an ASCII word with no three equal bytes in a row is
        // returned as it is, without building a copy.
        var run = 0
        var previous: UInt8 = 0
        var ascii = true
        var tripled = false
        for byte in word.utf8 {
            if byte >= 0x80 { ascii = false; break }
            run = byte == previous ? run + 1 : 1
            previous = byte
            if run >= 3 { tripled = true; break }
        }
        if ascii && !tripled { return word }
        let scalars = Array(word.unicodeScalars)
        var out = String.UnicodeScalarView()
        var changed = false
        var start = 0
        while start < scalars.count {
            var end = start
            while end < scalars.count, scalars[end] == scalars[start] { end += 1 }
            if end - start >= 3 { out.append(scalars[start]); changed = true } else { out.append(contentsOf: scalars[start..<end]) }
            start = end
        }
        return changed ? String(out) : word
    }

    /// A word no list knows read with i and l swapped where that makes one it does ("iive" from
    /// a Cyrillic "ӏ" read as I, "kiil"): the two are one stroke in most fonts.
    static func lookalikeLetters(_ word: String) -> String {
        let scalars = Array(word.unicodeScalars)
        let positions = scalars.indices.filter { scalars[$0] == "i" || scalars[$0] == "l" }
        guard !positions.isEmpty, word.count >= 3, !ModerationSpelling.words.contains(word) else { return word }
        for choice in 1..<(1 << min(positions.count, 4)) {
            var letters = scalars
            for (bit, position) in positions.prefix(4).enumerated() where choice & (1 << bit) != 0 { letters[position] = letters[position] == "i" ? "l" : "i" }
            let candidate = String(String.UnicodeScalarView(letters))
            if ModerationSpelling.words.contains(candidate) { return candidate }
        }
        return word
    }

    /// The word with runs of three shortened (`squeeze`); then, when that is no word the
    /// moderator knows and the word has a run, the known word it is with its letters doubled or
    /// repeated to slip past a list ("kkeep", "tttooook", "aaand").
    static func undoubled(_ word: String) -> String {
        let squeezed = squeeze(word)
        guard !ModerationSpelling.words.contains(squeezed) else { return squeezed }
        let single = ModerationLexicon.undouble(word)
        guard single != word, single.count >= 2 else { return squeezed }
        return undoubledWords[single] ?? squeezed
    }

    /// A word as the lists know it, read back from doubled or repeated letters and from i and l
    /// swapped (one stroke in most fonts; a Cyrillic "ӏ" is read as i): a common word or one of
    /// the moderator's own is left alone; otherwise the likeliest known reading wins, each run
    /// as one letter or two and each i or l as itself or the other, scored by `wordCost` less 5
    /// a letter and plus 3 a swapped letter ("feei" as "feel", not the rare "fei"; a swap only
    /// to a common word, so "vais" stays French). A word with
    /// no known reading falls back to `undoubled` and `lookalikeLetters`.
    static func readBack(_ word: String) -> String {
        if isCommon(word) { return word }
        var runs: [(scalar: Unicode.Scalar, count: Int)] = []
        for scalar in word.unicodeScalars {
            if let last = runs.last, last.scalar == scalar { runs[runs.count - 1].count += 1 } else { runs.append((scalar, 1)) }
        }
        let repeated = Array(runs.indices.filter { runs[$0].count >= 2 }.prefix(4))
        let strokes = Array(runs.indices.filter { runs[$0].scalar == "i" || runs[$0].scalar == "l" }.prefix(3))
        guard word.utf8.count >= 2, !repeated.isEmpty || !strokes.isEmpty else { return lookalikeLetters(undoubled(word)) }
        var best: (text: String, score: Double)?
        for doubling in 0..<(1 << repeated.count) {
            for swapping in 0..<(1 << strokes.count) {
                var text = String.UnicodeScalarView()
                var swaps = 0
                for (index, run) in runs.enumerated() {
                    var scalar = run.scalar
                    if let bit = strokes.firstIndex(of: index), swapping & (1 << bit) != 0 { scalar = scalar == "i" ? "l" : "i"; swaps += 1 }
                    let count = repeated.firstIndex(of: index).map { doubling & (1 << $0) != 0 ? 2 : 1 } ?? run.count
                    for _ in 0..<count { text.append(scalar) }
                }
                let candidate = String(text)
                // A swap must make a common word or one the rules read: "vais" (French) is not "vals".
                guard let cost = wordCost(candidate), swaps == 0 || isCommon(candidate) else { continue }
                let score = cost - 5 * Double(candidate.utf8.count) + 3 * Double(swaps)
                if best == nil || score < best!.score { best = (candidate, score) }
            }
        }
        return best?.text ?? lookalikeLetters(undoubled(word))
    }

    /// A word the moderator's own lists hold, or one of the `within` commonest: read as written.
    private static func isCommon(_ word: String, within: Int = 5000) -> Bool {
        if let rank = ModerationSegmentationWords.rank[word] { return rank <= within }
        return ModerationSpelling.words.contains(word)
    }

    /// Common words with every doubled letter single ("tok" for "took"), mapped to the word;
    /// the lexicon's own words win a tie.
    private static let undoubledWords: [String: String] = {
        var map: [String: String] = [:]
        let lexicon = Array(ModerationLexicon.shared.known).sorted()
        // Common words commonest first ("tok" is "took" before it is a rarer word), then the
        // moderator's own words no common list holds.
        let ranked = ModerationSegmentationWords.words
        let common = ModerationSegmentationWords.ranked + ModerationSpelling.words.filter { !ranked.contains($0) }.sorted { ($0.count, $0) < ($1.count, $1) }
        for word in lexicon + common where word.count >= 2 {
            let single = ModerationLexicon.undouble(word)
            if map[single] == nil { map[single] = word }
        }
        return map
    }()

    private static let contractionHeads: Set<String> = ["i", "you", "he", "she", "it", "we", "they", "that", "there", "who", "what", "where", "here", "how", "when", "why",
        "let", "would", "could", "should", "might", "must", "this", "these", "those", "everyone", "everybody", "someone", "somebody", "nobody", "y", "ya"]

    private static let contractedIs: Set<String> = ["it", "that", "he", "she", "what", "there", "who", "here", "where", "this", "everything", "nothing", "everyone", "everybody", "let"]

    /// "can't" as "can not", "they're" as "they are", "it's" as "it is"; a possessive "'s" is dropped.
    static func expand(_ word: String) -> [String] {
        guard let apostrophe = word.firstIndex(of: "'") else { return [word] }
        let head = String(word[..<apostrophe])
        let tail = String(word[word.index(after: apostrophe)...])
        // "fro'm", "an'd": a mark put inside a word, not a contraction (which follows a pronoun or
        // an auxiliary, or is a possessive "'s").
        if tail != "s", !contractionHeads.contains(head), !(tail == "t" && head.hasSuffix("n")), ModerationSpelling.words.contains(head + tail) {
            return [head + tail]
        }
        switch tail {
        case "t":
            switch head {
            case "can": return ["can", "not"]
            case "won": return ["will", "not"]
            case "ain": return ["is", "not"]
            case "shan": return ["shall", "not"]
            default: return head.hasSuffix("n") ? [String(head.dropLast()), "not"] : [head]
            }
        case "re": return [head, "are"]
        case "m": return [head, "am"]
        case "ll": return [head, "will"]
        case "ve": return [head, "have"]
        case "d": return [head, "would"]
        case "s": return head == "let" ? ["let", "us"] : contractedIs.contains(head) ? [head, "is"] : [head]
        default: return [head + tail]
        }
    }
}
