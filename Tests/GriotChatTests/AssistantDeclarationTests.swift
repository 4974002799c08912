import Foundation
@testable import GriotChat
import GriotPrompts
import GriotProviders
import GriotStore
import GriotTestSupport
import Synchronization
import Testing

/// An assistant declared in one value, with no edit to the pipeline: its own passages and images,
/// its reply format (retried once, then failing clearly), its own check in place of groundedness,
/// and its offline composer, offline and when the model is down.
@Suite struct AssistantDeclarationTests {
    static let images = ["data:image/png;base64,iVBORw0KGgo=", "data:image/jpeg;base64,/9j/4AAQSkZJRg=="]

    /// A child's drawings as passages: numbered by the source 7 and 9, renumbered 1 and 2 by the turn.
    struct Drawings: PassageSource {
        func passages(for request: TurnRequest) async throws -> SourcedContext {
            guard let child = request.assistantInput["child_name"] else { throw ChatError(.invalid, "Send child_name: whose drawings these are.") }
            return SourcedContext(passages: [
                GroundingPassage(number: 7, storyID: "drawing-1", passageID: "drawing-1", storyTitle: "Drawing 1",
                                 text: "\(child) drew a red fox sleeping under a tall oak tree."),
                GroundingPassage(number: 9, storyID: "drawing-2", passageID: "drawing-2", storyTitle: "Drawing 2",
                                 text: "A blue boat sails across a quiet lake at night."),
            ], images: AssistantDeclarationTests.images, description: "drawings=2")
        }
    }

    /// A reply must be `{"story_text": "…"}`; its text is what the user reads.
    struct StoryJSON: ReplyFormat {
        static let problem = "The reply must be one JSON object with a story_text string."
        func render(_ raw: String, grounding: Grounding) throws(ReplyFormatError) -> String {
            guard let object = try? JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any],
                  let text = object["story_text"] as? String, !text.isEmpty else { throw ReplyFormatError(Self.problem) }
            return text
        }
    }

    /// Every drawing must be named in the reply by what it shows.
    struct MentionsEveryDrawing: ReplyCheck {
        func problem(in reply: String, grounding: Grounding) -> String? {
            let missing = grounding.passages.filter { passage in
                !["fox", "boat"].contains { passage.text.contains($0) && reply.contains($0) }
            }
            return missing.isEmpty ? nil : "The story does not mention " + missing.map(\.storyTitle).joined(separator: ", ") + "."
        }
    }

    struct SampleTale: OfflineComposer {
        var modelName: String { "test-sample-tale-1" }
        func compose(_ request: ChatRequest) -> String {
            "A sample story (no model wrote it): " + request.grounding.passages.map(\.text).joined(separator: " ")
        }
    }

    /// The shipped prompts and a `tale` assistant, whose prompt retrieves no stories (`k: 0`).
    static let prompts: PromptRegistry = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-prompts-\(UUID().uuidString)")
        try! FileManager.default.copyItem(at: packageRoot.appendingPathComponent("prompts"), to: folder)
        try! FileManager.default.createDirectory(at: folder.appendingPathComponent("tale"), withIntermediateDirectories: true)
        try! """
            ---
            id: tale
            version: 1
            created: 2026-11-29
            description: A test assistant that tells stories from a child's drawings.
            model:
              temperature: 0.3
              encoding: o200k_base
            retrieval:
              k: 0
            budget:
              total: 4000
              reply_reserve: 700
              history_messages: 20
              shares:
                instructions: 0.15
                profile: 0.08
                course: 0.08
            safety: [moderation, crisis, pii, citations, groundedness]
            ---
            ## system
            You are {{assistant_name}}. Tell a bedtime story from the drawings given below as numbered sources.
            """.write(to: folder.appendingPathComponent("tale/1.md"), atomically: true, encoding: .utf8)
        return try! PromptRegistry.load(folder: folder)
    }()

    static let displayName = "Zofia Łukasiewicz's storyteller 李秀英"

    func engine(_ provider: any ChatProvider, _ declaration: AssistantDeclaration, breakers: CircuitBreakerRegistry = CircuitBreakerRegistry()) async throws -> ChatEngine {
        await ChatEngine(archive: demoArchive, chats: try await TestDatabase.storage().chats, prompts: Self.prompts, provider: provider,
                         counters: .bytePair, breakers: breakers, assistants: AssistantCatalog.builtIn.adding(declaration))
    }

    func tale(_ message: String = "Tell me a story about my drawings") -> TurnRequest {
        var request = TurnRequest(assistant: "tale", message: message, viewer: carterFamily, promptLabel: "latest")
        request.assistantInput = ["child_name": "Zofia"]
        return request
    }

    func snapshot(_ engine: ChatEngine, _ turn: ChatTurn) async throws -> TurnSnapshot {
        try TurnSnapshot.decode(try #require(try await engine.chats.turn(id: turn.id)).snapshot)
    }

    /// (A reply quotes its passages: one that copies a passage out whole is withheld by the echo stage.)
    @Test func aSourcesPassagesAreCitedAndItsImagesReachTheModel() async throws {
        let provider = Replies(["Her fox is “sleeping under a tall oak tree” [1]. The boat “sails across a quiet lake at night” [2]."])
        let engine = try await engine(provider, AssistantDeclaration(id: "tale", displayName: Self.displayName, retrieval: .source(Drawings())))
        let turn = try await engine.startTurn(tale())
        let events = await events(of: turn)
        #expect(events.done?.status == .complete, "\(String(describing: events.failure))")
        #expect(events.citations.map(\.number) == [1, 2])
        #expect(events.citations.map(\.passageID) == ["drawing-1", "drawing-2"])
        #expect(events.citations.allSatisfy { $0.sourceType == TurnPipeline.sourcedType && !$0.quote.isEmpty })

        let request = try #require(provider.requests.first)
        #expect(request.messages.last?.role == .user)
        #expect(request.messages.last?.images == Self.images, "the images go with the user's message")
        #expect(request.messages.dropLast().allSatisfy { $0.images == nil })
        #expect(request.messages.first?.content.contains("You are \(Self.displayName).") == true, "the display name is the declaration's")
        #expect(request.messages.contains { $0.role == .system && $0.content.contains("A blue boat sails across a quiet lake at night.") },
                "the passages are the prompt's sources")
        #expect(request.grounding.passages.map(\.number) == [1, 2])

        let stored = try await snapshot(engine, turn)
        #expect(stored.retrieval == "drawings=2")
        #expect(stored.passages.map(\.passageID) == ["drawing-1", "drawing-2"])
        #expect(stored.passages.map(\.number) == [1, 2])
        #expect(stored.citations.map(\.passageID) == ["drawing-1", "drawing-2"])
    }

    @Test func aSourceThatRefusesFailsTheTurnWithItsWords() async throws {
        let provider = Replies(["never sent"])
        let engine = try await engine(provider, AssistantDeclaration(id: "tale", displayName: "the Storyteller", retrieval: .source(Drawings())))
        var request = tale()
        request.assistantInput = [:]
        let events = await events(of: try await engine.startTurn(request))
        #expect(events.done?.status == .failed)
        #expect(events.failure?.message == "Send child_name: whose drawings these are.")
        #expect(provider.requests.isEmpty)
    }

    @Test func aReplyNotInItsFormIsAskedForOnceMoreAndOnlyTheRenderedTextIsShown() async throws {
        let provider = Replies(["Once upon a time, a fox.", #"{"story_text": "Zofia's fox slept under the oak. The boat sailed home."}"#])
        let engine = try await engine(provider, AssistantDeclaration(id: "tale", displayName: "the Storyteller", retrieval: .source(Drawings()),
                                                                     replyFormat: StoryJSON()))
        let turn = try await engine.startTurn(tale())
        let events = await events(of: turn)
        #expect(events.done?.status == .complete)
        #expect(events.deltas.joined() == "Zofia's fox slept under the oak. The boat sailed home.")
        #expect(!events.deltas.joined().contains("Once upon"))
        #expect(try await engine.chats.message(id: turn.replyMessageID)?.content == "Zofia's fox slept under the oak. The boat sailed home.")

        #expect(provider.requests.count == 2)
        let retry = try #require(provider.requests.last)
        let first = try #require(provider.requests.first)
        #expect(retry.messages.count == first.messages.count + 2)
        #expect(retry.messages.dropLast().last == ChatMessage(role: .assistant, content: "Once upon a time, a fox."))
        #expect(retry.messages.last?.role == .user)
        #expect(retry.messages.last?.content.contains(StoryJSON.problem) == true, "the model is told what was wrong")
        // The recording is the model's raw reply that was accepted, for the request it answered.
        let recording = try #require(try await snapshot(engine, turn).recording)
        #expect(recording.requestHash == retry.fingerprint)
        #expect(recording.complete)
    }

    @Test func aSecondReplyNotInItsFormFailsTheTurnClearlyAndShowsNothing() async throws {
        let provider = Replies(["Once upon a time, a fox.", "Still not JSON, sorry."])
        let engine = try await engine(provider, AssistantDeclaration(id: "tale", displayName: "the Storyteller", retrieval: .source(Drawings()),
                                                                     replyFormat: StoryJSON()))
        let turn = try await engine.startTurn(tale())
        let events = await events(of: turn)
        #expect(provider.requests.count == 2, "retried once, not more")
        #expect(events.deltas.isEmpty)
        #expect(events.done?.status == .failed)
        #expect(events.failure?.code == FormattedReply.failureCode)
        #expect(events.failure?.message.contains(StoryJSON.problem) == true)
        let stored = try #require(try await engine.chats.message(id: turn.replyMessageID))
        #expect(stored.status == .failed)
        #expect(stored.content.isEmpty)
        #expect(stored.error?.contains(StoryJSON.problem) == true)
    }

    @Test func theAssistantsCheckReplacesGroundednessAndRaisesAFlag() async throws {
        let declaration = AssistantDeclaration(id: "tale", displayName: "the Storyteller", retrieval: .source(Drawings()), replyCheck: MentionsEveryDrawing())
        let missing = try await engine(Replies(["Her fox is “sleeping under a tall oak tree” [1]."]), declaration)
        let flagged = await events(of: try await missing.startTurn(tale()))
        #expect(flagged.done?.status == .complete)
        #expect(flagged.done?.flags.map(\.kind) == [.replyCheck])
        #expect(flagged.done?.flags.first?.message == "The story does not mention Drawing 2.")
        #expect(flagged.done?.groundedness == nil, "groundedness does not run beside the assistant's check")
        #expect(flagged.done?.verdicts.contains { $0.stage == "reply_check" && $0.decision == .flag } == true)
        #expect(flagged.done?.verdicts.contains { $0.stage == "groundedness" } == false)

        let both = try await engine(Replies(["Her fox is “sleeping under a tall oak tree” [1]. The boat “sails across a quiet lake at night” [2]."]), declaration)
        let passed = await events(of: try await both.startTurn(tale()))
        #expect(passed.done?.flags.isEmpty == true)
        #expect(passed.done?.verdicts.contains { $0.stage == "reply_check" && $0.decision == .allow } == true)
    }

    @Test func offlineTheComposerWritesTheReplyUnderItsModelName() async throws {
        let engine = try await engine(ExtractiveResponder(), AssistantDeclaration(id: "tale", displayName: "the Storyteller",
                                                                                  retrieval: .source(Drawings()), offline: SampleTale()))
        let turn = try await engine.startTurn(tale())
        let events = await events(of: turn)
        #expect(events.done?.text.hasPrefix("A sample story (no model wrote it): Zofia drew a red fox") == true)
        #expect(events.meta?.model == "test-sample-tale-1")
        #expect(events.done?.model == "test-sample-tale-1")
        #expect(try await snapshot(engine, turn).model == "test-sample-tale-1")
    }

    /// The breaker opens after a turn whose retries are all spent; both that turn and the next,
    /// refused by the open breaker, are answered by the composer, and the model is not called again.
    @Test func whenTheModelIsDownTheComposerAnswersInsteadOfTheTurnFailing() async throws {
        try await StubChatServer.with({ _ in .error(status: 503, message: "overloaded") }) { server in
            let clock = ManualResilienceClock()
            let breakers = CircuitBreakerRegistry(clock: clock)
            let configuration = try OpenAICompatibleConfiguration(environment: ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": "stub-model"])
            let provider = await ResilientProvider(wrapping: OpenAICompatibleProvider(configuration: configuration), registry: breakers)
            let engine = try await engine(provider, AssistantDeclaration(id: "tale", displayName: "the Storyteller", retrieval: .source(Drawings()),
                                                                         offline: SampleTale(), fallsBackWhenDown: true), breakers: breakers)
            let spent = try await engine.startTurn(tale())
            let first = await events(of: spent)
            #expect(server.requests.count == 3, "two retries, then the composer")
            #expect(first.done?.status == .complete)
            #expect(first.done?.text.hasPrefix("A sample story (no model wrote it):") == true)
            #expect(first.done?.model == "test-sample-tale-1")
            #expect(await breakers.snapshots().first?.state == .open)

            let turn = try await engine.startTurn(tale())
            let fast = await events(of: turn)
            #expect(server.requests.count == 3, "nothing reaches the model while the breaker is open")
            #expect(fast.failure == nil)
            #expect(fast.done?.status == .complete)
            #expect(fast.done?.text.hasPrefix("A sample story (no model wrote it): Zofia drew a red fox") == true)
            #expect(fast.done?.model == "test-sample-tale-1")
            let stored = try await snapshot(engine, turn)
            #expect(stored.model == "test-sample-tale-1")
            #expect(stored.recording?.complete == true)

            // Without the declaration's say-so, the same outage fails the turn as before.
            let strict = try await self.engine(provider, AssistantDeclaration(id: "tale", displayName: "the Storyteller", retrieval: .source(Drawings()),
                                                                              offline: SampleTale()), breakers: breakers)
            let failed = await events(of: try await strict.startTurn(tale()))
            #expect(failed.failure?.code == "ai_unavailable")
        }
    }

    @Test func anAssistantWithAPromptFolderAndNoDeclarationIsNamedByItsID() async throws {
        let provider = Replies(["Hello."])
        let engine = await ChatEngine(archive: demoArchive, chats: try await TestDatabase.storage().chats, prompts: Self.prompts, provider: provider,
                                      counters: .bytePair)
        let events = await events(of: try await engine.startTurn(TurnRequest(assistant: "tale", message: "Hi", viewer: carterFamily, promptLabel: "latest")))
        #expect(events.done?.status == .complete)
        #expect(provider.requests.first?.messages.first?.content.hasPrefix("You are tale.") == true)
    }
}

/// A model that answers its n-th request with the n-th reply (the last one after that), in
/// word-sized pieces, and keeps the requests.
final class Replies: ChatProvider {
    let name = "replies"
    let defaultModel = "replies-1"
    let replies: [String]
    private let received = Mutex<[ChatRequest]>([])
    var requests: [ChatRequest] { received.withLock { $0 } }

    init(_ replies: [String]) {
        self.replies = replies
    }

    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ProviderEvent, any Error> {
        let index = received.withLock { requests in
            requests.append(request)
            return requests.count - 1
        }
        let text = replies[min(index, replies.count - 1)]
        return AsyncThrowingStream { continuation in
            continuation.yield(.model("replies-1"))
            for piece in FormattedReply.pieces(text) { continuation.yield(.text(piece)) }
            continuation.yield(.finished(reason: "stop", usage: nil))
            continuation.finish()
        }
    }
}
