/// How the lexical and dense rankings become one.
public enum FusionMethod: Sendable, Hashable, CustomStringConvertible {
    /// Reciprocal Rank Fusion: Σ 1 / (k + rank) over the arms that found the passage.
    case reciprocalRank(k: Float)
    /// Each arm's scores min-max normalised over its candidates, then
    /// `lexicalWeight * lexical + (1 - lexicalWeight) * dense` (a passage an arm missed gets 0 there).
    case weighted(lexicalWeight: Float)

    public static let standard = FusionMethod.reciprocalRank(k: 60)

    public var description: String {
        switch self {
        case .reciprocalRank(let k): return "rrf(k=\(k))"
        case .weighted(let weight): return "weighted(lexical=\(weight))"
        }
    }
}

/// A passage's place in one arm's ranking.
public struct ArmRank: Sendable, Hashable {
    /// 1-based.
    public var rank: Int
    public var score: Float
}

/// A fused result, with where it stood in each arm (nil: that arm did not return it).
public struct FusedHit: Sendable, Hashable {
    public var documentID: String
    public var storyID: String
    public var score: Float
    public var lexical: ArmRank?
    public var dense: ArmRank?
}

/// Fuses the two arms' rankings.
///
/// ```swift
/// let lexical = index.search(query, filter: filter, k: 100)
/// let dense = index.searchDense(vector: queryVector, filter: filter, k: 100)
/// let top = HybridFusion.fuse(lexical: lexical, dense: dense, method: .standard, k: 10)
/// ```
public enum HybridFusion {
    public static func fuse(lexical: [SearchHit], dense: [SearchHit], method: FusionMethod, k: Int) -> [FusedHit] {
        var fused: [String: FusedHit] = [:]
        func add(_ hits: [SearchHit], isLexical: Bool) {
            for (position, hit) in hits.enumerated() {
                let rank = ArmRank(rank: position + 1, score: hit.score)
                var entry = fused[hit.documentID] ?? FusedHit(documentID: hit.documentID, storyID: hit.storyID, score: 0)
                if isLexical { entry.lexical = rank } else { entry.dense = rank }
                fused[hit.documentID] = entry
            }
        }
        add(lexical, isLexical: true)
        add(dense, isLexical: false)
        let lexicalRange = range(lexical)
        let denseRange = range(dense)
        var results = Array(fused.values)
        for index in results.indices {
            let entry = results[index]
            switch method {
            case .reciprocalRank(let k):
                results[index].score = [entry.lexical, entry.dense].compactMap { $0 }.reduce(0) { $0 + 1 / (k + Float($1.rank)) }
            case .weighted(let weight):
                let lexicalScore = entry.lexical.map { normalized($0.score, lexicalRange) } ?? 0
                let denseScore = entry.dense.map { normalized($0.score, denseRange) } ?? 0
                results[index].score = weight * lexicalScore + (1 - weight) * denseScore
            }
        }
        results.sort { $0.score > $1.score || ($0.score == $1.score && $0.documentID < $1.documentID) }
        return Array(results.prefix(k))
    }

    /// One arm's hits as fused results, its own scores kept (for single-arm searches).
    public static func single(_ hits: [SearchHit], lexical: Bool, k: Int) -> [FusedHit] {
        hits.prefix(k).enumerated().map { position, hit in
            let rank = ArmRank(rank: position + 1, score: hit.score)
            return FusedHit(documentID: hit.documentID, storyID: hit.storyID, score: hit.score,
                            lexical: lexical ? rank : nil, dense: lexical ? nil : rank)
        }
    }

    private static func range(_ hits: [SearchHit]) -> ClosedRange<Float> {
        guard let first = hits.first, let last = hits.last else { return 0...1 }
        return last.score...first.score
    }

    private static func normalized(_ score: Float, _ range: ClosedRange<Float>) -> Float {
        let width = range.upperBound - range.lowerBound
        return width > 0 ? (score - range.lowerBound) / width : 1
    }
}
