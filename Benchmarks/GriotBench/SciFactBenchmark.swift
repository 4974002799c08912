import ArgumentParser
import Foundation
import GriotEmbedding
import GriotSearch
import GriotStories

@main
struct GriotBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "griot-bench",
        abstract: "Benchmarks that compare Griot with peers measured in the same run.",
        subcommands: [SciFactBenchmark.self, EmbeddingBenchmark.self, LatencyBenchmark.self, TokenBenchmark.self, ServeLoadBenchmark.self,
                      PIIBenchmark.self, ModerationBenchmark.self, GroundednessBenchmark.self, ClaimsBenchmark.self,
                      ExtractiveTurnBenchmark.self, LongReplyBenchmark.self, FairnessBenchmark.self, PDFExportBenchmark.self,
                      QueryEmbeddingBenchmark.self, V1OverheadBenchmark.self, DashboardBenchmark.self, EncryptionBenchmark.self, StorytellerBenchmark.self])
}

/// BM25 retrieval quality and speed on BEIR SciFact, with tantivy run on the same data.
struct SciFactBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scifact",
        abstract: "nDCG@10, Recall@100, build time and queries/s on BEIR SciFact; tantivy alongside.")

    @Option(help: "The BEIR SciFact folder (corpus.jsonl, queries.jsonl, qrels/test.tsv).")
    var data = "../shared/data/beir-scifact"

    @Option(help: "BM25 k1.")
    var k1: Float = 1.2

    @Option(help: "BM25 b.")
    var b: Float = 0.75

    @Option(help: "How many times the 300 queries are run for the speed figure.")
    var rounds = 30

    @Option(help: "A Python with the `tantivy` package, to run the peer (skip the peer when absent).")
    var peerPython: String?

    @Option(help: "The peer script.")
    var peerScript = "Benchmarks/peers/tantivy_scifact.py"

    @Flag(help: "Also the dense arm (all-MiniLM-L6-v2) and hybrid fusion.")
    var dense = false

    func run() async throws {
        let set = try SciFactData(folder: data)
        print("SciFact: \(set.documents.count) documents, \(set.qrels.count) test queries")

        let buildStart = ContinuousClock.now
        var index = PassageIndex(configuration: BM25Configuration(k1: k1, b: b, fieldWeights: [.text: 1]))
        index.addStories(set.documents.map { document in
            (StoryFacets(storyID: document.id, privacy: .public),
             [SearchDocument(id: document.id, storyID: document.id, fields: [.text: document.title + " " + document.text])])
        })
        let buildSeconds = (ContinuousClock.now - buildStart).seconds
        let filter = SearchFilter(viewer: .anonymous)
        let queries = set.testQueries

        var rankings: [String: [String]] = [:]
        for (id, text) in queries {
            rankings[id] = index.search(text, filter: filter, k: 101).map(\.documentID)
        }
        let quality = set.evaluate(rankings)

        // Speed: the whole query path (analysis, scoring, top-k, ids), one thread.
        var sink = 0
        let speedStart = ContinuousClock.now
        for _ in 0..<rounds {
            for (_, text) in queries { sink &+= index.search(text, filter: filter, k: 100).count }
        }
        let speedSeconds = (ContinuousClock.now - speedStart).seconds
        let queriesPerSecond = Double(rounds * queries.count) / speedSeconds
        precondition(sink > 0)

        print(String(format: "griot BM25 (k1 %.2f, b %.2f): nDCG@10 %.4f  Recall@100 %.4f  build %.2f s  %.0f queries/s (1 thread)",
                     k1, b, quality.ndcg10, quality.recall100, buildSeconds, queriesPerSecond))

        if dense { try SciFactDense(set: set, embedder: SentenceEmbedder()).run(k1: k1, b: b) }
        guard let peerPython else {
            print("peer skipped: pass --peer-python (scripts/bench-scifact.sh sets up tantivy in a venv)")
            return
        }
        let peer = try runPeer(python: peerPython)
        print(String(format: "tantivy %@ (en_stem): nDCG@10 %.4f  Recall@100 %.4f  build %.2f s  %.0f queries/s with stored ids, %.0f queries/s addresses only",
                     peer.version, peer.ndcg10, peer.recall100, peer.buildSeconds, peer.queriesPerSecond, peer.queriesPerSecondAddressesOnly))
        print(String(format: "ratio griot/tantivy queries/s: %.2f (vs addresses only: %.2f)",
                     queriesPerSecond / peer.queriesPerSecond, queriesPerSecond / peer.queriesPerSecondAddressesOnly))
    }

    private func runPeer(python: String) throws -> PeerResult {
        let bytes = try PeerProcess.run(python: python, script: peerScript, arguments: ["--data", data, "--rounds", String(rounds)])
        return try JSONDecoder().decode(PeerResult.self, from: bytes)
    }
}

struct PeerResult: Decodable {
    var version: String
    var ndcg10: Double
    var recall100: Double
    var buildSeconds: Double
    var queriesPerSecond: Double
    var queriesPerSecondAddressesOnly: Double

    enum CodingKeys: String, CodingKey {
        case version, ndcg10 = "ndcg@10", recall100 = "recall@100", buildSeconds = "build_seconds"
        case queriesPerSecond = "queries_per_second", queriesPerSecondAddressesOnly = "queries_per_second_addresses_only"
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
