import Foundation
import GriotText
import Synchronization

/// How well one sentence of an answer is supported by the passages the model was given.
public struct SentenceGroundedness: Codable, Sendable, Equatable {
    public var text: String
    /// Support times consistency, in [0, 1].
    public var score: Double
    /// The share of the sentence's content words (stemmed) found in its best passage.
    public var lexical: Double
    /// The best embedding cosine of the sentence against the best passage's sentences, rescaled
    /// to [0, 1]; nil when not consulted: without an embedder, when the words alone reach the
    /// threshold, or when a fact is missing (the score stays under the threshold regardless).
    public var semantic: Double?
    /// 1 when every name, number, date and place of the sentence is in some passage; each one
    /// that is not multiplies it by `GroundednessScorer.missingFactFactor`.
    public var consistency: Double
    /// Index into `passages` of the best support.
    public var passage: Int?
    /// False for sentences with nothing to check ("I hope this helps."); they do not count toward the answer.
    public var isClaim: Bool
    /// Names, numbers, dates and places found in no passage.
    public var unsupported: [String]

    public init(text: String, score: Double, lexical: Double, semantic: Double?, consistency: Double,
                passage: Int?, isClaim: Bool, unsupported: [String]) {
        self.text = text
        self.score = score
        self.lexical = lexical
        self.semantic = semantic
        self.consistency = consistency
        self.passage = passage
        self.isClaim = isClaim
        self.unsupported = unsupported
    }
}

/// How well a whole answer is supported; below `threshold` the turn carries the flag
/// "AI may be inaccurate".
public struct GroundednessScore: Codable, Sendable, Equatable {
    /// In [0, 1]; 1 when no sentence makes a claim.
    public var answer: Double
    public var sentences: [SentenceGroundedness]
    public static let threshold = 0.4
    public var isLowGroundedness: Bool { answer < Self.threshold }

    public init(answer: Double, sentences: [SentenceGroundedness]) {
        self.answer = answer
        self.sentences = sentences
    }
}

/// Scores an answer's groundedness in the passages given to the model, without a model call:
/// lexical overlap and embedding similarity say whether a passage supports a sentence; the
/// names, numbers, dates and places the sentence states must each be found in some passage.
///
/// ```swift
/// let embedder = try SentenceEmbedder()
/// let scorer = GroundednessScorer(embed: { embedder.embed($0) })
/// let result = scorer.score(answer: reply, passages: passages.map(\.text))   // result.isLowGroundedness
/// ```
public struct GroundednessScorer: Sendable {
    /// What one unsupported fact multiplies the score by: one invented year or name is enough
    /// to fall under the threshold from any support.
    public static let missingFactFactor = 0.35
    /// MiniLM cosines between two sentences: up to about `semanticFloor` for sentences on a
    /// like subject that say different things, `semanticCeiling` and above for a restatement.
    static let semanticFloor: Float = 0.40
    static let semanticCeiling: Float = 0.80
    /// At most this many claims per answer are compared by embedding.
    public static let mostEmbeddedClaims = 6

    /// The embedding's share when it speaks for a sentence in other words than the passage's.
    static let semanticWeight = 0.5

    private let embed: (@Sendable ([String]) -> [[Float]])?
    private let analyzer = TextAnalyzer()

    /// `embed` returns L2-normalised vectors, as `SentenceEmbedder.embed` does; without it the
    /// support is lexical only.
    public init(embed: (@Sendable ([String]) -> [[Float]])? = nil) {
        self.embed = embed
    }

    /// `cited` maps a sentence's index to the passage indices (0-based) of its `[n]` markers;
    /// without it the markers in `answer` are read. Cited passages are tried first. `known` is
    /// other text the answer may name facts from without inventing them (the question: "the
    /// stories do not cover Aunt Lil" names Aunt Lil because the asker did); it lends no
    /// support of its own.
    public func score(answer: String, passages: [String], cited: [Int: [Int]] = [:], known: String = "") -> GroundednessScore {
        let parsed = GroundedAnswer(answer)
        let citations = cited.isEmpty ? parsed.cited : cited
        var evidence = Evidence(passages: passages, analyzer: analyzer)
        if !known.isEmpty { evidence.factKeys.formUnion(GroundedFacts.keys(inPassage: known)) }
        let claims = parsed.sentences.map { Claim($0, analyzer: analyzer) }
        let preferred = claims.indices.map { (citations[$0] ?? []).filter { passages.indices.contains($0) } }
        let semantic = semanticSupport(claims, evidence, preferred: preferred)
        let sentences = claims.indices.map { judge(claims[$0], evidence, semantic: semantic[$0], preferred: preferred[$0]) }
        return GroundednessScore(answer: Self.aggregate(sentences), sentences: sentences)
    }

    public func score(sentence: String, passages: [String]) -> SentenceGroundedness {
        let evidence = Evidence(passages: passages, analyzer: analyzer)
        let claim = Claim(GroundedAnswer(sentence).sentences.joined(separator: " "), analyzer: analyzer)
        return judge(claim, evidence, semantic: semanticSupport([claim], evidence, preferred: [[]])[0], preferred: [])
    }

    /// The answer's score: the claims' mean (weighted by length) pulled toward the weakest
    /// claim, so one unsupported sentence among two shows and among ten is diluted; but never
    /// above a claim that states a name, number, date or place no passage has, since one
    /// invented fact makes the whole answer inaccurate however long it is.
    static func aggregate(_ sentences: [SentenceGroundedness]) -> Double {
        let claims = sentences.filter(\.isClaim)
        guard let weakest = claims.map(\.score).min() else { return 1 }
        var total = 0.0
        var weight = 0.0
        for claim in claims {
            let w = Double(max(1, min(20, WordTokenizer.wordCount(claim.text))))
            total += claim.score * w
            weight += w
        }
        let blended = 0.6 * (total / weight) + 0.4 * weakest
        let invented = claims.filter { !$0.unsupported.isEmpty }.map(\.score).min() ?? 1
        return min(1, max(0, min(blended, invented)))
    }

    // MARK: - One sentence

    private func judge(_ claim: Claim, _ evidence: Evidence, semantic: [Int: Double]?, preferred: [Int]) -> SentenceGroundedness {
        let unsupported = evidence.unsupported(claim)
        let consistency = pow(Self.missingFactFactor, Double(unsupported.count))
        guard claim.isClaim else {
            return SentenceGroundedness(text: claim.text, score: 1, lexical: 0, semantic: nil, consistency: consistency,
                                        passage: nil, isClaim: false, unsupported: [])
        }
        func support(_ index: Int) -> (support: Double, lexical: Double, semantic: Double?) {
            let lexical = claim.lexical(evidence.terms[index])
            guard let similarity = semantic?[index] else { return (lexical, lexical, nil) }
            // The embedding vouches for words the passage does not use; it never takes away
            // support the words already give.
            return (max(lexical, (1 - Self.semanticWeight) * lexical + Self.semanticWeight * similarity), lexical, similarity)
        }
        var best: (index: Int, support: Double, lexical: Double, semantic: Double?)?
        // A cited passage that supports the sentence is its evidence; otherwise any passage may.
        for candidates in [preferred, Array(evidence.terms.indices)] where !candidates.isEmpty {
            for index in candidates {
                let found = support(index)
                if best == nil || found.support > best!.support { best = (index, found.support, found.lexical, found.semantic) }
            }
            if let best, best.support * consistency >= GroundednessScore.threshold { break }
        }
        let supportScore = best?.support ?? 0
        return SentenceGroundedness(text: claim.text, score: min(1, max(0, supportScore * consistency)),
                                    lexical: best?.lexical ?? 0, semantic: best?.semantic, consistency: consistency,
                                    passage: best?.index, isClaim: true, unsupported: unsupported)
    }

    /// For each claim the words leave under the threshold (and whose facts are all found, since
    /// one missing fact keeps it under whatever the embedding says): the best cosine of the
    /// claim against the sentences of its candidate passages (the cited ones and the two with
    /// the most words in common), rescaled to [0, 1], by passage. Sentence against sentence,
    /// because a sentence's cosine against a whole passage is diluted by everything else the
    /// passage says. One embedding call per answer, none when the words suffice.
    private func semanticSupport(_ claims: [Claim], _ evidence: Evidence, preferred: [[Int]]) -> [[Int: Double]?] {
        var result = [[Int: Double]?](repeating: nil, count: claims.count)
        guard let embed, !evidence.terms.isEmpty else { return result }
        var candidates: [Int: [Int]] = [:]
        for (index, claim) in claims.enumerated() where claim.isClaim && evidence.unsupported(claim).isEmpty {
            let lexical = evidence.terms.map { claim.lexical($0) }
            guard let best = lexical.max(), best < GroundednessScore.threshold else { continue }
            let closest = lexical.indices.sorted { lexical[$0] != lexical[$1] ? lexical[$0] > lexical[$1] : $0 < $1 }.prefix(2)
            candidates[index] = Array(Set(preferred[index] + closest)).sorted()
        }
        guard !candidates.isEmpty else { return result }
        // A reply that strays from its passages altogether would embed every sentence of them
        // for every claim: the claims nearest to support are the ones the embedding can lift,
        // so only the best few are embedded (one answer's cost stays bounded under load).
        if candidates.count > Self.mostEmbeddedClaims {
            let nearest = candidates.keys.sorted { a, b in
                let (la, lb) = (evidence.terms.map { claims[a].lexical($0) }.max() ?? 0, evidence.terms.map { claims[b].lexical($0) }.max() ?? 0)
                return la != lb ? la > lb : a < b
            }.prefix(Self.mostEmbeddedClaims)
            candidates = candidates.filter { nearest.contains($0.key) }
        }
        let passagesUsed = Set(candidates.values.joined()).sorted()
        var texts = candidates.keys.sorted().map { claims[$0].text }
        var ranges: [Int: Range<Int>] = [:]
        for passage in passagesUsed {
            let sentences = evidence.sentences(passage)
            ranges[passage] = texts.count..<(texts.count + sentences.count)
            texts += sentences
        }
        let vectors = embed(texts)
        guard vectors.count == texts.count else { return result }
        for (offset, claim) in candidates.keys.sorted().enumerated() {
            var byPassage: [Int: Double] = [:]
            for passage in candidates[claim]! {
                let cosine = ranges[passage]!.map { Self.dot(vectors[offset], vectors[$0]) }.max() ?? 0
                byPassage[passage] = Double(min(1, max(0, (cosine - Self.semanticFloor) / (Self.semanticCeiling - Self.semanticFloor))))
            }
            result[claim] = byPassage
        }
        return result
    }

    private static func dot(_ a: [Float], _ b: [Float]?) -> Float {
        guard let b, a.count == b.count else { return 0 }
        var sum: Float = 0
        for i in a.indices { sum += a[i] * b[i] }
        return sum
    }
}

/// The passages as the scorer looks them up: content terms per passage, fact keys of all.
private struct Evidence {
    var passages: [String]
    var terms: [Set<String>]
    var factKeys: Set<String>

    init(passages: [String], analyzer: TextAnalyzer) {
        self.passages = passages
        let analyses = passages.map { PassageAnalyses.shared.analysis(of: $0, analyzer: analyzer) }
        terms = analyses.map(\.terms)
        factKeys = analyses.reduce(into: Set<String>()) { $0.formUnion($1.factKeys) }
    }
}

/// A passage's content terms and fact keys, kept by its text: the same passages come back in
/// turn after turn (a family's few stories, asked about by every member), and analysing them
/// again for every reply was a fifth of the groundedness review's time under load. Bounded:
/// past `limit` passages the cache starts over.
private final class PassageAnalyses: Sendable {
    struct Analysis: Sendable {
        var terms: Set<String>
        var factKeys: Set<String>
    }

    static let shared = PassageAnalyses()
    static let limit = 2_048

    private let entries = Mutex<[String: Analysis]>([:])

    /// Every scorer analyses with the default `TextAnalyzer`; another analyzer is not cached.
    func analysis(of passage: String, analyzer: TextAnalyzer) -> Analysis {
        let cacheable = analyzer.removesStopWords && analyzer.stems && !analyzer.removesOtherLanguagesStopWords
        if cacheable, let found = entries.withLock({ $0[passage] }) { return found }
        let made = Analysis(terms: Set(analyzer.terms(in: passage)), factKeys: GroundedFacts.keys(inPassage: passage))
        if cacheable {
            entries.withLock { entries in
                if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
                entries[passage] = made
            }
        }
        return made
    }
}

extension Evidence {

    /// The claim's names, numbers, dates and places that no passage has.
    func unsupported(_ claim: Claim) -> [String] {
        claim.facts.filter { fact in !fact.keys.contains { factKeys.contains($0) } }.map(\.text)
    }

    /// A passage's sentences of three words or more, as the embedding compares them.
    func sentences(_ passage: Int) -> [String] {
        let scalars = Array(passages[passage].unicodeScalars)
        return SentenceSplitter.sentences(in: scalars).compactMap { span in
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars[span.start..<span.end])
            let sentence = String(text)
            return WordTokenizer.wordCount(sentence) >= 3 ? sentence : nil
        }
    }
}

/// One answer sentence, analysed: its content terms (framing words such as "recalled" or
/// "according to the story" left out), its facts, and whether it claims anything at all.
private struct Claim {
    var text: String
    var terms: Set<String>
    var facts: [GroundedFacts.Mention]
    var isClaim: Bool

    init(_ text: String, analyzer: TextAnalyzer) {
        self.text = text
        terms = Set(analyzer.terms(in: text)).subtracting(Self.framing)
        // "these 3 stories", "4 of the family's stories": a count of the sources, not a fact of the past.
        let lowered = text.lowercased().replacingLiteral("’", with: "'")
        facts = GroundedFacts.mentions(in: text).filter { fact in
            let number = fact.text.lowercased()
            return !Self.sourceNouns.contains {
                lowered.containsLiteral("\(number) \($0)") || lowered.containsLiteral("\(number) of the \($0)") || lowered.containsLiteral("\(number) of the family's \($0)")
            }
        }
        let isQuestion = text.hasSuffix("?") || text.hasSuffix("\u{FF1F}") || text.hasSuffix("\u{061F}")
        // "I hope this helps." and "The stories don't say." have no content left to check; nor
        // has an answer saying the stories are silent, or suggesting a story to record, which is
        // what the prompts ask for when they are, nor a sentence about the stories themselves.
        isClaim = !Self.isAbstention(text) && (!facts.isEmpty || (!isQuestion && !terms.subtracting(Self.conversational).isEmpty))
    }

    static let sourceNouns = ["stories", "story", "passages", "recordings", "interviews", "sources"]

    static func isAbstention(_ text: String) -> Bool {
        let lowered = text.lowercased().replacingLiteral("’", with: "'")
        return abstentions.contains { lowered.containsLiteral($0) }
    }

    static let abstentions = [
        "do not cover", "don't cover", "does not cover", "doesn't cover", "do not mention", "don't mention", "does not mention",
        "doesn't mention", "do not say", "don't say", "does not say", "doesn't say", "rather not guess", "not guess",
        "consider recording", "could record", "might record", "record a story", "recording a story", "ask them about",
        "could ask", "might ask", "worth asking", "becomes the answer",
        // Sentences about the stories rather than the past: "Ida Mae comes up in 3 of the
        // family's stories that you can see. Here is what they tell, story by story."
        "stories that you can see", "stories you can see", "here is what", "here's what", "story by story", "comes up in",
    ]

    /// The share of the content terms that a passage has.
    func lexical(_ passage: Set<String>) -> Double {
        terms.isEmpty ? 0 : Double(terms.filter { passage.contains($0) }.count) / Double(terms.count)
    }

    /// Stems of the words an answer uses to attribute what it reports to the stories.
    static let framing: Set<String> = {
        let analyzer = TextAnalyzer()
        return Set(analyzer.terms(in: """
            according story stories storyteller passage passages transcript recording interview
            recalled recalls remembered remembers says said say mentioned mentions describes described
            tells told explains explained shares shared notes noted family's
            """))
    }()

    /// Stems of words that make an utterance about the conversation, not about the stories.
    static let conversational: Set<String> = {
        let analyzer = TextAnalyzer()
        return Set(analyzer.terms(in: """
            hope helps help glad happy sure know let like would want ask asking question questions
            anything else more information details detail clear unclear specify specific provided provide
            don't doesn't isn't aren't can't unfortunately sorry thank thanks great good wonderful interesting
            feel free certainly course indeed however answer find found mention
            """))
    }()
}
