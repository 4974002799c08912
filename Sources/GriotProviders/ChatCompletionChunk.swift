/// One `data:` payload of a chat-completions stream. Only the fields Griot reads are declared;
/// the rest (ids, logprobs, Azure's content-filter results) are ignored.
struct ChatCompletionChunk: Decodable {
    struct Choice: Decodable {
        var index: Int?
        var delta: Delta?
        var finishReason: String?
        enum CodingKeys: String, CodingKey { case index, delta, finishReason = "finish_reason" }
    }

    struct Delta: Decodable {
        var content: String?
    }

    struct Usage: Decodable {
        var promptTokens: Int
        var completionTokens: Int
        enum CodingKeys: String, CodingKey { case promptTokens = "prompt_tokens", completionTokens = "completion_tokens" }
    }

    /// `{"error": {"message": …, "type": …}}`, or `{"error": "…"}` from servers that keep it short.
    struct Failure: Decodable {
        var message: String
        var type: String?

        private enum CodingKeys: String, CodingKey { case message, type }

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                message = text
                type = nil
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            message = (try? container.decodeIfPresent(String.self, forKey: .message)) ?? "no message given"
            type = try? container.decodeIfPresent(String.self, forKey: .type)
        }
    }

    var model: String?
    var choices: [Choice]?
    var usage: Usage?
    var error: Failure?
}
