import GriotTestSupport
import Foundation
@testable import GriotProviders
import Testing

/// `OPENAI_FOLD_SYSTEM`: for a chat template that drops system messages, the instructions travel
/// at the top of the first user message instead, and what goes over the wire says so.
@Suite struct SystemMessageFoldingTests {
    @Test func theVariableTurnsFoldingOnAndItIsOffByDefault() throws {
        #expect(try OpenAICompatibleConfiguration(environment: [:]).foldSystemMessages == false)
        #expect(try OpenAICompatibleConfiguration(environment: ["OPENAI_FOLD_SYSTEM": "1"]).foldSystemMessages)
        #expect(try OpenAICompatibleConfiguration(environment: ["OPENAI_FOLD_SYSTEM": "false"]).foldSystemMessages == false)
        #expect(throws: ProviderError.self) { try OpenAICompatibleConfiguration(environment: ["OPENAI_FOLD_SYSTEM": "sometimes"]) }
    }

    @Test func everySystemMessageIsJoinedAtTheTopOfTheFirstUserMessageOnTheWire() async throws {
        try await StubChatServer.with({ _ in .stream(["ok"]) }) { server in
            var configuration = OpenAICompatibleConfiguration.stub(server)
            configuration.foldSystemMessages = true
            var request = ChatRequest.question("And after the flood?")
            request.messages = [
                ChatMessage(role: .system, content: "You are the Griot."),
                ChatMessage(role: .system, content: "# Sources\n[1] \"The Water Came Up to the Porch\""),
                ChatMessage(role: .user, content: "Where did they live?"),
                ChatMessage(role: .assistant, content: "On the Lamont place [1]."),
                ChatMessage(role: .user, content: "And after the flood?"),
            ]
            _ = await ReceivedReply.of(OpenAICompatibleProvider(configuration: configuration).stream(request))

            let sent = try #require(server.requests.first)
            let messages = try #require(sent.json["messages"] as? [[String: String]])
            #expect(messages == [
                ["role": "user", "content": "<instructions>\nYou are the Griot.\n\n# Sources\n[1] \"The Water Came Up to the Porch\"\n</instructions>\n\nWhere did they live?"],
                ["role": "assistant", "content": "On the Lamont place [1]."],
                ["role": "user", "content": "And after the flood?"],
            ])
        }
    }

    @Test func withoutAUserMessageTheInstructionsAreOneOfTheirOwn() {
        let folded = OpenAICompatibleProvider.foldingSystemMessages([
            ChatMessage(role: .assistant, content: "Hello."), ChatMessage(role: .system, content: "Be brief."),
        ])
        #expect(folded == [ChatMessage(role: .user, content: "<instructions>\nBe brief.\n</instructions>"), ChatMessage(role: .assistant, content: "Hello.")])
        let none = [ChatMessage(role: .user, content: "Hi")]
        #expect(OpenAICompatibleProvider.foldingSystemMessages(none) == none)
    }

    @Test func unfoldedTheSystemMessagesGoAsTheyAre() async throws {
        try await StubChatServer.with({ _ in .stream(["ok"]) }) { server in
            _ = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server)).stream(.question()))
            let sent = try #require(server.requests.first)
            let messages = try #require(sent.json["messages"] as? [[String: String]])
            #expect(messages.first?["role"] == "system")
        }
    }
}
