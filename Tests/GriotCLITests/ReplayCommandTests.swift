import Foundation
import GriotStore
import GriotTestSupport
import Testing

/// `griot replay` and `griot prompts promote` as an operator runs them.
@Suite struct ReplayCommandTests {
    let story = #"{"artifact_id": "carter-test", "title": "The Water Came Up", "privacy": "public", "people": ["Ida Mae Carter"], "transcript": {"segments": [{"start": 0, "end": 9, "speaker": "Ida Mae Carter", "text": "The levee broke at Mounds Landing and we spent two nights on the church roof. My brother Amos rowed us to the railroad embankment."}]}}"#

    /// A copy of the checkout's prompts with griot v2 (3 passages, shorter answers) and v3 (retrieves nothing).
    func prompts(in sandbox: GriotSandbox) throws -> String {
        let folder = sandbox.directory.appendingPathComponent("prompts")
        try FileManager.default.copyItem(at: GriotSandbox.packageRoot.appendingPathComponent("prompts"), to: folder)
        let first = try String(contentsOf: folder.appendingPathComponent("griot/1.md"), encoding: .utf8)
        try first.replacingOccurrences(of: "version: 1\n", with: "version: 2\n").replacingOccurrences(of: "  k: 6\n", with: "  k: 3\n")
            .replacingOccurrences(of: "under 250 words", with: "under 120 words")
            .write(to: folder.appendingPathComponent("griot/2.md"), atomically: true, encoding: .utf8)
        try first.replacingOccurrences(of: "version: 1\n", with: "version: 3\n").replacingOccurrences(of: "  k: 6\n", with: "  k: 0\n")
            .write(to: folder.appendingPathComponent("griot/3.md"), atomically: true, encoding: .utf8)
        return folder.path
    }

    func turnID(_ askOutput: String) throws -> String {
        let meta = try #require(askOutput.split(separator: "\n").first { $0.contains("\"event\":\"meta\"") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(meta.utf8)) as? [String: Any])
        return try #require((object["data"] as? [String: Any])?["turn_id"] as? String)
    }

    @Test func replayReportsWhatAnotherPromptVersionChanges() async throws {
        let sandbox = try GriotSandbox()
        let environment = ["GRIOT_PROMPTS": try prompts(in: sandbox)]
        #expect(try sandbox.run(["ingest", try sandbox.write("story.json", story)]).status == 0)
        let asked = try sandbox.run(["ask", "Where did the levee break?", "--json"], environment: environment)
        #expect(asked.status == 0, "\(asked.errors)")
        let id = try turnID(asked.output)

        let listed = try sandbox.run(["turns", "--assistant", "griot", "--status", "complete"], environment: environment)
        #expect(listed.status == 0, "\(listed.errors)")
        #expect(listed.output.hasPrefix("\(id)  "))
        #expect(listed.output.contains("griot v1  complete"))
        #expect(try sandbox.run(["turns", "--flag", "crisis"], environment: environment).errors.contains("no turns match"))

        let same = try sandbox.run(["replay", id], environment: environment)
        #expect(same.status == 0, "\(same.errors)")
        #expect(same.output.contains("settings: same"))
        #expect(same.output.contains("answer: same text"))

        let changed = try sandbox.run(["replay", id, "--prompt-version", "3"], environment: environment)
        #expect(changed.status == 0, "\(changed.errors)")
        #expect(changed.output.contains("prompt_version 1 → 3"))
        #expect(changed.output.contains("-[1] carter-test"), "v3 retrieves nothing: the passage is reported removed")
        #expect(changed.output.contains("answer: changed"))
        #expect(changed.output.contains("[-"))

        // Each replay is audited on the conversation's owner, with the operating-system user who ran it.
        let replays = try await SQLiteChatStore(writer: SQLiteStoryStore(path: sandbox.database).writer).auditEntries(AuditFilter(actions: [.turnReplay]))
        #expect(replays.count == 2)
        #expect(replays.allSatisfy { $0.actorID?.hasPrefix("os:") == true && $0.actorID != "os:" }, "\(replays.map(\.actorID))")

        let missing = try sandbox.run(["replay", "no-such-turn"], environment: environment)
        #expect(missing.status != 0)
        #expect(missing.errors.contains("there is no turn or thread no-such-turn"))
    }

    @Test func aCassetteReplayPrintsTheStoredTextExactly() async throws {
        let sandbox = try GriotSandbox()
        #expect(try sandbox.run(["ingest", try sandbox.write("story.json", story)]).status == 0)
        try await StubChatServer.with({ n in
            .stream(["Draft \(n + 1): the levee broke at Mounds Landing [1]. ", "Amos rowed them out, ", "so the family says."])
        }) { server in
            let model = ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": "stub-model"]
            let asked = try sandbox.run(["ask", "Where did the levee break?", "--json"], environment: model)
            #expect(asked.status == 0, "\(asked.errors)")
            let id = try turnID(asked.output)
            let played = try sandbox.run(["replay", id, "--cassette", "--json"], environment: model)
            #expect(played.status == 0, "\(played.errors)")
            let results = try #require(try JSONSerialization.jsonObject(with: Data(played.output.utf8)) as? [[String: Any]])
            let original = try #require((results.first?["original"] as? [String: Any])?["text"] as? String)
            let replayed = try #require((results.first?["replayed"] as? [String: Any])?["text"] as? String)
            #expect(original.hasPrefix("Draft 1:"))
            #expect(Array(replayed.utf8) == Array(original.utf8))
            #expect(results.first?["provider_source"] as? String == "played")
            #expect(server.requests.count == 1, "the model was asked once, by ask")
        }
    }

    /// Issue 35, item 5, through the command line: a thread whose first reply has an unsupported
    /// citation and whose second has a made-up quote, replayed whole from the cassette.
    @Test func aCassetteReplayOfAThreadWithUnsupportedCitationsPrintsTheStoredReplies() async throws {
        let sandbox = try GriotSandbox()
        #expect(try sandbox.run(["ingest", try sandbox.write("story.json", story)]).status == 0)
        try await StubChatServer.with({ n in
            n == 0
                ? .stream(["The levee broke at Mounds Landing [1]. ", "Amos flew a seaplane to Memphis in 1990 [1]."])
                : .stream(["Amos said \u{201C}we crossed the river on a Tuesday\u{201D} [1]. ", "So the family says."])
        }) { server in
            let model = ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": "stub-model"]
            let first = try sandbox.run(["ask", "Where did the levee break?", "--json"], environment: model)
            #expect(first.status == 0, "\(first.errors)")
            let threads = first.output.split(separator: "\n").compactMap { line -> String? in
                let event = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                return (event?["data"] as? [String: Any])?["thread_id"] as? String
            }
            let thread = try #require(threads.first)
            let second = try sandbox.run(["ask", "Who rowed them out?", "--thread", thread, "--json"], environment: model)
            #expect(second.status == 0, "\(second.errors)")
            #expect((first.output + second.output).contains("citation_unsupported"))
            let played = try sandbox.run(["replay", thread, "--cassette", "--json"], environment: model)
            #expect(played.status == 0, "\(played.errors)")
            let results = try #require(try JSONSerialization.jsonObject(with: Data(played.output.utf8)) as? [[String: Any]])
            #expect(results.count == 2)
            for result in results {
                let original = try #require((result["original"] as? [String: Any])?["text"] as? String)
                let replayed = try #require((result["replayed"] as? [String: Any])?["text"] as? String)
                #expect(Array(replayed.utf8) == Array(original.utf8))
                #expect(result["provider_source"] as? String == "played")
                #expect(result["cassette_note"] == nil)
            }
            let text = try sandbox.run(["replay", thread, "--cassette"], environment: model)
            #expect(text.output.components(separatedBy: "answer: same text").count == 3, "\(text.output)")
            #expect(server.requests.count == 2, "the model was asked twice, by ask")
        }
    }

    @Test func promoteRefusesAVersionThatBreaksAGateAndPromotesOneThatPasses() async throws {
        let sandbox = try GriotSandbox()
        let folder = try prompts(in: sandbox)
        #expect(try sandbox.run(["ingest", try sandbox.write("story.json", story)]).status == 0)
        let evals = try sandbox.write("release.yaml", """
            name: cli-release
            database: wpa
            gates: {hit_at_5: 1.0, must_contain_pass: 1.0, route_correct: 1.0, privacy_violations: 0}
            cases:
              - id: levee
                kind: place
                question: Where did the levee break?
                expect: {stories: [carter-test], must_contain: [Mounds Landing], citation_required: true}
            """)
        let refused = try sandbox.run(["prompts", "promote", "griot", "3", "--prompts", folder, "--eval", evals, "--by", "ops@example.org"])
        #expect(refused.status == 1, "\(refused.output) \(refused.errors)")
        #expect(refused.output.contains("refused: griot v3 misses"))
        #expect(refused.output.contains("cli-release: hit_at_5 0.000 against 1.0"))
        var releases = try String(contentsOfFile: folder + "/griot/releases.yaml", encoding: .utf8)
        #expect(releases.contains("production: 1"))

        // v2 rewords the system prompt: the offline responder cannot read it, so it may not judge it.
        let unread = try sandbox.run(["prompts", "promote", "griot", "2", "--prompts", folder, "--eval", evals, "--by", "ops@example.org"])
        #expect(unread.status == 1, "\(unread.output) \(unread.errors)")
        #expect(unread.output.contains("refused: griot v2 changes the instructions of production v1 (system)"), "\(unread.output)")
        #expect(unread.output.contains("--allow-offline"))

        // A model that reads the prompt judges it.
        try await StubChatServer.with(answering: InstructionFollowingModel.reply) { server in
            let model = ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": InstructionFollowingModel.model]
            let promoted = try sandbox.run(["prompts", "promote", "griot", "2", "--prompts", folder, "--eval", evals, "--by", "ops@example.org",
                                            "--provider", "openai"], environment: model)
            #expect(promoted.status == 0, "\(promoted.output) \(promoted.errors)")
            #expect(promoted.output.contains("judged by openai \(InstructionFollowingModel.model)"))
            #expect(promoted.output.contains("promoted griot v2 to production (was v1)"))
            #expect(server.requests.count == 1)
        }
        releases = try String(contentsOfFile: folder + "/griot/releases.yaml", encoding: .utf8)
        #expect(releases.contains("production: 2"))
        let log = try String(contentsOfFile: folder + "/griot/promotions.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(log.count == 3)
        #expect(log[0].contains("\"promoted\":false") && log[1].contains("\"refusal\"") && log[2].contains("\"promoted\":true"))
        #expect(log.allSatisfy { $0.contains("\"by\":\"ops@example.org\"") })
        #expect(log[0].contains("\"hit_at_5\"") && log[2].contains("\"hit_at_5\"") && log[2].contains("\"judged_by\":\"openai"))

        // --allow-offline lets the offline responder judge changed instructions, and the log says so.
        try first(in: folder, version: 4, replacing: "Keep answers under 250 words", with: "Keep answers under 90 words")
        let allowed = try sandbox.run(["prompts", "promote", "griot", "4", "--prompts", folder, "--eval", evals, "--allow-offline"])
        #expect(allowed.status == 0, "\(allowed.output) \(allowed.errors)")
        #expect(allowed.output.contains("--allow-offline: the changed instructions were not read"))
        let last = try String(contentsOfFile: folder + "/griot/promotions.jsonl", encoding: .utf8).split(separator: "\n").last ?? ""
        #expect(last.contains("\"allow_offline\":true"))
    }

    /// Writes griot version `version` as version 1 with one phrase replaced.
    private func first(in folder: String, version: Int, replacing old: String, with new: String) throws {
        let first = try String(contentsOfFile: folder + "/griot/1.md", encoding: .utf8)
        try first.replacingOccurrences(of: "version: 1\n", with: "version: \(version)\n").replacingOccurrences(of: old, with: new)
            .write(toFile: folder + "/griot/\(version).md", atomically: true, encoding: .utf8)
    }
}
