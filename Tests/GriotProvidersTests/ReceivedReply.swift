import GriotTestSupport
import GriotProviders

/// Everything a consumer received from one provider stream: the events, then the error if any.
struct ReceivedReply {
    var events: [ProviderEvent] = []
    var error: (any Error)?

    var pieces: [String] {
        events.compactMap { if case .text(let piece) = $0 { piece } else { nil } }
    }

    var text: String { pieces.joined() }
    var providerError: ProviderError? { error as? ProviderError }

    static func of(_ stream: AsyncThrowingStream<ProviderEvent, any Error>) async -> ReceivedReply {
        var reply = ReceivedReply()
        do {
            for try await event in stream { reply.events.append(event) }
        } catch {
            reply.error = error
        }
        return reply
    }
}

extension ChatRequest {
    static func question(_ text: String = "What happened at the levee?") -> ChatRequest {
        ChatRequest(messages: [
            ChatMessage(role: .system, content: "Answer from the passages."),
            ChatMessage(role: .user, content: text),
        ], grounding: Grounding(assistant: "Griot", question: text))
    }
}

extension OpenAICompatibleConfiguration {
    /// A provider configuration for a stub server, with timeouts short enough for tests.
    static func stub(_ server: StubChatServer, readTimeout: Double = 5) -> OpenAICompatibleConfiguration {
        OpenAICompatibleConfiguration(baseURL: server.baseURL, apiKey: "sk-test", model: "gpt-test",
                                      connectTimeout: 5, readTimeout: readTimeout)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
