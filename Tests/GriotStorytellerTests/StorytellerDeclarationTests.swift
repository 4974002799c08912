import Foundation
import GriotChat
import GriotPrompts
import GriotProviders
import GriotTestSupport
@testable import GriotStoryteller
import Testing

/// A source that gives the passages it was made with, as the storyteller's store-backed source would.
struct FixedPassages: PassageSource {
    var context: SourcedContext
    func passages(for request: TurnRequest) async throws -> SourcedContext { context }
}

@Suite struct StorytellerDeclarationTests {
    @Test func theDeclarationNamesTheStorytellersParts() async throws {
        let context = StoryPassages.context(child: .init(name: "Ama Owusu", age: 6), drawings: StoryFixtures.drawings, chapters: [], images: ["data:a", "data:b", "data:c"])
        let declaration = Storyteller.declaration(source: FixedPassages(context: context))
        #expect(declaration.id == "storyteller")
        #expect(declaration.displayName == "the Storyteller")
        #expect(declaration.fallsBackWhenDown)
        #expect(declaration.offline?.modelName == "griot-template-storyteller-1")
        #expect(declaration.replyFormat is StoryReplyFormat)
        #expect(declaration.replyCheck is PlacementCheck)
        guard case .source(let source) = declaration.retrieval else { Issue.record("retrieval is not the storyteller's source"); return }
        let given = try await source.passages(for: TurnRequest(assistant: "storyteller", message: "A story", viewer: .anonymous))
        #expect(given.passages.map(\.number) == [1, 2, 3, 4])
        #expect(given.passages.map(\.storyID) == ["child", "drawing", "drawing", "drawing"])
        #expect(given.description == "drawings=3 chapters=0")
    }

    @Test func thePassagesReadBackAsTheyWereWritten() {
        let chapters = [StoryPassages.Chapter(number: 1, text: "Pip lived in Willowbrook."), StoryPassages.Chapter(number: 2, text: "Pip sailed.", summarised: true)]
        let grounding = StoryFixtures.grounding(name: "  李秀英 王", age: 4, theme: "the moon", chapters: chapters)
        let child = StoryPassages.child(in: grounding)
        #expect(child == StoryPassages.Child(name: "李秀英", age: 4, theme: "the moon"))
        #expect(!grounding.passages.contains { $0.text.contains("王") }, "only the first name is written")
        let drawings = StoryPassages.drawings(in: grounding)
        #expect(drawings.map(\.id) == StoryFixtures.drawings.map(\.id))
        #expect(drawings.map(\.label) == StoryFixtures.drawings.map(\.label))
        #expect(drawings.map(\.caption) == StoryFixtures.drawings.map(\.caption))
        #expect(!grounding.passages.contains { $0.text.contains("my_dragon-2.jpg") || $0.text.contains("kite.png") },
                "a file name goes as its cleaned words only")
        #expect(StoryPassages.chapters(in: grounding) == chapters)
        #expect(grounding.passages.first { $0.passageID == "d-2" }?.storyTitle == "my dragon")
    }

    @Test func thePromptLoadsWithItsBudgetSafetyAndTheChildsName() throws {
        let registry = try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts"))
        let template = try registry.template(for: "storyteller")
        #expect(template.version == 1)
        #expect(template.safety == [.moderation, .pii])
        #expect(template.retrieval.k == 0)
        #expect(template.budget.total - template.budget.replyReserve >= 6000, "room for 10 drawings and earlier chapters")
        #expect(registry.assistants["storyteller"]?.published[1] == template.textHash)
        let system = try template.systemPrompt(role: nil, command: nil, values: ["user_name": "Zofia", "assistant_name": Storyteller.displayName])
        #expect(system.contains("The child's first name is Zofia."))
        #expect(system.contains("Reply with ONLY this JSON object"))
        #expect(system.contains("image_placements") && system.contains("after_paragraph"))
        #expect(system.contains("keep the characters, their names, the places"))
        #expect(!system.contains("{{"))
    }

    /// The whole model path on the loopback stub: the drawings go as image_url parts, the reply
    /// comes back as JSON and reads as the visible story.
    @Test func aStoryFromTheVisionStubReadsAsTheVisibleStory() async throws {
        let grounding = StoryFixtures.grounding(drawings: Array(StoryFixtures.drawings.prefix(2)))
        let images = ["data:image/jpeg;base64,AAAA", "data:image/png;base64,BBBB"]
        let reply: [String: Any] = [
            "story_text": "Zofia flew a red kite over the hill.\n\nHer dragon came too.",
            "image_placements": [["drawing_id": "d-2", "after_paragraph": 2], ["drawing_id": "d-1", "after_paragraph": 1]],
        ]
        let script = StubReply.json(reply, pieces: 5, fenced: true)
        try await StubChatServer.with({ _ in script }) { server in
            let provider = OpenAICompatibleProvider(configuration: OpenAICompatibleConfiguration(baseURL: server.baseURL, apiKey: "k", model: "grok-vision",
                                                                                                connectTimeout: 5, readTimeout: 5))
            let request = ChatRequest(messages: [ChatMessage(role: .system, content: "Write JSON."),
                                                 ChatMessage(role: .user, content: grounding.question, images: images)], grounding: grounding)
            var raw = ""
            for try await event in provider.stream(request) { if case .text(let piece) = event { raw += piece } }
            let visible = try StoryReplyFormat().render(raw, grounding: grounding)
            #expect(visible.contains("hill.\n\n![a red kite over the hill](drawing:d-1)\n\nHer dragon"))
            #expect(visible.hasSuffix("![my dragon](drawing:d-2)"))
            let user = try #require(server.requests.first?.messages.last)
            #expect(user.imageURLs == images && user.partTypes == ["text", "image_url", "image_url"])
        }
    }
}
