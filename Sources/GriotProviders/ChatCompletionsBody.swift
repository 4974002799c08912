/// The JSON body of a streaming chat-completions request.
struct ChatCompletionsBody: Encodable {
    struct StreamOptions: Encodable {
        var includeUsage: Bool
        enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
    }

    var model: String
    var messages: [ChatMessage]
    var stream = true
    var streamOptions: StreamOptions?
    var temperature: Double?
    var maxTokens: Int?

    enum CodingKeys: String, CodingKey {
        case model, messages, stream, temperature
        case streamOptions = "stream_options"
        case maxTokens = "max_tokens"
    }
}
