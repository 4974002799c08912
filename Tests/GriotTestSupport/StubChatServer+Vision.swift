import Foundation

/// The vision side of the stub: what each request's messages carried (text and `image_url`
/// parts, read back from the body as OpenAI's chat completions defines them), and replies that
/// are a JSON object streamed in pieces, as a model asked for JSON writes one.
///
/// ```swift
/// try await StubChatServer.with({ _ in .json(["story_text": "Once…", "image_placements": []]) }) { server in
///     … run a turn …
///     let user = try #require(server.requests.first?.messages.last)
///     #expect(user.imageURLs.count == 2 && !user.contentIsString)
/// }
/// ```
extension StubChatServer.Request {
    /// One message of the request body as the stub read it.
    public struct ReceivedMessage: Sendable, Hashable {
        public var role: String
        /// The text: `content` when it is a string, else its `text` parts joined by newlines.
        public var text: String
        /// The `image_url` parts' URLs, in order.
        public var imageURLs: [String]
        /// `content` was a plain string (not a list of parts).
        public var contentIsString: Bool
        /// The part types in order ("text", "image_url"); empty when `content` is a string.
        public var partTypes: [String]
    }

    /// The body's `messages`, read part by part; an unreadable body gives none.
    public var messages: [ReceivedMessage] {
        guard let list = json["messages"] as? [[String: Any]] else { return [] }
        return list.map { message in
            let role = message["role"] as? String ?? ""
            if let text = message["content"] as? String {
                return ReceivedMessage(role: role, text: text, imageURLs: [], contentIsString: true, partTypes: [])
            }
            let parts = message["content"] as? [[String: Any]] ?? []
            var texts: [String] = [], images: [String] = [], types: [String] = []
            for part in parts {
                let type = part["type"] as? String ?? ""
                types.append(type)
                if type == "text", let text = part["text"] as? String { texts.append(text) }
                if type == "image_url", let url = (part["image_url"] as? [String: Any])?["url"] as? String { images.append(url) }
            }
            return ReceivedMessage(role: role, text: texts.joined(separator: "\n"), imageURLs: images, contentIsString: false, partTypes: types)
        }
    }

    /// Every message's text, joined: what a test searches for names and chapters the prompt carried.
    public var promptText: String { messages.map(\.text).joined(separator: "\n\n") }
}

extension StubReply {
    /// A reply whose text is `object` as JSON (keys sorted), streamed in `pieces` chunks cut
    /// anywhere between characters, as a model's tokens arrive; `fenced` wraps it in ```json.
    public static func json(_ object: Any, pieces: Int = 4, fenced: Bool = false) -> StubReply {
        let json = String(decoding: SSE.json(object), as: UTF8.self)
        return StubReply.text(fenced ? "```json\n" + json + "\n```" : json, pieces: pieces)
    }

    /// A reply of exactly `text`, streamed in `pieces` chunks of about equal length.
    public static func text(_ text: String, pieces: Int = 4) -> StubReply {
        let characters = Array(text)
        let size = max(1, (characters.count + max(1, pieces) - 1) / max(1, pieces))
        let chunks = stride(from: 0, to: characters.count, by: size).map { String(characters[$0..<min($0 + size, characters.count)]) }
        return .stream(chunks)
    }
}
