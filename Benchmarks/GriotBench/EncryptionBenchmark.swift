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
    @Option(help: "Rounds (each: all three arms, in rotating order; the first round warms caches and is not counted).") var rounds = 4

    /// The three arms of each round: two without a key (the A/A control, which shows what the
    /// same code measures against itself) and one with a key.
    enum Arm: String, CaseIterable { case plainA = "no key (A)", plainB = "no key (B)", key = "with key" }

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
        print("encryption at rest: \(stories.count) stories (all non-public), \(asked.count) questions a round, \(rounds - 1) counted rounds, arms interleaved per question")

        var figures: [Arm: Figures] = [:]
        for round in 0..<rounds {
            // Rotate the arms' order each round, so none is always first or last.
            let order = (0..<Arm.allCases.count).map { Arm.allCases[($0 + round) % Arm.allCases.count] }
            var engines: [Arm: ChatEngine] = [:]
            var measured: [Arm: Figures] = [:]
            for arm in order {
                let ring: MasterKeyring? = arm == .key ? keyring : nil
                let folder = work.appendingPathComponent("r\(round)-\(arm)")
                // The store's part alone: passages and their rows, no vectors.
                let bare = try await StorageLocation.sqlite(path: folder.appendingPathComponent("bare.sqlite").path).open(keyring: .some(ring))
                let storeIngest = try await Self.time { _ = try await StoryArchive(storage: bare).ingest(stories) }
                let storage = try await StorageLocation.sqlite(path: folder.appendingPathComponent("griot.sqlite").path).open(keyring: .some(ring))
                let archive = StoryArchive(storage: storage, embedder: embedder)
                let ingest = try await Self.time { _ = try await archive.ingest(stories) }
                engines[arm] = ChatEngine(archive: archive, chats: storage.chats, prompts: registry, provider: ExtractiveResponder.scoring(with: embedder),
                                          counters: .bytePair, safety: .standard(embedder: embedder, environment: [:]))
                measured[arm, default: Figures()].ingest.append(ingest)
                measured[arm, default: Figures()].storeIngest.append(storeIngest)
            }
            // Each question is asked of the three arms back to back, so a slow moment of the
            // machine falls on all three alike.
            for (index, question) in asked.enumerated() {
                for arm in order {
                    let viewer = Viewer(userID: "u-bench-\(round)-\(arm)-\(index)", familyGroupIDs: ["fam-bench"])
                    let engine = engines[arm]!
                    measured[arm, default: Figures()].turns.append(try await Self.time {
                        let turn = try await engine.startTurn(TurnRequest(message: question, viewer: viewer))
                        for await _ in turn.events {}
                        await turn.finished()
                    })
                }
            }
            guard round > 0 else { continue }
            for (arm, figure) in measured {
                figures[arm, default: Figures()].ingest += figure.ingest
                figures[arm, default: Figures()].storeIngest += figure.storeIngest
                figures[arm, default: Figures()].turns += figure.turns
            }
        }
        let a = figures[.plainA]!, b = figures[.plainB]!, key = figures[.key]!
        func line(_ label: String, _ pick: (Figures) -> [Double], _ percentile: Double) {
            let (k, pa, pb) = (Self.percentile(pick(key), percentile), Self.percentile(pick(a), percentile), Self.percentile(pick(b), percentile))
            let plain = Self.percentile(pick(a) + pick(b), percentile)
            print(String(format: "  %-32@ key %8.1f ms  no key %8.1f ms  key/no key %.3f   A/A: %8.1f / %8.1f ms = %.3f",
                         label as NSString, k, plain, k / plain, pa, pb, pa / pb))
        }
        line("ingest, median of rounds", \.ingest, 0.5)
        line("ingest without vectors, median", \.storeIngest, 0.5)
        line("turn p50", \.turns, 0.5)
        line("turn p95", \.turns, 0.95)
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
