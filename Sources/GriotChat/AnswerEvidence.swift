import Foundation
import GriotProviders
import GriotSearch
import GriotText

/// How well each candidate sentence of the retrieved passages answers a question: its MiniLM
/// similarity to the question (so a paraphrase still finds it) plus the weight of the question's
/// key terms it holds (so a name or a rare word still counts), and for each passage the support
/// of its best sentence, which decides whether the passages answer the question at all.
///
/// ```swift
/// let evidence = AnswerEvidence(question: q, sentences: candidates, passages: passages, analyzer: analyzer, keyTerms: key, embed: embed)
/// let best = candidates.indices.max { evidence.score($0) < evidence.score($1) }
/// ```
struct AnswerEvidence {
    /// A passage whose key-term coverage is under half still speaks to the question when its
    /// support reaches this: just above the highest support of any no-content question of the
    /// tune half of evals/wpa.yaml (0.41) and of evals/demo.yaml (0.45), so that those stay
    /// refused and long paraphrases with well-matched sentences are answered.
    static let relevanceThreshold = 0.46
    /// Weights of the parts of a sentence's score.
    static let similarityWeight = 1.0
    static let termWeight = 0.5
    static let passageTermWeight = 0.2

    private(set) var scores: [Double]
    /// Per passage number: the best of its sentences' similarity and its key-term coverage.
    private var supports: [Int: Double] = [:]
    let hasVectors: Bool

    /// - Parameter names: the words of the people the question asks about. They tell which story
    ///   to read, not which of its sentences answers (in Susan Merritt's interview every sentence
    ///   is about her), so sentences are scored against the question without them.
    init(question: String, sentences: [ExtractiveResponder.Sentence], passages: [GroundingPassage], analyzer: TextAnalyzer,
         keyTerms allKeyTerms: [String], names: Set<String> = [], embed: (@Sendable ([String]) -> [[Float]])?) {
        let nameTerms = Set(analyzer.terms(in: names.joined(separator: " ")))
        let keyTerms = allKeyTerms.filter { !nameTerms.contains($0) }
        let asked = names.isEmpty ? question : question.split(separator: " ").filter { word in
            !names.contains(word.lowercased().trimmingCharacters(in: .punctuationCharacters.union(CharacterSet(charactersIn: "'’s"))))
                && !names.contains(String(word.lowercased().split(separator: "'").first ?? "").trimmingCharacters(in: .punctuationCharacters))
        }.joined(separator: " ")
        // Term weights: rarer among the candidate sentences counts for more.
        var frequency: [String: Int] = [:]
        for sentence in sentences { for term in sentence.terms where keyTerms.contains(term) { frequency[term, default: 0] += 1 } }
        let count = Double(max(sentences.count, 1))
        let weight = Dictionary(uniqueKeysWithValues: Set(keyTerms).map { ($0, log((count + 1) / (Double(frequency[$0] ?? 0) + 0.5))) })
        let total = weight.values.reduce(0, +)
        var passageCoverage: [Int: Double] = [:]
        for passage in passages {
            let terms = Set(analyzer.terms(in: ExtractiveResponder.described(passage)))
            passageCoverage[passage.number] = allKeyTerms.isEmpty ? 0 : Double(allKeyTerms.filter(terms.contains).count) / Double(Set(allKeyTerms).count)
        }
        var similarity = [Double](repeating: 0, count: sentences.count)
        var vectorsMade = false
        if let embed, !sentences.isEmpty {
            let vectors = embed([asked] + sentences.map(\.text))
            if vectors.count == sentences.count + 1, let asked = vectors.first, !asked.isEmpty {
                vectorsMade = true
                for index in sentences.indices { similarity[index] = Self.cosine(asked, vectors[index + 1]) }
            }
        }
        hasVectors = vectorsMade
        scores = sentences.indices.map { index in
            let sentence = sentences[index]
            let held = total > 0 ? sentence.terms.reduce(0.0) { $0 + (weight[$1] ?? 0) } / total : 0
            return Self.similarityWeight * similarity[index] + Self.termWeight * held
                + Self.passageTermWeight * (passageCoverage[sentence.passage.number] ?? 0)
        }
        for (index, sentence) in sentences.enumerated() {
            let number = sentence.passage.number
            let support = 0.7 * similarity[index] + 0.3 * (passageCoverage[number] ?? 0)
            supports[number] = max(supports[number] ?? -1, support)
        }
        for passage in passages where supports[passage.number] == nil { supports[passage.number] = 0.3 * (passageCoverage[passage.number] ?? 0) }
    }

    func score(_ index: Int) -> Double { scores[index] }

    /// The support of a passage: 0.7 × its best sentence's similarity to the question + 0.3 × the
    /// share of the question's key terms the passage (with its story's title, people, places) holds.
    func support(of passage: Int) -> Double { supports[passage] ?? 0 }

    static func cosine(_ a: [Float], _ b: [Float]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var dot: Float = 0, na: Float = 0, nb: Float = 0
        for index in a.indices {
            dot += a[index] * b[index]
            na += a[index] * a[index]
            nb += b[index] * b[index]
        }
        return na > 0 && nb > 0 ? Double(dot / (na.squareRoot() * nb.squareRoot())) : 0
    }
}
