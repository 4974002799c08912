import Foundation
import GriotEmbedding
import GriotSearch

/// The dense and hybrid half of the SciFact benchmark.
struct SciFactDense {
    let set: SciFactData
    let embedder: SentenceEmbedder

    /// Document vectors, cached under ~/.cache/griot/bench keyed by the model, since
    /// embedding the 5,183 documents takes minutes and they do not change between runs.
    func documentVectors() throws -> [[Float]] {
        let directory = URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache/griot/bench")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let name = embedder.modelID.replacingOccurrences(of: "/", with: "_")
        let cache = directory.appendingPathComponent("scifact-\(name)-\(set.documents.count).f32")
        let width = embedder.dimension
        if let data = FileManager.default.contents(atPath: cache.path), data.count == set.documents.count * width * 4 {
            let floats = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            return (0..<set.documents.count).map { Array(floats[$0 * width..<($0 + 1) * width]) }
        }
        let start = ContinuousClock.now
        let vectors = embedder.embed(set.documents.map { $0.title + " " + $0.text })
        print(String(format: "embedded %d documents in %.1f s (cached for later runs at %@)", vectors.count, (ContinuousClock.now - start).seconds, cache.path))
        var data = Data(capacity: vectors.count * width * 4)
        for vector in vectors { vector.withUnsafeBytes { data.append(contentsOf: $0) } }
        try data.write(to: cache)
        return vectors
    }

    func run(k1: Float, b: Float) throws {
        let vectors = try documentVectors()
        var index = PassageIndex(configuration: BM25Configuration(k1: k1, b: b, fieldWeights: [.text: 1]))
        index.addStories(zip(set.documents, vectors).map { document, vector in
            (StoryFacets(storyID: document.id, privacy: .public),
             [SearchDocument(id: document.id, storyID: document.id, fields: [.text: document.title + " " + document.text], vector: vector)])
        })
        let filter = SearchFilter(viewer: .anonymous)
        let queries = set.testQueries
        let queryVectors = embedder.embed(queries.map(\.1))
        var lexical: [String: [SearchHit]] = [:]
        var dense: [String: [SearchHit]] = [:]
        for ((id, text), vector) in zip(queries, queryVectors) {
            lexical[id] = index.search(text, filter: filter, k: 1000)
            dense[id] = index.searchDense(vector: vector, filter: filter, k: 1000)
        }
        func report(_ name: String, _ rankings: [String: [String]]) {
            let quality = set.evaluate(rankings)
            print(String(format: "%@: nDCG@10 %.4f  Recall@100 %.4f", name, quality.ndcg10, quality.recall100))
        }
        report("dense (MiniLM, int8 scan + float rescoring)", dense.mapValues { $0.prefix(101).map(\.documentID) })
        var overlap = 0
        var exactRankings: [String: [String]] = [:]
        for ((id, _), vector) in zip(queries, queryVectors) {
            let exact = index.searchDense(vector: vector, filter: filter, k: 101, exact: true).map(\.documentID)
            exactRankings[id] = exact
            overlap += Set(exact.prefix(10)).intersection(dense[id]!.prefix(10).map(\.documentID)).count
        }
        report("dense (MiniLM, exact float scan)", exactRankings)
        print(String(format: "int8 scan recall@10 against the exact scan: %.4f", Double(overlap) / Double(queries.count * 10)))
        for method in [FusionMethod.standard, .reciprocalRank(k: 20), .weighted(lexicalWeight: 0.3), .weighted(lexicalWeight: 0.4), .weighted(lexicalWeight: 0.5)] {
            for depth in [100, 1000] {
                var fused: [String: [String]] = [:]
                for (id, _) in queries {
                    fused[id] = HybridFusion.fuse(lexical: Array(lexical[id]!.prefix(depth)), dense: Array(dense[id]!.prefix(depth)), method: method, k: 101).map(\.documentID)
                }
                report("hybrid \(method), \(depth) per arm", fused)
            }
        }
    }
}
