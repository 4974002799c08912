import ArgumentParser
import Foundation
import GriotEmbedding

/// The CPU one chat's query embedding costs, embedded alone (the peer: how a turn embedded its
/// question before) and in one encoder pass with other turns' questions, as
/// `QueryEmbeddingBatcher` does under load. The questions are serve-load's, each with its own
/// marker, so no two are alike. Also checks that a batched vector equals the vector made alone.
struct QueryEmbeddingBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query-embedding",
        abstract: "CPU per query embedding, alone and in batches of concurrent questions; the batched vectors checked against the lone ones.")

    @Option(help: "Questions embedded per round.")
    var count = 480

    @Option(parsing: .upToNextOption, help: "Batch sizes to time.")
    var batches: [Int] = [2, 4, 8, 16, 32]

    @Option(help: "Rounds; the fastest of each counts.")
    var rounds = 3

    func run() throws {
        let embedder = try SentenceEmbedder()
        let questions = (0..<count).map { ServeLoadBenchmark.question($0, marker: PacedModelStub.markerPrefix + "q1x\(count)-\($0)") }
        let tokens = questions.map { embedder.tokenIDs($0).count }
        print("\(count) questions, \(Double(tokens.reduce(0, +)) / Double(count)) tokens each on average; OpenBLAS \((try? BLAS.shared().coreName) ?? "?"), one thread")
        _ = embedder.embed(Array(questions.prefix(8)))
        var alone: [[Float]] = []
        let aloneCPU = (0..<rounds).map { _ in Self.threadCPU { alone = questions.map { embedder.embed([$0])[0] } } }.min()!
        let perQuery = aloneCPU / Double(count) * 1000
        print(String(format: "alone (the peer): %.3f ms of CPU a question", perQuery))
        for size in batches where size >= 1 {
            var batched: [[Float]] = []
            let cpu = (0..<rounds).map { _ in
                Self.threadCPU {
                    batched = stride(from: 0, to: count, by: size).flatMap { start in
                        embedder.embed(Array(questions[start..<min(count, start + size)]), batchTokens: .max)
                    }
                }
            }.min()!
            var largest: Float = 0
            for (a, b) in zip(alone, batched) { for (x, y) in zip(a, b) { largest = max(largest, abs(x - y)) } }
            let ms = cpu / Double(count) * 1000
            print(String(format: "batches of %2d: %.3f ms of CPU a question, %.2fx the peer's; largest difference from the lone vector %.1e",
                         size, ms, ms / perQuery, largest))
        }
    }

    /// CPU seconds this thread spent in `work`.
    static func threadCPU(_ work: () -> Void) -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        work()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }
}
