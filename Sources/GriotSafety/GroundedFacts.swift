import GriotText

/// The checkable facts of a sentence: names and places (capitalised words that are not the
/// sentence's first word, unless a run of capitals starts there), years and months, numbers
/// written in digits or words. Each is compared by a key, so "1,000" and "1000", "three" and
/// "3", "Carter's" and "Carters" and "Carter" meet.
///
/// ```swift
/// GroundedFacts.mentions(in: "In 1927 Ida Mae rowed three miles to Greenville.")
/// // 1927, ida, mae, 3, greenville
/// ```
enum GroundedFacts {
    struct Mention: Equatable {
        var text: String
        var keys: [String]
    }

    static func mentions(in sentence: String) -> [Mention] {
        let scalars = Array(sentence.unicodeScalars)
        let spans = WordTokenizer.spans(in: scalars)
        var found: [Mention] = []
        for (position, span) in spans.enumerated() {
            let word = scalars[span.start..<span.end]
            let normalized = TermNormalizer.normalize(word)
            var surface = ""
            surface.unicodeScalars.append(contentsOf: word)
            if let first = word.first, first.isASCII, first.value &- 48 < 10 {
                found.append(Mention(text: surface, keys: [normalized]))
                continue
            }
            if let value = numberWords[normalized] {
                found.append(Mention(text: surface, keys: [value]))
                continue
            }
            guard let first = word.first, first.properties.isUppercase else { continue }
            if StopWords.english.contains(normalized) || notFacts.contains(normalized) { continue }
            if position == 0 || startsSentence(scalars, before: span.start) {
                // A sentence's first word is capitalised anyway: a fact only when a name runs on.
                let next = position + 1 < spans.count ? scalars[spans[position + 1].start] : " "
                let adjacent = position + 1 < spans.count && spans[position + 1].start == span.end + 1
                guard adjacent, next.properties.isUppercase, months[normalized] == nil else { continue }
            }
            found.append(Mention(text: surface, keys: keys(normalized)))
        }
        return found
    }

    /// Every key a passage offers, for looking mentions up.
    static func keys(inPassage text: String) -> Set<String> {
        let scalars = Array(text.unicodeScalars)
        var keys = Set<String>()
        WordTokenizer.forEachSpan(in: scalars) { span in
            let normalized = TermNormalizer.normalize(scalars[span.start..<span.end])
            keys.insert(normalized)
            if let value = numberWords[normalized] { keys.insert(value) }
            for key in self.keys(normalized) { keys.insert(key) }
        }
        return keys
    }

    private static let stemmer = EnglishStemmer()

    private static func keys(_ normalized: String) -> [String] {
        var bare = normalized
        if bare.hasSuffix("'s") { bare.removeLast(2) } else if bare.hasSuffix("'") { bare.removeLast() }
        if let title = titleSpellings[bare] { return [bare, stemmer.stem(bare), title] }
        return [bare, stemmer.stem(bare)]
    }

    private static func startsSentence(_ scalars: [Unicode.Scalar], before index: Int) -> Bool {
        var index = index - 1
        while index >= 0, scalars[index] == " " || scalars[index] == "\"" || scalars[index] == "\u{201C}" || scalars[index] == "'" { index -= 1 }
        guard index >= 0 else { return true }
        return scalars[index] == ":" || scalars[index] == "." || scalars[index] == "!" || scalars[index] == "?"
    }

    /// Number words, as the digits a passage may use instead. "One" is left out: "one day".
    private static let numberWords: [String: String] = {
        let words = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
                     "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
        var table = [String: String]()
        for (offset, word) in words.enumerated() { table[word] = String(offset + 2) }
        for (word, value) in [("thirty", 30), ("forty", 40), ("fifty", 50), ("sixty", 60), ("seventy", 70),
                              ("eighty", 80), ("ninety", 90), ("hundred", 100), ("thousand", 1000)] {
            table[word] = String(value)
        }
        return table
    }()

    private static let months: [String: Int] = [
        "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
        "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    ]

    /// Capitalised words that name no one in particular: titles, kin, the sacred, days.
    private static let notFacts: Set<String> = [
        "mr", "mrs", "ms", "miss", "dr", "rev", "reverend", "aunt", "auntie", "uncle", "mama", "mother",
        "daddy", "father", "papa", "grandma", "grandpa", "granny", "grandmother", "grandfather", "brother",
        "sister", "cousin", "god", "lord", "jesus", "christ", "bible", "yes", "oh", "well", "ok", "okay",
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "christmas", "easter",
        "according", "story", "stories", "passage", "passages", "transcript", "recording",
    ]

    /// Titles as transcripts spell them and as a retelling writes them out: "Marse Berry" retold
    /// "Master Berry", "Ole Miss" retold "Old Miss" meet.
    private static let titleSpellings: [String: String] = [
        "marse": "master", "massa": "master", "marster": "master", "mars": "master", "maussa": "master", "masta": "master",
        "missus": "mistress", "mistis": "mistress", "mist'ess": "mistress", "mis'ess": "mistress", "missis": "mistress",
        "ole": "old", "elderly": "old",
    ]
}
