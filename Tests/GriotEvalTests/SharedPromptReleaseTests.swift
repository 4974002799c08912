import Foundation
import GriotArchive
import GriotChat
@testable import GriotEval
import GriotPrompts
import GriotProviders
import GriotSearch
import GriotStore
import Testing

/// A version promoted through one node is production on every node of the database: the label
/// moves in the database (`PromptReleaseStore`), which every node reads within a second.
@Suite struct SharedPromptReleaseTests {
    /// A copy of the shipped prompts with griot v2: v1 with one retrieval setting changed.
    private func promptsWithSecondVersion(changing text: String = "  k: 5\n") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-releases-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("prompts"), to: folder)
        let first = try String(contentsOf: folder.appendingPathComponent("griot/1.md"), encoding: .utf8)
        try first.replacingOccurrences(of: "version: 1\n", with: "version: 2\n").replacingOccurrences(of: "  k: 6\n", with: text)
            .write(to: folder.appendingPathComponent("griot/2.md"), atomically: true, encoding: .utf8)
        return folder
    }

    private func promptVersion(_ engine: ChatEngine) async throws -> Int? {
        let turn = try await engine.startTurn(TurnRequest(message: "Who was Octavia Batiste?", viewer: .anonymous))
        var version: Int?
        for await event in turn.events { if case .meta(let meta) = event { version = meta.promptVersion } }
        return version
    }

    @Test func aVersionPromotedThroughOneNodeIsProductionOnTheOthers() async throws {
        let prompts = try promptsWithSecondVersion()
        defer { try? FileManager.default.removeItem(at: prompts) }
        let storage = try Storage.inMemory()
        let registry = try PromptRegistry.load(folder: prompts)
        let nodes = (0..<3).map { _ in
            ChatEngine(archive: StoryArchive(storage: storage), chats: storage.chats, prompts: registry, provider: ExtractiveResponder(), counters: .bytePair)
        }
        for node in nodes { #expect(try await promptVersion(node) == 1) }

        // What `griot prompts promote --database …` does through node 0 once the gates pass.
        let v2 = try #require(registry.assistants["griot"]?.versions[2])
        try await storage.chats.setPromptLabel(assistant: "griot", label: "production",
                                               release: PromptRelease(version: 2, textHash: v2.textHash), at: Date())
        try await Task.sleep(for: .milliseconds(1_100))
        for node in nodes { #expect(try await promptVersion(node) == 2, "production is v2 on every node within a second") }
    }

    @Test func aNodeWhoseFileDiffersRefusesRatherThanAnswerWithAnotherPrompt() async throws {
        let shipped = try promptsWithSecondVersion()
        let stale = try promptsWithSecondVersion(changing: "  k: 4\n")
        defer { for folder in [shipped, stale] { try? FileManager.default.removeItem(at: folder) } }
        let storage = try Storage.inMemory()
        let v2 = try #require(try PromptRegistry.load(folder: shipped).assistants["griot"]?.versions[2])
        try await storage.chats.setPromptLabel(assistant: "griot", label: "production",
                                               release: PromptRelease(version: 2, textHash: v2.textHash), at: Date())
        let node = ChatEngine(archive: StoryArchive(storage: storage), chats: storage.chats, prompts: try PromptRegistry.load(folder: stale),
                              provider: ExtractiveResponder(), counters: .bytePair)
        let error = await #expect(throws: ChatError.self) { try await node.startTurn(TurnRequest(message: "Who was Octavia?", viewer: .anonymous)) }
        #expect(error?.description.contains("deploy the same prompts/ on every node") == true)
    }

    @Test func aPromotionMovesTheLabelAndLogsTheAttemptInTheDatabase() async throws {
        let prompts = try promptsWithSecondVersion()
        defer { try? FileManager.default.removeItem(at: prompts) }
        let storage = try Storage.inMemory()
        let registry = try PromptRegistry.load(folder: prompts)
        let suite = try EvalSuite.parse("""
            name: release-check
            gates: {route_correct: 1.0}
            cases:
              - {id: q, question: Who was Octavia Batiste?, expect: {route: answer}}
            """, file: "release-check.yaml")
        let outcome = try await PromptPromotion(assistant: "griot", version: 2, by: "ops@example.org")
            .run(suites: [suite], registry: registry, releases: storage.chats) { _ in
                await ChatEngine(archive: demoArchive, chats: try Storage.inMemory().chats, prompts: registry,
                                 provider: ExtractiveResponder(), counters: .bytePair)
            }
        #expect(outcome.record.promoted)
        #expect(try await storage.chats.promptLabels()["griot"]?["production"]?.version == 2)
        let log = try await storage.chats.promotions(assistant: "griot")
        #expect(log.count == 1 && log[0].contains("\"promoted\":true"))
    }
}
