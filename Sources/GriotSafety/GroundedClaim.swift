import GriotText

/// Whether one cited sentence says what the passage it cites says, checked against that passage
/// alone (a fact another retrieved story holds does not back it): each name, number, date and
/// place the sentence states, and each kinship word, must be in the passage or in what the
/// story says about itself (title, tellers, people, places); a sentence that negates the
/// passage's closest sentence, or that says nothing the passage says, is not supported.
///
/// ```swift
/// let verdict = GroundedClaim.check("She rowed to Greenville in 1927.", passage: text, about: [title] + people + places)
/// verdict.isSupported   // false when the passage says 1929, or that she never rowed
/// ```
/// A quote the caller found verbatim in the passage (`quoted`) is the passage's own words: only
/// the sentence around it is checked for facts and kinship words, and negation is not compared.
public enum GroundedClaim {
    public struct Verdict: Sendable, Equatable {
        /// Facts and kinship words of the sentence that the passage does not have.
        public var missing: [String]
        /// The sentence is negated where the passage's closest sentence is not, or the reverse.
        public var contradicts: Bool
        /// The share of the sentence's content words that the passage has.
        public var support: Double
        /// Too few of the sentence's content words are in the passage for it to be about what the passage says.
        public var unrelated: Bool
        /// The passage's sentence that best supports the claim, as a range of its Unicode scalars.
        public var bestSentence: Range<Int>?

        public var isSupported: Bool { missing.isEmpty && !contradicts && !unrelated }

        /// What is wrong, in words that name no value (a reason is stored and may be shown).
        public var problems: [String] {
            var found: [String] = []
            if !missing.isEmpty { found.append("\(missing.count) name, number, date, place or kinship word\(missing.count == 1 ? "" : "s") not in the passage") }
            if contradicts { found.append("negates the passage") }
            if unrelated { found.append("shares too few words with the passage") }
            return found
        }
    }

    /// Below this share of its content words in the cited passage a quote-less sentence is not
    /// about what the passage says. Paraphrases keep most of them (tuned on evals/claims/tune.jsonl).
    public static let leastSupport = 0.25

    public static func check(_ claim: String, passage: String, about: [String] = [], quoted: String? = nil) -> Verdict {
        var framing = Self.withoutMasks(GroundedAnswer(claim).sentences.joined(separator: " "))
        if let quoted, !quoted.isEmpty {
            framing = framing.replacingLiteral(quoted, with: " ")
        }
        let described = ([passage] + about).joined(separator: "\n")
        let keys = GroundedFacts.keys(inPassage: described)
        let named = Self.capitalizedKeys(in: described)
        var missing: [String] = []
        for mention in GroundedFacts.mentions(in: framing) {
            // A name or place must be a name in the passage too: "Down" is not backed by "down the road".
            let isName = mention.text.unicodeScalars.first?.properties.isUppercase == true
            if !mention.keys.contains(where: (isName ? named : keys).contains) { missing.append(mention.text) }
        }
        if let first = Self.leadingName(of: framing), !keys.contains(first.key), !missing.contains(first.text) { missing.append(first.text) }

        let scalars = Array(passage.unicodeScalars)
        let analyzer = TextAnalyzer()
        let claimTerms = Set(analyzer.terms(in: framing)).subtracting(Self.framingTerms)
        let passageTerms = Set(analyzer.terms(in: described))
        let support = claimTerms.isEmpty ? 1 : Double(claimTerms.intersection(passageTerms).count) / Double(claimTerms.count)
        let spans = SentenceSplitter.sentences(in: scalars)
        let sentences = spans.map { String(String.UnicodeScalarView(scalars[$0.start..<$0.end])) }
        let sentenceTerms = sentences.map { Set(analyzer.terms(in: $0)) }
        /// The passage's sentence that shares the most of `terms` (Jaccard), if any shares one.
        func closest(to terms: Set<String>) -> (score: Double, index: Int)? {
            var best: (score: Double, index: Int)?
            for (index, candidate) in sentenceTerms.enumerated() {
                guard !candidate.isEmpty, !terms.isEmpty else { continue }
                let overlap = Double(candidate.intersection(terms).count) / Double(candidate.union(terms).count)
                if best == nil || overlap > best!.score { best = (overlap, index) }
            }
            return best
        }
        let best = closest(to: claimTerms)
        // A sentence may join what two sentences of the passage say ("…in 1927, and later they
        // moved to Chicago"): a part whose words are mostly not in the closest sentence is
        // checked against the sentence that holds most of them.
        var home = framing
        var joined: [(text: String, terms: Set<String>, sentence: Int)] = []
        if let best {
            let parts = Self.parts(of: framing).map { (text: $0, terms: Set(analyzer.terms(in: $0)).subtracting(Self.framingTerms)) }
            var homeParts: [String] = []
            for part in parts {
                let inBest = Double(part.terms.intersection(sentenceTerms[best.index]).count) / Double(max(1, part.terms.count))
                if parts.count > 1, part.terms.count >= 2, inBest < 0.5,
                   let holder = sentenceTerms.indices.max(by: { a, b in
                       (sentenceTerms[a].intersection(part.terms).count, -sentenceTerms[a].count) < (sentenceTerms[b].intersection(part.terms).count, -sentenceTerms[b].count)
                   }),
                   Double(sentenceTerms[holder].intersection(part.terms).count) / Double(part.terms.count) >= 0.5 {
                    joined.append((part.text, part.terms, holder))
                } else {
                    homeParts.append(part.text)
                }
            }
            if !joined.isEmpty { home = homeParts.joined(separator: ", ") }
        }
        // A kinship word says how two people are related, which the passage says where it speaks
        // of them: it must be in the closest sentence ("Mama" elsewhere in the passage does not
        // back "her mother André" where it says "your daddy André"), or in a joined part's own.
        var near = best.map { Self.words(sentences[$0.index]) } ?? Self.words(described)
        for part in joined { near += Self.words(sentences[part.sentence]) }
        let nearby = Set(near).union(Self.words(about.joined(separator: "\n")))
        for word in Self.words(framing) {
            guard let group = Self.kinship[word], !missing.contains(word) else { continue }
            if !group.contains(where: nearby.contains) { missing.append(word) }
        }
        // Negation: the sentence says "not" as many times as the passage's closest sentence. When
        // it restates only part of that sentence (under half its content words), it is compared
        // clause by clause instead, so a "not" in a clause it leaves out is not held against it.
        // A joined part is compared with its own sentence.
        var contradicts = false
        if quoted == nil, claimTerms.count >= 3, let best, best.score > 0 {
            let homeTerms = Set(analyzer.terms(in: home)).subtracting(Self.framingTerms)
            contradicts = Self.contradicts(home, terms: homeTerms, sentence: sentences[best.index], sentenceTerms: sentenceTerms[best.index], analyzer: analyzer)
            for part in joined where !contradicts {
                contradicts = Self.contradicts(part.text, terms: part.terms, sentence: sentences[part.sentence],
                                               sentenceTerms: sentenceTerms[part.sentence], analyzer: analyzer)
            }
        }
        let unrelated = quoted == nil && support < Self.leastSupport
        return Verdict(missing: missing, contradicts: contradicts, support: support, unrelated: unrelated,
                       bestSentence: best.map { spans[$0.index].start..<spans[$0.index].end })
    }

    /// Whether `claim` (a sentence or a part of one) negates `sentence`, its closest in the passage.
    static func contradicts(_ claim: String, terms claimTerms: Set<String>, sentence: String, sentenceTerms: Set<String>,
                            analyzer: TextAnalyzer) -> Bool {
        let covered = Double(sentenceTerms.intersection(claimTerms).count) / Double(max(1, sentenceTerms.count))
        if covered >= 0.5 { return negations(in: claim) != negations(in: sentence) }
        let passageClauses = clauses(sentence).map { (text: $0, terms: Set(analyzer.terms(in: $0))) }
        for clause in clauses(claim) {
            let terms = Set(analyzer.terms(in: clause)).subtracting(framingTerms)
            guard !terms.isEmpty else { continue }
            var closest: (score: Double, text: String)?
            for candidate in passageClauses where !candidate.terms.isEmpty {
                let overlap = Double(terms.intersection(candidate.terms).count) / Double(terms.union(candidate.terms).count)
                if closest == nil || overlap > closest!.score { closest = (overlap, candidate.text) }
            }
            if let closest, closest.score > 0, negations(in: clause) != negations(in: closest.text) { return true }
        }
        return false
    }

    /// A sentence cut where an answer joins two statements: at semicolons, and at ", and" or
    /// ", but" followed by a new subject's statement ("…in 1927, and later they moved…").
    static func parts(of sentence: String) -> [String] {
        var parts: [String] = []
        for piece in sentence.split(separator: ";") {
            var rest = Substring(piece)
            while let join = rest.firstRange(of: ", and ") ?? rest.firstRange(of: ", but ") {
                parts.append(String(rest[..<join.lowerBound]))
                rest = rest[join.upperBound...]
            }
            parts.append(String(rest))
        }
        return parts.map { String($0.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }.filter { !$0.isEmpty }
    }

    /// A sentence cut at commas, semicolons and colons.
    static func clauses(_ sentence: String) -> [String] {
        sentence.split { $0 == "," || $0 == ";" || $0 == ":" }.map(String.init)
    }

    /// How many times a sentence says "not": negation words and verbs with "n't".
    static func negations(in text: String) -> Int {
        words(text).filter { negations.contains($0) || $0.hasSuffix("n't") }.count
    }

    /// Keys of the words written with a capital in `text`.
    static func capitalizedKeys(in text: String) -> Set<String> {
        let scalars = Array(text.unicodeScalars)
        var capitalized = String.UnicodeScalarView()
        WordTokenizer.forEachSpan(in: scalars) { span in
            guard scalars[span.start].properties.isUppercase || scalars[span.start].properties.numericType != nil else { return }
            capitalized.append(contentsOf: scalars[span.start..<span.end])
            capitalized.append(" ")
        }
        return GroundedFacts.keys(inPassage: String(capitalized))
    }

    /// The sentence's first word when it reads as a name or place ("Clarksdale was their
    /// Rampart Street"), which `GroundedFacts` leaves out since every sentence starts with a
    /// capital: a capitalised word that is not a function word, a title or kin word, a month, a
    /// label before a colon, or shaped like an adverb or participle ("Later", "Growing").
    static func leadingName(of text: String) -> (text: String, key: String)? {
        let scalars = Array(text.unicodeScalars)
        guard let span = WordTokenizer.spans(in: scalars).first,
              scalars[span.start].properties.isUppercase else { return nil }
        let word = String(String.UnicodeScalarView(scalars[span.start..<span.end]))
        guard word.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic }), word.count >= 3 else { return nil }
        // A label ("Answer: cotton", "Note: …") names nothing.
        if span.end < scalars.count, scalars[span.end] == ":" { return nil }
        let key = TermNormalizer.normalize(scalars[span.start..<span.end])
        if StopWords.english.contains(key) || Self.notNames.contains(key) || Self.kinship[key] != nil { return nil }
        if key.hasSuffix("ly") || key.hasSuffix("ing") || key.hasSuffix("ed") { return nil }
        return (word, key)
    }

    /// Words that open sentences without naming anyone.
    static let notNames: Set<String> = [
        "later", "eventually", "together", "afterward", "afterwards", "then", "there", "here", "still", "also", "yes", "instead",
        "meanwhile", "however", "today", "now", "once", "soon", "back", "years", "both", "each", "many", "most", "several",
        "everyone", "everybody", "nobody", "someone", "somebody", "people", "family", "friends", "neighbors", "children", "kids",
        "women", "men", "folks", "according", "storyteller", "story", "stories", "passage", "she", "he", "they", "mr", "mrs", "ms",
        "miss", "dr", "rev", "reverend", "god", "lord", "jesus", "christmas", "easter", "sunday", "monday", "tuesday", "wednesday",
        "thursday", "friday", "saturday", "january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december", "grandma", "grandpa", "mama", "daddy", "papa", "granny", "aunt", "uncle",
        "even", "after", "before", "during", "every", "sometimes", "often", "never", "always", "next", "first", "last",
        // Titles of the enslaver's household in the WPA narratives, as a retelling spells them.
        "master", "marster", "massa", "marse", "mistress", "missus", "mistis", "boss", "old", "ole", "elderly",
    ]

    /// Negation words, with the spellings transcripts of speech use ("nothin'", "didn'", "nebber"):
    /// a sentence rewritten in standard spelling keeps its count.
    static let negations: Set<String> = [
        "not", "no", "never", "nobody", "nothing", "none", "neither", "nor", "nowhere", "cannot", "aint", "ain't", "nary",
        "nothin", "nuthin", "nuffin", "nebber", "nebbah", "nevah", "ain", "didn", "doesn", "wasn", "weren", "couldn",
        "wouldn", "shouldn", "hadn", "hasn", "isn", "aren", "caint", "nohow", "noways", "doan", "dont", "didnt", "wasnt",
    ]

    /// The sentence with the output gate's masks ("[PHONE]") taken out: a masked value can be
    /// neither checked nor held against the sentence.
    static func withoutMasks(_ text: String) -> String {
        var text = text
        guard text.containsLiteral("[") else { return text }
        for type in PIIType.allCases { text = text.replacingLiteral("[\(type.rawValue)]", with: " ") }
        return text
    }

    /// Lower-case words, apostrophes kept ("didn't", "mother's" → "mother").
    static func words(_ text: String) -> [String] {
        text.lowercased().replacingLiteral("’", with: "'")
            .split { !($0.isLetter || $0 == "'") }
            .map { word in
                var word = word
                while word.first == "'" { word.removeFirst() }
                while word.last == "'" { word.removeLast() }
                if word.hasSuffix("'s") { word.removeLast(2) }
                return String(word)
            }
            .filter { !$0.isEmpty }
    }

    /// Kinship words, each with the words that name the same relation (a sentence may say
    /// "mother" where the passage says "Mama").
    static let kinship: [String: Set<String>] = {
        let groups: [[String]] = [
            ["mother", "mama", "mamma", "momma", "mom", "ma", "mothers", "mammy"],
            ["father", "daddy", "papa", "pa", "dad", "pappy", "fathers"],
            ["grandmother", "grandma", "granny", "grandmama", "nana", "grandmothers"],
            ["grandfather", "grandpa", "granddaddy", "grandpapa", "grandfathers"],
            ["aunt", "auntie", "aunty", "aunts"], ["uncle", "uncles"],
            ["brother", "brothers"], ["sister", "sisters"], ["cousin", "cousins"],
            ["son", "sons"], ["daughter", "daughters"], ["husband", "husbands"], ["wife", "wives"],
            ["niece", "nieces"], ["nephew", "nephews"], ["grandson", "grandsons"], ["granddaughter", "granddaughters"],
            ["stepmother"], ["stepfather"], ["widow", "widowed"], ["widower"],
        ]
        var table: [String: Set<String>] = [:]
        for group in groups {
            for word in group { table[word] = Set(group) }
        }
        return table
    }()

    /// Stems of the words an answer uses to attribute what it reports to the stories.
    static let framingTerms: Set<String> = Set(TextAnalyzer().terms(in: """
        according story stories storyteller passage passages transcript recording interview
        recalled recalls remembered remembers says said say mentioned mentions describes described
        tells told explains explained shares shared notes noted family's
        """))
}
