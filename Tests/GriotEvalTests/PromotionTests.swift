import Foundation
import GriotChat
@testable import GriotEval
import GriotPrompts
import GriotProviders
import GriotStore
import GriotTestSupport
import Testing

/// Eval-gated releases: `production` moves only when every gate passes, and every attempt is recorded.
@Suite struct PromotionTests {
    let suiteText = """
        name: release-check
        gates: {hit_at_5: 1.0, must_contain_pass: 1.0, route_correct: 1.0, privacy_violations: 0}
        cases:
          - id: place-kelly-ingram-park
            kind: place
            question: What happened in Kelly Ingram Park?
            expect: {stories: [odom-childrens-crusade-kelly-ingram-park], must_contain: [Kelly Ingram], citation_required: true}
          - id: gumbo-is-family-only
            kind: privacy
            question: Tell me about Octavia's Sunday gumbo with filé
            expect: {forbidden_stories: [batiste-octavia-sunday-gumbo-file]}
          - id: coach-only
            kind: coaching
            assistant: coach
            question: I keep putting off my morning walk.
            expect: {route: answer}
        """

    /// Runs a promotion judged by `provider` (default: the offline responder).
    private func run(_ version: Int, prompts: URL, at time: Date = Date(), provider: any ChatProvider = ExtractiveResponder(),
                     allowOffline: Bool = false) async throws -> PromptPromotion.Outcome {
        let registry = try PromptRegistry.load(folder: prompts)
        let suite = try EvalSuite.parse(suiteText, file: "release-check.yaml")
        let other = try EvalSuite.parse("name: coach-only\ngates: {route_correct: 1.0}\ncases:\n  - {id: c, assistant: coach, question: Hello there}\n", file: "coach.yaml")
        let promotion = PromptPromotion(assistant: "griot", version: version, by: "ops@example.org", allowOffline: allowOffline, now: { time })
        #expect(promotion.relevant([suite, other]).map(\.name) == ["release-check"])
        return try await promotion.run(suites: [suite, other], registry: registry) { _ in
            await ChatEngine(archive: demoArchive, chats: try await TestDatabase.storage().chats, prompts: registry,
                       provider: provider, counters: .bytePair)
        }
    }

    /// Writes griot version `version`: version 1 with its system section replaced by `system`.
    private func writeVersion(_ version: Int, system: String, in prompts: URL) throws {
        let first = try String(contentsOf: prompts.appendingPathComponent("griot/1.md"), encoding: .utf8)
        let start = try #require(first.range(of: "## system\n"))
        let end = try #require(first.range(of: "\n## command: quiz"))
        let text = first[..<start.upperBound] + system + "\n" + first[end.lowerBound...]
        try text.replacingOccurrences(of: "version: 1\n", with: "version: \(version)\n")
            .write(to: prompts.appendingPathComponent("griot/\(version).md"), atomically: true, encoding: .utf8)
    }

    @Test func aVersionThatBreaksAGateIsRefusedAndAPassingOneIsPromoted() async throws {
        let prompts = try promptsWithSecondVersion()
        defer { try? FileManager.default.removeItem(at: prompts) }
        // Version 3 retrieves nothing: no story can be found or cited.
        let first = try String(contentsOf: prompts.appendingPathComponent("griot/1.md"), encoding: .utf8)
        try first.replacingOccurrences(of: "version: 1\n", with: "version: 3\n").replacingOccurrences(of: "  k: 6\n", with: "  k: 0\n")
            .write(to: prompts.appendingPathComponent("griot/3.md"), atomically: true, encoding: .utf8)

        let refused = try await run(3, prompts: prompts, at: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(!refused.promoted)
        #expect(refused.record.failedGates.contains { $0.hasPrefix("release-check: hit_at_5 0.000") })
        #expect(refused.record.previous == 1)
        var registry = try PromptRegistry.load(folder: prompts)
        #expect(registry.assistants["griot"]?.labels["production"] == 1)
        #expect(registry.assistants["griot"]?.published[3] == nil)

        // Version 2 rewords an instruction as well: the offline responder judges it only when allowed to.
        let accepted = try await run(2, prompts: prompts, at: Date(timeIntervalSince1970: 1_800_000_600), allowOffline: true)
        #expect(accepted.promoted, "\(accepted.record.failedGates)")
        #expect(accepted.record.allowOffline == true)
        #expect(accepted.record.changedInstructions == ["system"])
        #expect(accepted.record.judgedBy == "griot-extractive griot-extractive-1")
        #expect(accepted.record.failedGates.isEmpty)
        #expect(accepted.record.metrics["release-check"]?["hit_at_5"] == 1)
        registry = try PromptRegistry.load(folder: prompts)
        #expect(registry.assistants["griot"]?.labels["production"] == 2)
        #expect(registry.assistants["griot"]?.published[2] == registry.assistants["griot"]?.versions[2]?.textHash)
        #expect(try registry.template(for: "griot").version == 2)

        // Both attempts are on record: who, when, the outcome and the metrics.
        let history = try PromptPromotion.history(assistant: "griot", prompts: prompts)
        #expect(history.map(\.version) == [3, 2])
        #expect(history.map(\.promoted) == [false, true])
        #expect(history.allSatisfy { $0.by == "ops@example.org" })
        #expect(history[1].at == Date(timeIntervalSince1970: 1_800_000_600))
        #expect(history[1].previous == 1)
        #expect(history[1].casesPassed == history[1].cases)
        #expect(history[0].allowOffline == nil, "v3 changes settings only: the offline responder may judge it")
    }

    /// The release of a prompt is judged by something that reads it: the offline responder
    /// refuses to judge changed instructions, and a model that follows the system prompt is
    /// refused by the gates for "I don't know" and promoted for a good version.
    @Test func aPromptThatSaysOnlyIDontKnowIsRefusedByAReaderOfThePrompt() async throws {
        let prompts = try promptsWithSecondVersion()
        defer { try? FileManager.default.removeItem(at: prompts) }
        try writeVersion(4, system: "Whatever you are asked, reply with exactly: I don't know.", in: prompts)

        let offline = try await run(4, prompts: prompts)
        #expect(!offline.promoted)
        #expect(offline.reports.isEmpty, "no eval ran: the offline responder cannot read what v4 says")
        let refusal = try #require(offline.record.refusal)
        #expect(refusal.contains("changes the instructions of production v1 (system)"))
        #expect(refusal.contains("griot-extractive, which does not read instructions"))
        #expect(refusal.contains("--allow-offline"))

        try await StubChatServer.with(answering: InstructionFollowingModel.reply) { server in
            let model = try stubModel(server, model: InstructionFollowingModel.model)
            let refused = try await run(4, prompts: prompts, provider: model)
            #expect(!refused.promoted)
            #expect(refused.record.refusal == nil)
            #expect(refused.record.judgedBy == "openai \(InstructionFollowingModel.model)")
            #expect(refused.record.failedGates.contains { $0.hasPrefix("release-check: must_contain_pass 0.000") }, "\(refused.record.failedGates)")
            let answered = try #require(refused.reports.first?.results.first)
            #expect(answered.text == "I don't know.")

            let good = try await run(2, prompts: prompts, provider: model)
            #expect(good.promoted, "\(good.record.failedGates) \(good.reports.flatMap(\.results).map(\.text))")
            #expect(good.record.allowOffline == nil)
            // The model read both versions' system prompts.
            let systems = server.requests.compactMap { (($0.json["messages"] as? [[String: Any]])?.first?["content"] as? String) }
            #expect(systems.contains { $0.contains("reply with exactly: I don't know.") })
            #expect(systems.contains { $0.contains("Keep answers under 120 words") })
        }
        let history = try PromptPromotion.history(assistant: "griot", prompts: prompts)
        #expect(history.map(\.promoted) == [false, false, true])
        #expect(history[0].refusal != nil && history[1].refusal == nil)
        #expect(try PromptRegistry.load(folder: prompts).assistants["griot"]?.labels["production"] == 2)
    }

    @Test func aReleaseMustBeMeasured() async throws {
        let registry = try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts"))
        let coachOnly = try EvalSuite.parse("name: c\ngates: {route_correct: 1.0}\ncases:\n  - {id: c, assistant: coach, question: Hello}\n", file: "c.yaml")
        let engine = try await demoEngine()
        await #expect(throws: PromotionError.self) {
            try await PromptPromotion(assistant: "griot", version: 1, by: "t").run(suites: [coachOnly], registry: registry) { _ in engine }
        }
        await #expect(throws: PromotionError.self) {
            try await PromptPromotion(assistant: "griot", version: 9, by: "t").run(suites: [coachOnly], registry: registry) { _ in engine }
        }
    }
}
