import ArgumentParser
import Foundation
import GriotArchive
import GriotChat
import GriotEmbedding
import GriotEval
import GriotPrompts
import GriotSearch
import GriotStore
import GriotStories

/// The cost of encryption at rest (issue 38), with and without a master key in the same run,
/// each round in the other order: ingest of the demo corpus into a fresh SQLite file (every
/// story made family-only, so every story's text is sealed; once with the embedder, as
/// `griot ingest` runs, and once without it, the store's part alone), then offline turns
/// through the whole pipeline (each from a user of its own, so each turn also makes a data key).
struct EncryptionBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encryption", abstract: "Ingest and turn latency with a master key against without, in the same run.")

    @Option(help: "The stories ingested (a folder of story files).") var corpus = "corpus"
    @Option(help: "The golden questions asked as turns.") var questions = "evals/demo.yaml"
    @Option(help: "The prompts folder.") var prompts = "prompts"
    @Option(help: "Rounds (each: both modes, in alternating order; the first round warms caches and is not counted).") var rounds = 4

    struct Figures {
        var ingest: [Double] = []
        var storeIngest: [Double] = []
        var turns: [Double] = []
    }

    func run() async throws {
        let stories = StoryFiles.read([corpus]).stories.map { story -> Story in
            var story = story
            if story.privacy == .public {
                story.privacy = .familyOnly
                story.familyGroupIDs = ["fam-bench"]
            }
            return story
        }
        let asked = try EvalSuite.load(URL(fileURLWithPath: questions)).cases.filter { $0.assistant == "griot" && $0.conversation.isEmpty }.map(\.question)
        let embedder = try SentenceEmbedder()
        let registry = try PromptRegistry.load(folder: URL(fileURLWithPath: prompts))
        let keyring = try MasterKeyring.parse(MasterKeyring.newKeyLine(id: "mk-bench"), source: "the benchmark's key")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("griot-encryption-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: work) }
        print("encryption at rest: \(stories.count) stories (all non-public), \(asked.count) questions a round, \(rounds - 1) counted rounds")

        var figures: [Bool: Figures] = [true: Figures(), false: Figures()]
        for round in 0..<rounds {
            for encrypted in round % 2 == 0 ? [false, true] : [true, false] {
                let ring: MasterKeyring? = encrypted ? keyring : nil
                let folder = work.appendingPathComponent("r\(round)-\(encrypted ? "key" : "plain")")
                // The store's part alone: passages and their rows, no vectors.
                let bare = try await StorageLocation.sqlite(path: folder.appendingPathComponent("bare.sqlite").path).open(keyring: .some(ring))
                let storeIngest = try await Self.time { _ = try await StoryArchive(storage: bare).ingest(stories) }

                let storage = try await StorageLocation.sqlite(path: folder.appendingPathComponent("griot.sqlite").path).open(keyring: .some(ring))
                let archive = StoryArchive(storage: storage, embedder: embedder)
                let ingest = try await Self.time { _ = try await archive.ingest(stories) }
                let engine = ChatEngine(archive: archive, chats: storage.chats, prompts: registry, provider: ExtractiveResponder.scoring(with: embedder),
                                        counters: .bytePair, safety: .standard(embedder: embedder, environment: [:]))
                var turns: [Double] = []
                for (index, question) in asked.enumerated() {
                    let viewer = Viewer(userID: "u-bench-\(round)-\(index)", familyGroupIDs: ["fam-bench"])
                    turns.append(try await Self.time {
                        let turn = try await engine.startTurn(TurnRequest(message: question, viewer: viewer))
                        for await _ in turn.events {}
                        await turn.finished()
                    })
                }
                guard round > 0 else { continue }
                figures[encrypted]!.ingest.append(ingest)
                figures[encrypted]!.storeIngest.append(storeIngest)
                figures[encrypted]!.turns += turns
            }
        }
        let plain = figures[false]!, sealed = figures[true]!
        func line(_ label: String, _ ours: [Double], _ peer: [Double], _ percentile: Double) {
            let (o, p) = (Self.percentile(ours, percentile), Self.percentile(peer, percentile))
            print(String(format: "  %-34@ with key %8.1f ms   without %8.1f ms   ratio %.3f", label as NSString, o, p, o / p))
        }
        line("ingest, median of rounds", sealed.ingest, plain.ingest, 0.5)
        line("ingest without vectors, median", sealed.storeIngest, plain.storeIngest, 0.5)
        line("turn p50", sealed.turns, plain.turns, 0.5)
        line("turn p95", sealed.turns, plain.turns, 0.95)
    }

    static func time(_ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
    }
}
