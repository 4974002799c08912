import Foundation

/// The JSON body of a streaming chat-completions request.
struct ChatCompletionsBody: Encodable {
    struct StreamOptions: Encodable {
        var includeUsage: Bool
        enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
    }

    var model: String
    var messages: [WireMessage]
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

    init(model: String, messages: [ChatMessage], streamOptions: StreamOptions? = nil, temperature: Double? = nil,
         maxTokens: Int? = nil, stop: [String]? = nil, user: String? = nil) {
        self.model = model
        self.messages = messages.map(WireMessage.init)
        self.streamOptions = streamOptions
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.stop = stop
        self.user = user
    }

    /// The body's JSON bytes. Image URLs, megabytes of base64 each, are not run through
    /// `JSONEncoder` (its escaping scan cost about 150 ms for ten 2 MB drawings, the whole budget
    /// before the first model byte): the body is encoded with a placeholder per image, and each
    /// URL's bytes are copied in its place, escaped only when they hold a quotation mark, a
    /// backslash or a control character (a data URL never does).
    func encoded() throws -> [UInt8] {
        let marker = "griot-image-" + UUID().uuidString + "-"
        var urls: [String] = []
        var stand = self
        for index in stand.messages.indices {
            guard let images = stand.messages[index].message.images, !images.isEmpty else { continue }
            stand.messages[index].message.images = images.map { url in
                urls.append(url)
                return marker + String(urls.count - 1)
            }
        }
        let encoded = try JSONEncoder().encode(stand)
        guard !urls.isEmpty else { return Array(encoded) }
        var output: [UInt8] = []
        output.reserveCapacity(encoded.count + urls.reduce(0) { $0 + $1.utf8.count })
        var rest = encoded[...]
        for (index, url) in urls.enumerated() {
            let placeholder = Data((marker + String(index)).utf8)
            // Placeholders appear once each, in order; the quotation mark after one ends it ("-1" is not "-10").
            guard let found = rest.range(of: placeholder + Data("\"".utf8)) else {
                throw EncodingError.invalidValue(url, .init(codingPath: [], debugDescription: "image \(index) was not found in the encoded body"))
            }
            output += rest[..<found.lowerBound]
            try Self.appendJSONStringContent(url, to: &output)
            output.append(UInt8(ascii: "\""))
            rest = rest[found.upperBound...]
        }
        output += rest
        return output
    }

    /// A string's characters as they go between the quotation marks of a JSON string.
    static func appendJSONStringContent(_ text: String, to output: inout [UInt8]) throws {
        var text = text
        // strcspn scans for the bytes JSON must escape in C, at memory speed; a loop of ours over
        // megabytes of base64 cost a second in a debug build. A NUL inside ends the C string
        // early, so it takes the escaping path too.
        let plain = text.withCString { strcspn($0, mustEscape) } == text.utf8.count
        if plain {
            text.withUTF8 { output.append(contentsOf: $0) }
        } else {
            let quoted = try JSONEncoder().encode(text)
            output += quoted.dropFirst().dropLast()
        }
    }

    /// The bytes a JSON string escapes (besides NUL, which ends a C string): the quotation mark,
    /// the backslash and the control characters.
    private static let mustEscape: [CChar] = [0x22, 0x5C] + (1..<0x20).map { CChar($0) } + [0]

    /// One message as OpenAI's chat completions reads it. A message with images is a list of
    /// content parts (the text, then one `image_url` part per image), the vision format Grok and
    /// OpenAI share; any other message keeps `content` a plain string, which every compatible
    /// server reads (some text-only servers reject the list form).
    ///
    /// `ChatMessage`'s own `Codable` form (with an `images` key) is for recordings and snapshots,
    /// never for the wire.
    struct WireMessage: Encodable {
        var message: ChatMessage

        init(_ message: ChatMessage) { self.message = message }

        enum CodingKeys: String, CodingKey { case role, content }

        private enum PartKeys: String, CodingKey { case type, text, imageURL = "image_url" }
        private enum ImageKeys: String, CodingKey { case url }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(message.role, forKey: .role)
            guard let images = message.images, !images.isEmpty else {
                try container.encode(message.content, forKey: .content)
                return
            }
            var parts = container.nestedUnkeyedContainer(forKey: .content)
            if !message.content.isEmpty {
                var text = parts.nestedContainer(keyedBy: PartKeys.self)
                try text.encode("text", forKey: .type)
                try text.encode(message.content, forKey: .text)
            }
            for url in images {
                var part = parts.nestedContainer(keyedBy: PartKeys.self)
                try part.encode("image_url", forKey: .type)
                var image = part.nestedContainer(keyedBy: ImageKeys.self, forKey: .imageURL)
                try image.encode(url, forKey: .url)
            }
        }
    }
}
