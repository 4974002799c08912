import Foundation
import GriotArchive
import GriotChat
@testable import GriotEval
import GriotPrompts
import GriotProviders
import GriotSearch
import GriotStore
import GriotTestSupport
import Testing

/// A copy of the checkout's prompts with a second griot version that retrieves 3 passages
/// instead of 6 and asks for shorter answers.
func promptsWithSecondVersion(retrievalK: Int = 3) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-prompts-\(UUID().uuidString)")
    try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("prompts"), to: folder)
    let first = try String(contentsOf: folder.appendingPathComponent("griot/1.md"), encoding: .utf8)
    let second = first
        .replacingOccurrences(of: "version: 1\n", with: "version: 2\n")
        .replacingOccurrences(of: "  k: 6\n", with: "  k: \(retrievalK)\n")
        .replacingOccurrences(of: "Keep answers under 250 words", with: "Keep answers under 120 words")
    try second.write(to: folder.appendingPathComponent("griot/2.md"), atomically: true, encoding: .utf8)
    return folder
}

/// The real OpenAI-compatible provider pointed at a stub server.
func stubModel(_ server: StubChatServer, model: String = "stub-model") throws -> OpenAICompatibleProvider {
    OpenAICompatibleProvider(configuration: try OpenAICompatibleConfiguration(environment: ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": model]))
}

/// An engine on the demo archive and the checkout's prompts, answering with `provider`, with an empty chat store.
func modelEngine(_ provider: any ChatProvider) async throws -> ChatEngine {
    await ChatEngine(archive: demoArchive, chats: try await TestDatabase.storage().chats,
               prompts: try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts")), provider: provider, counters: .bytePair)
}

/// Replays of stored turns through the real pipeline.
@Suite struct ReplayTests {
    let viewer = Viewer(userID: "u-ruth-carter", familyGroupIDs: ["fam-carter"])

    private func ask(_ engine: ChatEngine, _ question: String) async throws -> ChatTurn {
        let turn = try await engine.startTurn(TurnRequest(message: question, viewer: viewer))
        for await _ in turn.events {}
        await turn.finished()
        return turn
    }

    @Test func theSnapshotHoldsWhatAReplayNeeds() async throws {
        let engine = try await demoEngine()
        let turn = try await ask(engine, "Who was Ida Mae Carter?")
        let snapshot = try await TurnSnapshot.decode(try #require(try engine.chats.turn(id: turn.id)).snapshot)
        #expect(snapshot.viewerUser == "u-ruth-carter")
        #expect(snapshot.viewerFamilies == ["fam-carter"])
        #expect(snapshot.question == "Who was Ida Mae Carter?")
        #expect(snapshot.indexVersion?.hasPrefix("v") == true)
        #expect(snapshot.status == .complete)
        #expect(!snapshot.passages.isEmpty)
        #expect(snapshot.safety.contains { $0.stage == "groundedness" })
        // The events as sent: meta first, done last, and the deltas add up to the text.
        let events = try #require(snapshot.events)
        #expect(events.first?.event == "meta")
        #expect(events.last?.event == "done")
        let deltas = events.filter { $0.event == "delta" }.map { event in
            (try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: String])?["text"] ?? ""
        }
        #expect(deltas.joined() == snapshot.text)
        // The provider's reply as it arrived, complete, for the request it answered.
        let recording = try #require(snapshot.recording)
        #expect(recording.complete)
        #expect(recording.requestHash.hasPrefix("sha256:"))
    }

    @Test func anotherPromptVersionShowsWhatChanges() async throws {
        let prompts = try promptsWithSecondVersion()
        defer { try? FileManager.default.removeItem(at: prompts) }
        let engine = await ChatEngine(archive: demoArchive, chats: try await TestDatabase.storage().chats,
                                prompts: try PromptRegistry.load(folder: prompts), provider: ExtractiveResponder(), counters: .bytePair)
        let turn = try await ask(engine, "Who was Ida Mae Carter?")
        let stored = try #require(try await engine.chats.turn(id: turn.id))
        let messagesBefore = try await engine.chats.recentMessages(threadID: turn.threadID, limit: 100).count

        let same = try await TurnReplayer(engine: engine).replay(id: turn.id)
        #expect(same.count == 1)
        #expect(same[0].diff.isEmpty, "\(same[0].diff)")

        let results = try await TurnReplayer(engine: engine).replay(id: turn.id, options: ReplayOptions(promptVersion: "2"))
        let diff = try #require(results.first).diff
        #expect(diff.settings.contains(TurnDiff.Change(field: "prompt_version", before: "1", after: "2")))
        #expect(diff.settings.contains { $0.field == "prompt_hash" })
        // Version 2 keeps 3 of the 6 passages: the other three are reported removed, and the answer changes.
        #expect(diff.passagesRemoved.map(\.rank) == [4, 5, 6])
        #expect(diff.textChanged)
        #expect(diff.text.contains { $0.kind == .removed })
        #expect(diff.ledger.contains { $0.field == "prompt_tokens" })
        let text = ReplayText.render(results)
        #expect(text.contains("prompt_version 1 → 2"))
        #expect(text.contains("-[6]"))
        #expect(text.contains("answer: changed"))
        // A replay writes nothing to the stored conversation.
        #expect(try await engine.chats.recentMessages(threadID: turn.threadID, limit: 100).count == messagesBefore)
        #expect(try await engine.chats.turn(id: turn.id) == stored)
    }

    @Test func aThreadIsReplayedTurnByTurn() async throws {
        let engine = try await demoEngine()
        let first = try await ask(engine, "Who was Ida Mae Carter?")
        let second = try await engine.startTurn(TurnRequest(message: "What happened in the 1927 flood?", viewer: viewer, threadID: first.threadID))
        for await _ in second.events {}
        let results = try await TurnReplayer(engine: engine).replay(id: first.threadID, options: ReplayOptions(cassette: true))
        #expect(results.map(\.turnID) == [first.id, second.id])
        #expect(results.allSatisfy { !$0.diff.textChanged })
        await #expect(throws: ReplayError.self) { try await TurnReplayer(engine: engine).replay(id: "no-such-turn") }
    }

    @Test func aCassetteReplayReproducesTheStoredTextExactly() async throws {
        // The stub model never says the same thing twice, as a sampled model would not.
        try await StubChatServer.with({ n in
            .stream(["Reply number \(n + 1). ", "Ida Mae Carter carried the family north in 1927 ", "and kept their stories [1]. ",
                     "Take this with care, draft \(n + 1)."])
        }) { server in
            let provider = try stubModel(server)
            let engine = try await modelEngine(provider)
            let turn = try await ask(engine, "Who was Ida Mae Carter?")
            let stored = try await TurnSnapshot.decode(try #require(try engine.chats.turn(id: turn.id)).snapshot)
            #expect(stored.text.contains("Reply number 1."))

            // Live, the same settings give another text.
            let live = try await TurnReplayer(engine: engine).replay(id: turn.id)
            #expect(live[0].providerSource == "live")
            #expect(live[0].replayed.text != stored.text)
            #expect(live[0].diff.textChanged)

            // From the cassette: byte for byte the stored text, and the model is not called.
            let calls = server.requests.count
            let played = try await TurnReplayer(engine: engine).replay(id: turn.id, options: ReplayOptions(cassette: true))
            #expect(played[0].providerSource == "played")
            #expect(Array(played[0].replayed.text.utf8) == Array(stored.text.utf8))
            #expect(played[0].replayed.citations == stored.citations)
            #expect(!played[0].diff.textChanged)
            #expect(server.requests.count == calls)

            // Another prompt version is another request: the cassette does not apply and the model is called.
            let prompts = try promptsWithSecondVersion()
            defer { try? FileManager.default.removeItem(at: prompts) }
            let other = await ChatEngine(archive: demoArchive, chats: engine.chats, prompts: try PromptRegistry.load(folder: prompts),
                                   provider: provider, counters: .bytePair)
            let changed = try await TurnReplayer(engine: other).replay(id: turn.id, options: ReplayOptions(promptVersion: "2", cassette: true))
            #expect(changed[0].providerSource == "live")
            #expect(changed[0].cassetteNote == "not played from the cassette: the request differs from the recorded one in instructions, passages",
                    "\(changed[0].cassetteNote ?? "no note")")
            #expect(ReplayText.render(changed).contains("cassette: not played from the cassette"))
            #expect(played[0].cassetteNote == nil)
            #expect(server.requests.count == calls + 1)
        }
    }

    @Test func theRecordingKeepsNoValueTheUserWasNotShown() async throws {
        // The model adds a number the user never gave, split across pieces, and repeats theirs.
        let pieces = ["You can reach Aunt Ida's neighbor at 601-", "555-0147 most ", "evenings. Your own number, ",
                      "(415) 555-0132, is ", "on the family sheet too."]
        try await StubChatServer.with({ _ in .stream(pieces) }) { server in
            let provider = try stubModel(server)
            let engine = try await modelEngine(provider)
            let turn = try await ask(engine, "My number is 415-555-0132. Who was Ida Mae Carter's neighbor?")
            let json = try #require(try await engine.chats.turn(id: turn.id)).snapshot
            #expect(!json.contains("0147"), "not in the text, the events or the recording")
            let stored = try TurnSnapshot.decode(json)
            #expect(stored.text.contains("at [PHONE] most evenings."))
            let recorded = try #require(stored.recording).events.compactMap { event -> String? in
                if case .text(let text) = event { return text }
                return nil
            }
            #expect(recorded.joined() == pieces.joined().replacingOccurrences(of: "601-555-0147", with: "[PHONE]"))
            #expect(recorded.count == pieces.count, "the boundary inside the number moved to the mask's end")

            let played = try await TurnReplayer(engine: engine).replay(id: turn.id, options: ReplayOptions(cassette: true))
            #expect(played[0].providerSource == "played")
            #expect(Array(played[0].replayed.text.utf8) == Array(stored.text.utf8))
            // The turn is unchanged, masked number included: no flag difference, nothing to report.
            #expect(stored.flags.map(\.kind).contains(.piiMasked))
            #expect(played[0].replayed.flags.map(\.kind) == stored.flags.map(\.kind))
            #expect(played[0].diff.flagsRemoved.isEmpty && played[0].diff.flagsAdded.isEmpty, "\(played[0].diff)")
            #expect(played[0].diff.isEmpty, "\(played[0].diff)")
            let verdict = try #require(played[0].replayed.safety.first { $0.stage == "pii" })
            #expect(verdict.decision == .mask && verdict.reason.contains("carried from the original turn"))

            // A live replay masks the model's new reply itself.
            let live = try await TurnReplayer(engine: engine).replay(id: turn.id)
            #expect(live[0].providerSource == "live")
            #expect(live[0].replayed.flags.map(\.kind).contains(.piiMasked))
            #expect(!(live[0].replayed.safety.first { $0.stage == "pii" }?.reason.contains("carried") ?? true))
        }
    }

    /// A cassette answers only for the provider that made the recording: a replay with the
    /// offline responder asks the responder, and says the provider changed.
    @Test func aCassetteRecordedByAModelIsNotPlayedForTheOfflineResponder() async throws {
        try await StubChatServer.with({ n in .stream(["Reply \(n + 1): Ida Mae Carter went north [1]."]) }) { server in
            let provider = try stubModel(server)
            let engine = try await modelEngine(provider)
            let turn = try await ask(engine, "Who was Ida Mae Carter?")
            let offline = try await TurnReplayer(engine: engine, provider: ExtractiveResponder())
                .replay(id: turn.id, options: ReplayOptions(cassette: true))
            #expect(offline[0].providerSource == "live")
            #expect(!offline[0].replayed.text.contains("Reply 1"))
            #expect(offline[0].diff.settings.contains { $0.field == "provider" && $0.after == "griot-extractive" })
            #expect(server.requests.count == 1)
        }
    }

    /// A reply whose citation the check found unsupported (issue 35, item 5): the gate changed
    /// nothing of its text, so the cassette must give the stored reply byte for byte, in a
    /// thread replayed whole and for the turn named alone, from the command's API and its text.
    @Test func aCassetteReplayOfAnUnsupportedCitationGivesTheStoredReply() async throws {
        try await StubChatServer.with({ n in
            n == 0
                ? .stream(["Ida Mae Carter carried the family north in 1927 [1]. ", "She ran a bakery in Paris and ",
                           "flew airplanes for the navy in 1990 [1]. ", "Take this with care."])
                : .stream(["Reply \(n + 1): the flood of 1927 came to the Delta [1]. ", "It was the year they moved to the moon [2]."])
        }) { server in
            let provider = try stubModel(server)
            let engine = try await modelEngine(provider)
            let first = try await ask(engine, "Who was Ida Mae Carter?")
            let second = try await engine.startTurn(TurnRequest(message: "What happened in the 1927 flood?", viewer: viewer, threadID: first.threadID))
            for await _ in second.events {}
            await second.finished()
            var stored: [String: TurnSnapshot] = [:]
            for id in [first.id, second.id] {
                stored[id] = try await TurnSnapshot.decode(try #require(try engine.chats.turn(id: id)).snapshot)
            }
            #expect(stored.values.contains { $0.flags.map(\.kind).contains(.citationUnsupported) }, "the stub's reply should carry an unsupported citation")
            let thread = try await TurnReplayer(engine: engine).replay(id: first.threadID, options: ReplayOptions(cassette: true))
            let alone = try await TurnReplayer(engine: engine).replay(id: second.id, options: ReplayOptions(cassette: true))
            for result in thread + alone {
                let original = try #require(stored[result.turnID])
                #expect(result.providerSource == "played")
                #expect(Array(result.replayed.text.utf8) == Array(original.text.utf8),
                        "turn \(result.turnID): \(original.text.utf8.count) bytes stored, \(result.replayed.text.utf8.count) replayed:\n\(original.text)\n---\n\(result.replayed.text)")
                #expect(result.replayed.flags.map(\.kind) == original.flags.map(\.kind))
                #expect(result.replayed.citations == original.citations)
                #expect(result.diff.isEmpty, "\(result.diff)")
            }
            #expect(server.requests.count == 2, "a cassette replay calls no model")
        }
    }

    /// Replies made at random (a fixed seed) from the passages the model was given: sentences
    /// copied and cited, numbers changed, quotes made up, markers out of range, personal data
    /// added, line breaks, pieces cut anywhere. Every one, played from the cassette, must give
    /// the stored reply byte for byte with the same flags and citations.
    @Test func randomRepliesPlayBackByteForByte() async throws {
        @Sendable func reply(_ n: Int, _ request: StubChatServer.Request) -> StubReply {
            var random = SplitMix64(seed: UInt64(n) &+ 35)
            let messages = (request.json["messages"] as? [[String: Any]] ?? []).compactMap { $0["content"] as? String }.joined(separator: "\n")
            // Each passage's text: between its fence lines.
            var passages: [String] = []
            var inside = false, current = ""
            for line in messages.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("```") && line.hasSuffix("quote") { inside = true; current = ""; continue }
                if inside && line.hasPrefix("```") { inside = false; passages.append(current); continue }
                if inside { current += (current.isEmpty ? "" : "\n") + line }
            }
            let sentences = passages.enumerated().flatMap { index, text in
                text.split(whereSeparator: { ".!?".contains($0) }).map { (index + 1, $0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                    .filter { $0.1.split(separator: " ").count >= 5 }
            }
            var text = ""
            for _ in 0..<(2 + Int.random(in: 0..<5, using: &random)) {
                guard !sentences.isEmpty else { break }
                let (number, sentence) = sentences[Int.random(in: 0..<sentences.count, using: &random)]
                switch Int.random(in: 0..<12, using: &random) {
                case 0: text += "\(sentence) [\(number)]. "
                case 1: text += "She said \u{201C}\(sentence)\u{201D} [\(number)]. "
                case 2: text += "They said \u{201C}we crossed the river on a Tuesday in 1931\u{201D} [\(number)]. "
                case 3: text += sentence.replacingOccurrences(of: "a", with: "no") + " in 1990 [\(number)]. "
                case 4: text += "\(sentence) [\(passages.count + 3)]. "
                case 5: text += "Call 601-555-01\(10 + Int.random(in: 0..<80, using: &random)) or write to ida.carter\(Int.random(in: 0..<9, using: &random))@example.com about it [\(number)]. "
                case 6: text += "\n\n\(sentence) [\(number)][\(max(1, number - 1))].\n"
                case 7: text += "Zofia Łukasiewicz and 李秀英 remembered it too [\(number)]. "
                case 9: text += "\(sentence), \(sentence.lowercased()), and again \(sentence.lowercased()), which she told at every supper for forty years [\(number)]. "
                case 10: text += "He wrote that he would kill them all and burn the church to the ground [\(number)]. "
                case 11: text += "Her address was 12 Rue des Lilas\n75011 Paris and her number +33 1 45 67 89 10 [\(number)]. "
                default: text += "\(sentence), and the family went north to 4821 S. Wabash Ave., Chicago, IL 60615 [\(number)]. "
                }
            }
            var pieces: [String] = []
            var rest = Substring(text)
            while !rest.isEmpty {
                let size = min(rest.count, 1 + Int.random(in: 0..<12, using: &random))
                pieces.append(String(rest.prefix(size)))
                rest = rest.dropFirst(size)
            }
            return .stream(pieces)
        }
        try await StubChatServer.with(answering: reply) { server in
            let provider = try stubModel(server)
            let engine = try await modelEngine(provider)
            let questions = ["Who was Ida Mae Carter?", "What happened in the 1927 flood?", "Tell me about the shoe repair shop church",
                             "Why did the family leave Clarksdale?"]
            var threadID: String?
            let rounds = Int(ProcessInfo.processInfo.environment["GRIOT_REPLAY_ROUNDS"] ?? "") ?? 24
            for round in 0..<rounds {
                let turn = try await engine.startTurn(TurnRequest(message: questions[round % questions.count], viewer: viewer,
                                                                  threadID: round % 3 == 0 ? nil : threadID))
                threadID = turn.threadID
                for await _ in turn.events {}
                await turn.finished()
                let stored = try await TurnSnapshot.decode(try #require(try engine.chats.turn(id: turn.id)).snapshot)
                let played = try await TurnReplayer(engine: engine).replay(id: turn.id, options: ReplayOptions(cassette: true))
                let result = try #require(played.first)
                #expect(result.providerSource == "played", "round \(round)")
                #expect(Array(result.replayed.text.utf8) == Array(stored.text.utf8),
                        "round \(round): \(stored.text.utf8.count) bytes stored, \(result.replayed.text.utf8.count) replayed\n\(stored.text)\n---\n\(result.replayed.text)")
                #expect(result.replayed.flags.map(\.kind) == stored.flags.map(\.kind), "round \(round)")
                #expect(result.replayed.citations == stored.citations, "round \(round)")
            }
        }
    }

    @Test func theWordDiffMarksChangedWords() {
        let parts = TurnDiff.wordDiff("the flood came in 1927 and the levee broke", "the flood came in 1927 and the levee held")
        #expect(parts.map(\.kind) == [.same, .removed, .added])
        #expect(parts.map(\.text).filter { !$0.isEmpty }.count == 3)
        #expect(TurnDiff.words("a  b\nc") == ["a  ", "b\n", "c"])
        #expect(ReplayText.wordDiff(parts).hasSuffix("[-broke-]{+held+}"))
    }
}
