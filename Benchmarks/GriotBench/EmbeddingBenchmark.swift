import ArgumentParser
import Foundation
import GriotEmbedding

/// Embedding throughput: the same SciFact documents through our embedder and through
/// sentence-transformers (torch, CPU) with the same thread count and max length, in one run.
struct EmbeddingBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed", abstract: "Documents per second, ours and torch's, on the same 1,000 SciFact documents.")

    @Option(help: "The BEIR SciFact folder.")
    var data = "../shared/data/beir-scifact"

    @Option(help: "How many documents.")
    var count = 1000

    @Option(help: "Threads for both (OpenBLAS here, torch.set_num_threads there).")
    var threads = 1

    @Option(help: "A Python with sentence-transformers and torch (scripts/reference-venv.sh); the peer is skipped without it.")
    var peerPython: String?

    @Option(help: "The peer script.")
    var peerScript = "Benchmarks/peers/torch_embed.py"

    func run() async throws {
        let documents = try SciFactData.jsonLines(data + "/corpus.jsonl").prefix(count).map {
            ($0["title"] as? String ?? "") + " " + ($0["text"] as? String ?? "")
        }
        let embedder = try SentenceEmbedder()
        let blas = try BLAS.shared()
        blas.setThreadCount(threads)
        _ = embedder.embed(Array(documents.prefix(32)))  // warm-up
        let tokens = documents.reduce(0) { $0 + embedder.tokenIDs($1).count }
        let start = ContinuousClock.now
        let vectors = embedder.embed(Array(documents))
        let seconds = (ContinuousClock.now - start).seconds
        let ours = Double(documents.count) / seconds
        print(String(format: "griot embedder (OpenBLAS %@, %d thread%@): %d docs, %d tokens, %.2f s, %.1f docs/s",
                     blas.coreName, threads, threads == 1 ? "" : "s", documents.count, tokens, seconds, ours))
        guard let peerPython else {
            print("peer skipped: pass --peer-python (scripts/bench-embed.sh sets up torch in a venv)")
            return
        }
        let peer = try PeerProcess.object(python: peerPython, script: peerScript, arguments: [
            "--data", data, "--count", String(count), "--threads", String(threads), "--model", SentenceEmbedder.defaultModelFolder.path,
        ])
        guard let theirs = peer["docs_per_second"] as? Double else {
            throw ValidationError("the torch peer gave no docs_per_second; run it alone: \(peerPython) \(peerScript)")
        }
        let first = (peer["first"] as? [Double]) ?? []
        print(String(format: "sentence-transformers (torch %@, %d thread%@): %.1f docs/s", peer["torch"] as? String ?? "?", threads, threads == 1 ? "" : "s", theirs))
        print(String(format: "ratio ours/torch: %.2f   (first vector, ours %@ vs torch %@)", ours / theirs,
                     vectors[0].prefix(4).map { String(format: "%.5f", $0) }.joined(separator: " "),
                     first.map { String(format: "%.5f", $0) }.joined(separator: " ")))
    }
}
