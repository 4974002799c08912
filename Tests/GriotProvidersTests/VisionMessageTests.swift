import GriotTestSupport
import Foundation
@testable import GriotProviders
import Testing

/// Images go to a vision model (Grok, OpenAI) as `image_url` content parts after the message's
/// text; a message without images keeps `content` a plain string, as every server reads it.
@Suite struct VisionMessageTests {
    static let dragon = "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDA"
    static let boat = "https://drawings.example/boat.png?size=large&v=2"

    static func storyRequest(images: [String]?) -> ChatRequest {
        ChatRequest(messages: [
            ChatMessage(role: .system, content: "Write a bedtime story as JSON."),
            ChatMessage(role: .assistant, content: "An earlier chapter."),
            ChatMessage(role: .user, content: "A story for Zofia about her drawings: 龍 and a boat.", images: images),
        ], grounding: Grounding(assistant: "storyteller", question: "A story for Zofia"))
    }

    @Test func imagesArriveAsImageURLPartsAfterTheTextAndOtherMessagesStayStrings() async throws {
        try await StubChatServer.with({ _ in .json(["story_text": "Once upon a time.", "image_placements": [[String: Any]]()]) }) { server in
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server)).stream(Self.storyRequest(images: [Self.dragon, Self.boat])))
            #expect(reply.error == nil)
            #expect(reply.text.hasPrefix("{\"image_placements\""))

            let sent = try #require(server.requests.first)
            let messages = sent.messages
            try #require(messages.count == 3)
            #expect(messages[0].contentIsString && messages[0].text == "Write a bedtime story as JSON.")
            #expect(messages[1].contentIsString && messages[1].role == "assistant")
            let user = messages[2]
            #expect(user.role == "user")
            #expect(!user.contentIsString)
            #expect(user.partTypes == ["text", "image_url", "image_url"])
            #expect(user.text == "A story for Zofia about her drawings: 龍 and a boat.")
            #expect(user.imageURLs == [Self.dragon, Self.boat], "each URL arrives byte for byte, in order")
            // The recording form's key never reaches the wire.
            let raw = try #require(sent.json["messages"] as? [[String: Any]])
            #expect(raw.allSatisfy { $0["images"] == nil })
        }
    }

    @Test func withoutImagesTheContentIsAPlainStringAsBefore() async throws {
        for images in [nil, [String]()] {
            try await StubChatServer.with({ _ in .stream(["ok"]) }) { server in
                _ = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server)).stream(Self.storyRequest(images: images)))
                let sent = try #require(server.requests.first)
                let raw = try #require(sent.json["messages"] as? [[String: String]], "every content is a string, and no other key is sent")
                #expect(raw.last == ["role": "user", "content": "A story for Zofia about her drawings: 龍 and a boat."])
            }
        }
    }

    @Test func foldedInstructionsKeepTheUserMessagesImages() throws {
        let folded = OpenAICompatibleProvider.foldingSystemMessages(Self.storyRequest(images: [Self.boat]).messages)
        let user = try #require(folded.first { $0.role == .user })
        #expect(user.content.hasPrefix("<instructions>"))
        #expect(user.images == [Self.boat])
        let body = try JSONEncoder().encode(ChatCompletionsBody(model: "m", messages: folded))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let parts = try #require((object["messages"] as? [[String: Any]])?.first { $0["role"] as? String == "user" }?["content"] as? [[String: Any]])
        #expect(parts.map { $0["type"] as? String } == ["text", "image_url"])
        #expect((parts[0]["text"] as? String)?.contains("Write a bedtime story as JSON.") == true)
    }

    /// A recording plays back only for the very request it answered: other drawings are another request.
    @Test func theCassetteFingerprintTellsRequestsApartByTheirImages() throws {
        let two = Self.storyRequest(images: [Self.dragon, Self.boat])
        let swapped = Self.storyRequest(images: [Self.boat, Self.dragon])
        let none = Self.storyRequest(images: nil)
        #expect(Set([two.fingerprint, swapped.fingerprint, none.fingerprint]).count == 3)
        #expect(two.partFingerprints["question"] != swapped.partFingerprints["question"])
        #expect(two.partFingerprints["instructions"] == swapped.partFingerprints["instructions"])
        // A request without images hashes as it did before images existed (old recordings still play).
        let decoded = try JSONDecoder().decode(ChatRequest.self, from: JSONEncoder().encode(two))
        #expect(decoded == two)
        #expect(!String(decoding: try JSONEncoder().encode(none), as: UTF8.self).contains("images"))
    }

    /// The image URLs are spliced into the body after the rest is encoded: the bytes must be the
    /// JSON the encoder would have written, whatever a URL holds.
    @Test func splicedImageURLsReadBackAsTheEncoderWouldWriteThem() throws {
        let hostile = ["data:image/png;base64,iVBORw0KGgo=", "https://x.example/a\"b\\c", "line\nbreak\u{0}nul\u{1F}", "龍 Łódź 👨‍👩‍👧 \u{2028}",
                       "griot-image-\(UUID().uuidString)-0", "\"", ""]
        let messages = [ChatMessage(role: .system, content: "griot-image-1\" and \\ /slash/"),
                        ChatMessage(role: .user, content: "first", images: Array(hostile.prefix(4))),
                        ChatMessage(role: .user, content: "", images: Array(hostile.suffix(3)))]
        let body = ChatCompletionsBody(model: "m", messages: messages, temperature: 0.5)
        let spliced = try JSONSerialization.jsonObject(with: Data(body.encoded())) as? NSDictionary
        let reference = try JSONSerialization.jsonObject(with: JSONEncoder().encode(body)) as? NSDictionary
        #expect(spliced != nil && spliced == reference)
        let parts = try #require(((spliced?["messages"] as? [[String: Any]])?[1]["content"]) as? [[String: Any]])
        #expect(parts.compactMap { ($0["image_url"] as? [String: String])?["url"] } == Array(hostile.prefix(4)))
        // A message without images encodes exactly as before.
        let plain = ChatCompletionsBody(model: "m", messages: [messages[0]])
        #expect(try JSONSerialization.jsonObject(with: Data(plain.encoded())) as? NSDictionary
                == JSONSerialization.jsonObject(with: JSONEncoder().encode(plain)) as? NSDictionary)
    }
}

