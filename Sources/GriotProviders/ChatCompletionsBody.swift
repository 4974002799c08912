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
    var stop: [String]?
    var user: String?

    enum CodingKeys: String, CodingKey {
        case model, messages, stream, temperature, stop, user
        case streamOptions = "stream_options"
        case maxTokens = "max_tokens"
    }
}
