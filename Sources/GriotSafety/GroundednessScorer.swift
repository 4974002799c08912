import Foundation
import GriotText

/// How well one sentence of an answer is supported by the passages the model was given.
public struct SentenceGroundedness: Codable, Sendable, Equatable {
    public var text: String
    /// Support times consistency, in [0, 1].
    public var score: Double
    /// The share of the sentence's content words (stemmed) found in its best passage.
    public var lexical: Double
    /// The best passage's embedding cosine, rescaled to [0, 1]; nil without an embedder, and
    /// when every content word is in a passage already (the embedding could only agree).
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
    /// Cosines of MiniLM between a sentence and a ~150-word passage: up to about
    /// `semanticFloor` for another story's sentence on a like subject (its 90th percentile in the
    /// perturbation set is 0.38), `semanticCeiling` and above for a close restatement.
    static let semanticFloor: Float = 0.30
    static let semanticCeiling: Float = 0.70
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
    /// without it the markers in `answer` are read. Cited passages are tried first.
    public func score(answer: String, passages: [String], cited: [Int: [Int]] = [:]) -> GroundednessScore {
        let parsed = GroundedAnswer(answer)
        let citations = cited.isEmpty ? parsed.cited : cited
        let evidence = Evidence(passages: passages, analyzer: analyzer)
        let claims = parsed.sentences.map { Claim($0, analyzer: analyzer) }
        let vectors = embedAll(passages: passages, claims: claims, evidence: evidence)
        var sentences: [SentenceGroundedness] = []
        for (index, claim) in claims.enumerated() {
            let preferred = (citations[index] ?? []).filter { passages.indices.contains($0) }
            sentences.append(judge(claim, evidence, passageVectors: vectors?.passages,
                                   sentenceVector: vectors?.sentences[index], preferred: preferred))
        }
        return GroundednessScore(answer: Self.aggregate(sentences), sentences: sentences)
    }

    public func score(sentence: String, passages: [String]) -> SentenceGroundedness {
        let evidence = Evidence(passages: passages, analyzer: analyzer)
        let claim = Claim(GroundedAnswer(sentence).sentences.joined(separator: " "), analyzer: analyzer)
        let vectors = embedAll(passages: passages, claims: [claim], evidence: evidence)
        return judge(claim, evidence, passageVectors: vectors?.passages, sentenceVector: vectors?.sentences[0], preferred: [])
    }

    /// The answer's score: the claims' mean (weighted by their content words) pulled toward
    /// the weakest claim, so one invented sentence among two shows, among ten it is diluted.
    static func aggregate(_ sentences: [SentenceGroundedness]) -> Double {
        let claims = sentences.filter(\.isClaim)
        guard let weakest = claims.map(\.score).min() else { return 1 }
        var total = 0.0
        var weight = 0.0
        for claim in claims {
            let w = Double(max(1, min(20, claim.text.split(separator: " ").count)))
            total += claim.score * w
            weight += w
        }
        return min(1, max(0, 0.6 * (total / weight) + 0.4 * weakest))
    }

    // MARK: - One sentence

    private func judge(_ claim: Claim, _ evidence: Evidence, passageVectors: [[Float]]?, sentenceVector: [Float]?,
                       preferred: [Int]) -> SentenceGroundedness {
        let unsupported = claim.facts.filter { fact in !fact.keys.contains { evidence.factKeys.contains($0) } }.map(\.text)
        let consistency = pow(Self.missingFactFactor, Double(unsupported.count))
        guard claim.isClaim else {
            return SentenceGroundedness(text: claim.text, score: 1, lexical: 0, semantic: nil, consistency: consistency,
                                        passage: nil, isClaim: false, unsupported: [])
        }
        func support(_ index: Int) -> (support: Double, lexical: Double, semantic: Double?) {
            let lexical = claim.lexical(evidence.terms[index])
            guard let sentenceVector, let passageVectors, passageVectors.indices.contains(index) else {
                return (lexical, lexical, nil)
            }
            let cosine = Self.dot(sentenceVector, passageVectors[index])
            let semantic = Double(min(1, max(0, (cosine - Self.semanticFloor) / (Self.semanticCeiling - Self.semanticFloor))))
            // The embedding can vouch for words the passage does not use; it cannot take away
            // support the words already have (a cosine against a whole passage is diluted).
            return (max(lexical, (1 - Self.semanticWeight) * lexical + Self.semanticWeight * semantic), lexical, semantic)
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

    /// One call for the passages and the sentences the words alone do not fully support; none
    /// when every sentence's content words are all in some passage.
    private func embedAll(passages: [String], claims: [Claim], evidence: Evidence) -> (passages: [[Float]], sentences: [[Float]?])? {
        guard let embed, !passages.isEmpty else { return nil }
        let checked = claims.indices.filter { index in
            claims[index].isClaim && !evidence.terms.contains { claims[index].lexical($0) >= 1 }
        }
        guard !checked.isEmpty else { return nil }
        let vectors = embed(passages + checked.map { claims[$0].text })
        guard vectors.count == passages.count + checked.count else { return nil }
        var sentences = [[Float]?](repeating: nil, count: claims.count)
        for (offset, index) in checked.enumerated() { sentences[index] = vectors[passages.count + offset] }
        return (Array(vectors[..<passages.count]), sentences)
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
    var terms: [Set<String>]
    var factKeys: Set<String>

    init(passages: [String], analyzer: TextAnalyzer) {
        terms = passages.map { Set(analyzer.terms(in: $0)) }
        factKeys = passages.reduce(into: Set<String>()) { $0.formUnion(GroundedFacts.keys(inPassage: $1)) }
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
        facts = GroundedFacts.mentions(in: text)
        let isQuestion = text.hasSuffix("?")
        // "I hope this helps." and "The stories don't say." have no content left to check.
        isClaim = !facts.isEmpty || (!isQuestion && !terms.subtracting(Self.conversational).isEmpty)
    }

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
