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

    @Test func theWordDiffMarksChangedWords() {
        let parts = TurnDiff.wordDiff("the flood came in 1927 and the levee broke", "the flood came in 1927 and the levee held")
        #expect(parts.map(\.kind) == [.same, .removed, .added])
        #expect(parts.map(\.text).filter { !$0.isEmpty }.count == 3)
        #expect(TurnDiff.words("a  b\nc") == ["a  ", "b\n", "c"])
        #expect(ReplayText.wordDiff(parts).hasSuffix("[-broke-]{+held+}"))
    }
}
