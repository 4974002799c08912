import ArgumentParser
import Foundation
import GriotArchive
import GriotChat
import GriotEmbedding
import GriotEval
import GriotPrompts
import GriotSearch
import GriotStore

/// Latency of whole offline turns on the WPA corpus: every question of a golden-question file
/// asked through the chat pipeline (moderation, retrieval, the prompt, the extractive responder,
/// the output stages, the stored snapshot), first with the responder that scores sentences with
/// MiniLM and term weights, then, in the same run, with the peer: the same pipeline with the
/// responder scoring by words alone (what the embedder adds is the ratio).
struct ExtractiveTurnBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extractive-turn", abstract: "p50/p95 of offline chat turns on the WPA database, against the word-only responder.")

    @Option(help: "A database made by griot import-wpa.")
    var db = ".build/wpa.sqlite"

    @Option(help: "The golden questions whose questions are asked.")
    var questions = "evals/wpa.yaml"

    @Option(help: "The prompts folder.")
    var prompts = "prompts"

    @Option(help: "Rounds over all the questions (the first round warms the caches and is not counted).")
    var rounds = 3

    func run() async throws {
        guard FileManager.default.fileExists(atPath: db) else {
            throw ValidationError("no database at \(db); make it with griot import-wpa ../shared/data/wpa-narratives --db \(db) (or scripts/eval-wpa.sh)")
        }
        let suite = try EvalSuite.load(URL(fileURLWithPath: questions))
        let asked = suite.cases.filter { $0.assistant == "griot" && $0.conversation.isEmpty }.map(\.question)
        let embedder = try SentenceEmbedder()
        let archive = try StoryArchive(storage: try SQLiteStoryStore(path: db).storage(), embedder: embedder)
        let registry = try PromptRegistry.load(folder: URL(fileURLWithPath: prompts))
        print("extractive turns: \(asked.count) questions of \(questions), \(rounds - 1) counted rounds, \(try await archive.storyCount()) stories")
        var figures: [String: (p50: Double, p95: Double)] = [:]
        for (label, responder) in [("minilm+terms", ExtractiveResponder.scoring(with: embedder)), ("words only (peer)", ExtractiveResponder())] {
            let engine = ChatEngine(archive: archive, chats: try Storage.inMemory().chats, prompts: registry,
                                    provider: responder, counters: .bytePair, safety: .standard(embedder: embedder, environment: [:]))
            var latencies: [Double] = []
            for round in 0..<rounds {
                for question in asked {
                    let start = ContinuousClock.now
                    let turn = try await engine.startTurn(TurnRequest(message: question, viewer: Viewer(userID: "u-bench")))
                    for await _ in turn.events {}
                    await turn.finished()
                    let elapsed = ContinuousClock.now - start
                    if round > 0 { latencies.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15) }
                }
            }
            latencies.sort()
            let p50 = latencies[(latencies.count - 1) / 2]
            let p95 = latencies[min(latencies.count - 1, Int((Double(latencies.count) * 0.95).rounded(.up)) - 1)]
            figures[label] = (p50, p95)
            print(String(format: "  %-20@ p50 %7.1f ms   p95 %7.1f ms   (%d turns)", label as NSString, p50, p95, latencies.count))
        }
        if let ours = figures["minilm+terms"], let peer = figures["words only (peer)"] {
            print(String(format: "  ratio p95 %.2f, p50 %.2f (minilm+terms / words only)", ours.p95 / peer.p95, ours.p50 / peer.p50))
        }
    }
}
