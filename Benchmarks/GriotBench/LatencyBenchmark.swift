import ArgumentParser
import Foundation
import GriotEmbedding
import GriotSearch
import GriotStories
import GriotText

/// Latency of a whole hybrid query on one thread: query embedding, the BM25 arm, the vector
/// arm, fusion and the access filter, over synthetic passages at several scales.
struct LatencyBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency", abstract: "p50/p95 of a hybrid query at 5k and 100k synthetic passages, one thread.")

    @Option(help: "The WPA volumes, whose words give the synthetic passages a natural word distribution.")
    var wpa = "../shared/data/wpa-narratives"

    @Option(parsing: .upToNextOption, help: "Passage counts to measure.")
    var passages: [Int] = [5_000, 100_000]

    @Option(help: "Queries per scale.")
    var queries = 300

    @Option(help: "A Python with numpy, for the vector-scan peer (skipped without it).")
    var peerPython: String?

    @Option(help: "The peer script.")
    var peerScript = "Benchmarks/peers/numpy_scan.py"

    func run() async throws {
        let embedder = try SentenceEmbedder()
        let words = try wpaWords()
        var random = SplitMix(seed: 42)
        let questions = (0..<queries).map { _ -> String in
            let start = Int.random(in: 0..<(words.count - 8), using: &random)
            return "what did they say about " + words[start..<(start + Int.random(in: 2...6, using: &random))].joined(separator: " ")
        }
        for count in passages {
            var index = PassageIndex()
            let storySize = 10
            var batch: [(StoryFacets, [SearchDocument])] = []
            for story in 0..<(count / storySize) {
                let privacy = Privacy.allCases[story % 3]
                let facets = StoryFacets(storyID: "s\(story)", privacy: privacy, ownerUserID: "u\(story % 50)", familyGroupIDs: ["f\(story % 20)"])
                let documents = (0..<storySize).map { part -> SearchDocument in
                    let start = Int.random(in: 0..<(words.count - 200), using: &random)
                    var vector = (0..<embedder.dimension).map { _ in Float.random(in: -1...1, using: &random) }
                    let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
                    vector = vector.map { $0 / norm }
                    return SearchDocument(id: "s\(story)-\(part)", storyID: "s\(story)",
                                          fields: [.text: words[start..<(start + 180)].joined(separator: " ")], vector: vector)
                }
                batch.append((facets, documents))
            }
            index.addStories(batch)
            let filter = SearchFilter(viewer: Viewer(userID: "u7", familyGroupIDs: ["f3", "f11"]))
            var latencies: [Double] = []
            var parts = (embed: 0.0, lexical: 0.0, dense: 0.0)
            for (number, question) in questions.enumerated() {
                let start = ContinuousClock.now
                let vector = embedder.embed(question)
                let embedded = ContinuousClock.now
                let lexical = index.search(question, filter: filter, k: 100)
                let lexicalDone = ContinuousClock.now
                let dense = index.searchDense(vector: vector, filter: filter, k: 100)
                let denseDone = ContinuousClock.now
                let fused = HybridFusion.fuse(lexical: lexical, dense: dense, method: .weighted(lexicalWeight: 0.5), k: 10)
                let end = ContinuousClock.now
                precondition(!fused.isEmpty)
                if number >= 10 {  // the first few warm caches
                    latencies.append((end - start).seconds * 1000)
                    parts.embed += (embedded - start).seconds * 1000
                    parts.lexical += (lexicalDone - embedded).seconds * 1000
                    parts.dense += (denseDone - lexicalDone).seconds * 1000
                }
            }
            latencies.sort()
            let measured = Double(latencies.count)
            print(String(format: "%7d passages: hybrid query p50 %.2f ms  p95 %.2f ms  p99 %.2f ms  (mean: embed %.2f, bm25 %.2f, vectors %.2f ms)",
                         count, latencies[latencies.count / 2], latencies[latencies.count * 95 / 100], latencies[latencies.count * 99 / 100],
                         parts.embed / measured, parts.lexical / measured, parts.dense / measured))
            if let peerPython {
                let peer = try runPeer(peerPython, passages: count)
                print(String(format: "         numpy %@ exact scan + top 100 (no filter): mean %.2f ms, p95 %.2f ms; ratio numpy/ours (vector arm, mean): %.2f",
                             peer.version, peer.mean, peer.p95, peer.mean / (parts.dense / measured)))
            }
        }
    }

    private func runPeer(_ python: String, passages: Int) throws -> (version: String, mean: Double, p95: Double) {
        let result = try PeerProcess.object(python: python, script: peerScript,
                                            arguments: ["--passages", String(passages), "--queries", String(queries)])
        guard let mean = result["mean_ms"] as? Double, let p95 = result["p95_ms"] as? Double else {
            throw ValidationError("the numpy peer gave no timings; run it alone: \(python) \(peerScript)")
        }
        return (result["numpy"] as? String ?? "?", mean, p95)
    }

    private func wpaWords() throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: wpa).filter { $0.hasSuffix(".txt") }.sorted()
        guard !files.isEmpty else { throw ValidationError("no WPA volumes in \(wpa); pass --wpa ../shared/data/wpa-narratives") }
        return try files.flatMap { file in
            try String(contentsOfFile: wpa + "/" + file, encoding: .utf8).split(whereSeparator: { $0.isWhitespace }).map(String.init)
        }
    }
}

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
