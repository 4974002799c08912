import Foundation
import GriotChat
import GriotServer
import GriotStore
import GriotStoryteller
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// The storyteller's routes end to end over HTTP (issue 39's acceptance): drawings checked and
/// stripped, stories told by the vision model behind the loopback stub (or the sample storyteller
/// when it is missing or down), chapters that keep the first chapter's names, and every child,
/// drawing, story and link its parent's alone.
@Suite struct StorytellerRouteTests {
    typealias Client = any TestClientProtocol

    // MARK: Helpers

    func addChild(_ client: Client, _ headers: HTTPFields, name: String, age: Int? = 6) async throws -> String {
        var fields: [String: Any] = ["name": name]
        fields["age"] = age
        let response = try await live(client, .POST, "/api/storyteller/children", headers: headers, body: body(fields))
        #expect(response.status == 201, "\(response.text)")
        return try #require(object(response.text)["id"] as? String)
    }

    func upload(_ client: Client, _ headers: HTTPFields, child: String, image: Data, caption: String? = nil, filename: String? = nil) async throws -> LiveResponse {
        var fields: [String: Any] = ["child_id": child, "image_base64": image.base64EncodedString()]
        fields["caption"] = caption
        fields["filename"] = filename
        return try await live(client, .POST, "/api/storyteller/drawings", headers: headers, body: body(fields))
    }

    func addDrawing(_ client: Client, _ headers: HTTPFields, child: String, image: Data? = nil, caption: String) async throws -> String {
        let response = try await upload(client, headers, child: child, image: try image ?? TestDrawings.jpeg(), caption: caption)
        #expect(response.status == 201, "\(response.text)")
        return try #require(object(response.text)["id"] as? String)
    }

    func tell(_ client: Client, _ headers: HTTPFields, child: String, drawings: [String], theme: String? = nil) async throws -> LiveResponse {
        var fields: [String: Any] = ["child_id": child, "drawing_ids": drawings]
        fields["theme"] = theme
        return try await live(client, .POST, "/api/storyteller/stories", headers: headers, body: body(fields))
    }

    func placements(_ answer: [String: Any]) -> [(id: String, after: Int)] {
        (answer["image_placements"] as? [[String: Any]] ?? []).map { ($0["drawing_id"] as? String ?? "", $0["after_paragraph"] as? Int ?? -1) }
    }

    func paragraphs(_ text: String) -> [String] {
        text.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// The model's reply: the story as a JSON object, streamed in pieces (the vision stub's
    /// `json(_:pieces:)`, not this target's one-piece moderation answer).
    static func story(_ text: String, placing: [(String, Int)]) -> StubReply {
        .json(["story_text": text, "image_placements": placing.map { ["drawing_id": $0.0, "after_paragraph": $0.1] }], pieces: 4)
    }

    // MARK: 1, 3. The request to the model; the JSON answer, read back; the stream

    @Test func theModelSeesEachDrawingAsAnImagePartAndTheChildsFirstNameOnly() async throws {
        let script = ScriptedReplies()
        try await StubChatServer.with(answering: { _, _ in script.next() }) { server in
            let setup = try await StorytellerTestService(environment: StorytellerTestService.model(server.baseURL))
            defer { setup.removeDrawings() }
            let service = setup.service
            let parent = try await service.headers("u-parent-zofia")
            try await service.test(.live) { client in
                let child = try await addChild(client, parent, name: "Zofia Łukasiewicz")
                let kite = try await addDrawing(client, parent, child: child, image: try TestDrawings.jpeg(width: 80, height: 60),
                                                caption: "Our red kite, call 555-201-7788 or write to mama.lukas@example.com")
                let castle = try await addDrawing(client, parent, child: child, image: try TestDrawings.jpeg(width: 60, height: 80), caption: "A castle by the sea")
                script.set([Self.story("Zofia ran to the hill with her red kite.\n\nThe kite flew over a castle by the sea.\n\nThen Zofia went home to sleep.",
                                       placing: [(kite, 1), (castle, 2)])])
                let told = try await tell(client, parent, child: child, drawings: [kite, castle], theme: "the sea")
                #expect(told.status == 200, "\(told.text)")
                let answer = object(told.text)
                let storyID = try #require(answer["id"] as? String)
                #expect(answer["child_id"] as? String == child)
                #expect(answer["sample"] as? Bool == false)
                #expect(paragraphs(answer["story_text"] as? String ?? "") == ["Zofia ran to the hill with her red kite.", "The kite flew over a castle by the sea.",
                                                                                 "Then Zofia went home to sleep."])
                #expect(placements(answer).map(\.id) == [kite, castle])
                #expect(placements(answer).map(\.after) == [1, 2])

                // What the model was sent.
                #expect(server.requests.count == 1)
                let request = try #require(server.requests.first)
                let user = try #require(request.messages.last)
                #expect(!user.contentIsString && user.partTypes.filter { $0 == "image_url" }.count == 2)
                #expect(user.imageURLs.count == 2)
                #expect(user.imageURLs.allSatisfy { $0.hasPrefix("data:image/jpeg;base64,") })
                for url in user.imageURLs {
                    let bytes = try #require(Data(base64Encoded: String(url.dropFirst("data:image/jpeg;base64,".count))))
                    #expect(bytes.prefix(2) == Data([0xFF, 0xD8]), "each image part is a JPEG")
                }
                let prompt = request.promptText
                let raw = String(decoding: request.body, as: UTF8.self)
                #expect(prompt.contains("Zofia"))
                #expect(!prompt.contains("Łukasiewicz") && !raw.contains("ukasiewicz") && !raw.contains("u0141"), "the surname never leaves the service")
                #expect(prompt.contains("red kite") && prompt.contains("castle by the sea"))
                #expect(!raw.contains("555-201-7788") && !raw.contains("201-7788") && !raw.contains("mama.lukas@example.com"), "the caption's phone and email are masked")
                #expect(kite != castle && raw.contains(kite) && raw.contains(castle), "the drawings are named by id for the placements")

                // Read back.
                let read = try await live(client, .GET, "/api/storyteller/stories/\(storyID)", headers: parent)
                #expect(read.status == 200)
                let whole = object(read.text)
                #expect(whole["story_text"] as? String == answer["story_text"] as? String)
                #expect(placements(whole).map(\.id) == [kite, castle])
                #expect((whole["chapters"] as? [[String: Any]])?.count == 1)
                #expect(whole["sample"] as? Bool == false)

                // The same request as a stream: the chat's grammar, then the chapter is stored.
                script.set([Self.story("Zofia found the castle again.\n\nThe red kite rested on its tower.", placing: [(castle, 1), (kite, 2)])])
                var streaming = parent
                streaming[.accept] = "text/event-stream"
                let streamed = try await tell(client, streaming, child: child, drawings: [castle, kite])
                #expect(streamed.status == 200)
                #expect(streamed.headers["content-type"]?.hasPrefix("text/event-stream") == true)
                let events = frames(streamed.text)
                #expect(events.first?.event == "meta")
                #expect(events.contains { $0.event == "delta" })
                #expect(events.last?.event == "done")
                #expect(events.last?.data["status"] as? String == "complete")
                let deltas = events.filter { $0.event == "delta" }.compactMap { $0.data["text"] as? String }.joined()
                #expect(deltas.contains("Zofia found the castle again."), "the visible story streams, not the JSON: \(deltas)")
                #expect(!deltas.contains("image_placements"))
                let streamedStory = try #require(events.first?.data["thread_id"] as? String ?? events.first?.data["story_id"] as? String)
                var stored: [String: Any] = [:]
                for _ in 0..<100 {
                    stored = object(try await live(client, .GET, "/api/storyteller/stories/\(streamedStory)", headers: parent).text)
                    if (stored["chapters"] as? [Any])?.count == 1 { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(paragraphs(stored["story_text"] as? String ?? "") == ["Zofia found the castle again.", "The red kite rested on its tower."])
                #expect(placements(stored).map(\.id) == [castle, kite])
            }
        }
    }

    // MARK: 2. A malformed reply is retried once with the error, then fails clearly

    @Test func aMalformedReplyIsRetriedOnceWithTheErrorThenFailsClearly() async throws {
        let script = ScriptedReplies()
        try await StubChatServer.with(answering: { _, _ in script.next() }) { server in
            let setup = try await StorytellerTestService(environment: StorytellerTestService.model(server.baseURL))
            defer { setup.removeDrawings() }
            let service = setup.service
            let parent = try await service.headers("u-parent-ama")
            try await service.test(.live) { client in
                let child = try await addChild(client, parent, name: "Ama Mensah")
                let boat = try await addDrawing(client, parent, child: child, caption: "A green boat")
                script.set([.text("Once upon a time there was a green boat. {\"story_text\": "), .text("{\"story_text\": 42}")],
                           then: Self.story("Unused.", placing: [(boat, 1)]))
                let failed = try await tell(client, parent, child: child, drawings: [boat])
                #expect(failed.status == 502, "\(failed.text)")
                let error = try #require(object(failed.text)["error"] as? [String: Any])
                #expect(error["code"] as? String == "reply_invalid")
                #expect((error["message"] as? String ?? "").isEmpty == false)
                #expect(server.requests.count == 2, "one retry, no more")
                let first = try #require(server.requests.first?.messages)
                let retry = try #require(server.requests.last?.messages)
                #expect(retry.count == first.count + 2 && Array(retry.prefix(first.count)) == first, "the retry is the same request with two messages added")
                #expect(retry.dropFirst(first.count).first?.role == "assistant" && retry.dropFirst(first.count).first?.text.contains("green boat") == true,
                        "the malformed reply is shown back")
                let correction = try #require(retry.last)
                #expect(correction.role == "user" && correction.text.contains("not in the required form"), "the retry says what was wrong: \(correction.text)")
                let storyID = try #require((error["details"] as? [String: Any])?["story_id"] as? String)
                let messages = try await service.engine.chats.recentMessages(threadID: storyID, limit: 10, beforeSequence: nil)
                #expect(messages.count == 2)
                #expect(messages.first?.role == .user && messages.first?.status == .complete)
                #expect(messages.first?.content.contains("Tell a bedtime story") == true)
                #expect(messages.last?.role == .assistant && messages.last?.status == .failed)
                let read = object(try await live(client, .GET, "/api/storyteller/stories/\(storyID)", headers: parent).text)
                #expect((read["chapters"] as? [Any])?.isEmpty == true, "no chapter is stored for a failed reply")

                // Placements naming a drawing not given are invalid too; the retry's valid reply is the story.
                script.set([Self.story("Ama sailed the green boat.", placing: [(boat, 1), ("d-not-given", 1)]),
                            Self.story("Ama sailed the green boat home.", placing: [(boat, 1)])])
                let before = server.requests.count
                let told = try await tell(client, parent, child: child, drawings: [boat])
                #expect(told.status == 200, "\(told.text)")
                #expect(server.requests.count == before + 2)
                let correction2 = server.requests.last?.messages.last
                #expect(correction2?.role == "user" && correction2?.text.contains("d-not-given") == true, "the retry's error names the unknown drawing: \(correction2?.text ?? "")")
                let answer = object(told.text)
                #expect(answer["story_text"] as? String == "Ama sailed the green boat home.")
                #expect(placements(answer).map(\.id) == [boat])
                #expect(answer["sample"] as? Bool == false)
            }
        }
    }

    // MARK: 4. Continue story

    @Test func aNewChapterIsToldWithTheNamesOfTheFirst() async throws {
        let script = ScriptedReplies()
        try await StubChatServer.with(answering: { _, _ in script.next() }) { server in
            let setup = try await StorytellerTestService(environment: StorytellerTestService.model(server.baseURL))
            defer { setup.removeDrawings() }
            let service = setup.service
            let parent = try await service.headers("u-parent-li")
            try await service.test(.live) { client in
                let child = try await addChild(client, parent, name: "李秀英")
                let dragon = try await addDrawing(client, parent, child: child, caption: "A purple dragon")
                let tree = try await addDrawing(client, parent, child: child, image: try TestDrawings.jpeg(width: 40, height: 40), caption: "A tall tree")
                script.set([Self.story("李秀英 met a purple dragon called Pemberwick in the valley of Mossy Hollow.\n\nPemberwick sang softly until the moon rose.",
                                       placing: [(dragon, 1)])])
                let first = try await tell(client, parent, child: child, drawings: [dragon])
                #expect(first.status == 200, "\(first.text)")
                let storyID = try #require(object(first.text)["id"] as? String)
                #expect(!(server.requests.first?.promptText.contains("Pemberwick") ?? true))

                script.set([Self.story("The next day Pemberwick found a tall tree at the edge of Mossy Hollow.", placing: [(tree, 1)])])
                let second = try await live(client, .POST, "/api/storyteller/stories/\(storyID)/chapters", headers: parent, body: body(["drawing_ids": [tree]]))
                #expect(second.status == 200, "\(second.text)")
                let chapter = object(second.text)
                #expect(chapter["chapter"] as? Int == 2)
                #expect(chapter["id"] as? String == storyID)
                let prompt = try #require(server.requests.last?.promptText)
                #expect(prompt.contains("Pemberwick") && prompt.contains("Mossy Hollow"), "chapter 2's prompt carries chapter 1's names")
                #expect(server.requests.last?.messages.last?.imageURLs.count == 1, "only the new chapter's drawing is shown")

                let whole = object(try await live(client, .GET, "/api/storyteller/stories/\(storyID)", headers: parent).text)
                #expect((whole["chapters"] as? [[String: Any]])?.map { $0["number"] as? Int } == [1, 2])
                #expect(paragraphs(whole["story_text"] as? String ?? "").count == 3)
                #expect(placements(whole).map(\.id) == [dragon, tree])
                #expect(placements(whole).map(\.after) == [1, 3], "the second chapter's drawing counts the first chapter's paragraphs")
            }
        }
    }

    // MARK: 5. Uploads

    @Test func aDrawingIsStoredWithoutItsGPSAndRefusedWhenItIsHEICOrTooLarge() async throws {
        let setup = try await StorytellerTestService()
        defer { setup.removeDrawings() }
        let service = setup.service
        let parent = try await service.headers("u-parent-gps")
        try await service.test(.live) { client in
            let child = try await addChild(client, parent, name: "Ngozi Okafor")
            let photos = [try TestDrawings.jpegWithGPS(width: 64, height: 48), try TestDrawings.jpegWithGPS(width: 48, height: 64)]
            for photo in photos { #expect(photo.holds(TestDrawings.gpsMarker) && photo.holds("Exif")) }

            // multipart/form-data
            let form = multipartBody(fields: [("child_id", child), ("caption", "Le jardin de Łucja")], image: photos[0], filename: "IMG_0001.jpg")
            var formHeaders = parent
            formHeaders[.contentType] = form.contentType
            let multipart = try await live(client, .POST, "/api/storyteller/drawings", headers: formHeaders, body: form.body)
            #expect(multipart.status == 201, "\(multipart.text)")
            let fromForm = object(multipart.text)
            #expect(fromForm["caption"] as? String == "Le jardin de Łucja")
            #expect(fromForm["filename"] as? String == "IMG_0001.jpg")
            #expect(fromForm["media_type"] as? String == "image/jpeg")
            // JSON base64
            let json = try await upload(client, parent, child: child, image: photos[1], caption: "A rainbow")
            #expect(json.status == 201, "\(json.text)")
            let fromJSON = object(json.text)
            #expect(fromJSON["width"] as? Int == 48 && fromJSON["height"] as? Int == 64)

            let files = setup.storedFiles()
            #expect(files.count >= 2, "the drawings and their thumbnails are on disk")
            for file in files {
                #expect(!file.data.holds(TestDrawings.gpsMarker) && !file.data.holds("Exif") && !file.data.holds("GriotPhone"), "\(file.path) keeps metadata")
            }
            for drawing in [fromForm, fromJSON] {
                let id = try #require(drawing["id"] as? String)
                let image = try await live(client, .GET, "/api/storyteller/drawings/\(id)/image", headers: parent)
                #expect(image.status == 200)
                #expect(image.headers["content-type"] == "image/jpeg")
                #expect(image.data.prefix(2) == Data([0xFF, 0xD8]))
                #expect(!image.data.holds(TestDrawings.gpsMarker) && !image.data.holds("Exif"))
                #expect(image.data.count == drawing["bytes"] as? Int)
                #expect(files.contains { $0.data == image.data }, "the image served is the file stored")
                let thumbnail = try await live(client, .GET, "/api/storyteller/drawings/\(id)/thumbnail", headers: parent)
                #expect(thumbnail.status == 200 && thumbnail.data.prefix(2) == Data([0xFF, 0xD8]))
            }

            let heic = try await upload(client, parent, child: child, image: TestDrawings.heic, filename: "IMG_0002.HEIC")
            #expect(heic.status == 415)
            let heicError = try #require(object(heic.text)["error"] as? [String: Any])
            #expect(heicError["code"] as? String == "unsupported_image")
            #expect((heicError["message"] as? String ?? "").contains("HEIC") && (heicError["message"] as? String ?? "").contains("JPEG"), "\(heic.text)")

            var large = try TestDrawings.jpeg()
            large.append(Data(repeating: 0x42, count: 6 * 1024 * 1024))
            let tooLarge = try await upload(client, parent, child: child, image: large)
            #expect(tooLarge.status == 413)
            let tooLargeForm = multipartBody(fields: [("child_id", child)], image: large, filename: "big.jpg")
            var tooLargeHeaders = parent
            tooLargeHeaders[.contentType] = tooLargeForm.contentType
            let tooLargeMultipart = try await live(client, .POST, "/api/storyteller/drawings", headers: tooLargeHeaders, body: tooLargeForm.body)
            #expect(tooLargeMultipart.status == 413)
            #expect((object(tooLargeMultipart.text)["error"] as? [String: Any])?["code"] as? String == "drawing_too_large", "\(tooLargeMultipart.text)")
            #expect(setup.storedFiles().count == files.count, "nothing refused was stored")
        }
    }

    // MARK: 6. Another parent; share links

    @Test func anotherParentFindsNothingAndAShareLinkShowsTheStoryUntilRevoked() async throws {
        let setup = try await StorytellerTestService()
        defer { setup.removeDrawings() }
        let service = setup.service
        let parent = try await service.headers("u-parent-owner")
        let stranger = try await service.headers("u-parent-stranger")
        try await service.test(.live) { client in
            let child = try await addChild(client, parent, name: "Mia Rossi")
            let sun = try await addDrawing(client, parent, child: child, caption: "A smiling sun")
            let other = try await addDrawing(client, parent, child: child, image: try TestDrawings.jpeg(width: 30, height: 30), caption: "A boat not in the story")
            let told = try await tell(client, parent, child: child, drawings: [sun])
            #expect(told.status == 200, "\(told.text)")
            let storyID = try #require(object(told.text)["id"] as? String)

            for path in ["/api/storyteller/children/\(child)", "/api/storyteller/drawings/\(sun)", "/api/storyteller/drawings/\(sun)/image",
                         "/api/storyteller/drawings/\(sun)/thumbnail", "/api/storyteller/stories/\(storyID)", "/api/storyteller/stories/\(storyID)/shares",
                         "/api/storyteller/drawings?child_id=\(child)", "/api/storyteller/stories?child_id=\(child)"] {
                #expect(try await live(client, .GET, path, headers: stranger).status == 404, "GET \(path)")
            }
            #expect(try await live(client, .POST, "/api/storyteller/stories/\(storyID)/chapters", headers: stranger, body: body(["drawing_ids": [sun]])).status == 404)
            #expect(try await live(client, .POST, "/api/storyteller/stories/\(storyID)/shares", headers: stranger).status == 404)
            #expect(try await live(client, .PATCH, "/api/storyteller/children/\(child)", headers: stranger, body: body(["name": "Taken"])).status == 404)
            #expect(try await tell(client, stranger, child: child, drawings: [sun]).status == 404)
            let strangersChild = try await addChild(client, stranger, name: "Other Kid")
            #expect(try await tell(client, stranger, child: strangersChild, drawings: [sun]).status == 404, "another parent's drawing is not theirs to tell")
            #expect(try await upload(client, stranger, child: child, image: try TestDrawings.jpeg()).status == 404)
            #expect(try await live(client, .DELETE, "/api/storyteller/drawings/\(sun)", headers: stranger).status == 404)
            #expect(try await live(client, .DELETE, "/api/storyteller/children/\(child)", headers: stranger).status == 404)
            #expect(try await live(client, .GET, "/api/storyteller/children/\(child)", headers: parent).status == 200, "still there for its parent")

            let shared = try await live(client, .POST, "/api/storyteller/stories/\(storyID)/shares", headers: parent)
            #expect(shared.status == 201, "\(shared.text)")
            let token = try #require(object(shared.text)["token"] as? String)
            let url = try #require(object(shared.text)["url"] as? String)
            #expect(token.count >= 22)
            let page = try await live(client, .GET, url)
            #expect(page.status == 200)
            #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
            let story = object(try await live(client, .GET, "/api/storyteller/stories/\(storyID)", headers: parent).text)
            let text = try #require(story["story_text"] as? String)
            for paragraph in paragraphs(text) where !paragraph.contains("'") && !paragraph.contains("\"") && !paragraph.contains("&") {
                #expect(page.text.contains("<p>\(paragraph)</p>"), "the page holds \(paragraph)")
            }
            let image = "/api/storyteller/shared/\(token)/drawings/\(sun)"
            #expect(page.text.contains("<img src=\"\(image)\""))
            #expect(!page.text.contains(other))
            let drawing = try await live(client, .GET, image)
            #expect(drawing.status == 200 && drawing.data.prefix(2) == Data([0xFF, 0xD8]))
            #expect(try await live(client, .GET, "/api/storyteller/shared/\(token)/drawings/\(other)").status == 404, "only the story's drawings")
            #expect(try await live(client, .GET, "/api/storyteller/shared/\(token.dropLast(2))xx").status == 404)

            #expect(try await live(client, .DELETE, "/api/storyteller/shares/\(token)", headers: stranger).status == 404)
            #expect(try await live(client, .GET, url).status == 200, "a stranger cannot revoke it")
            let revoked = try await live(client, .DELETE, "/api/storyteller/shares/\(token)", headers: parent)
            #expect(revoked.status == 200)
            #expect(object(revoked.text)["revoked_at"] != nil)
            #expect(try await live(client, .GET, url).status == 404)
            #expect(try await live(client, .GET, image).status == 404)
        }
    }

    // MARK: 7. Offline and downtime

    @Test func withoutAModelTheStoryIsASampleWithEveryDrawingPlaced() async throws {
        let setup = try await StorytellerTestService()
        defer { setup.removeDrawings() }
        let service = setup.service
        let parent = try await service.headers("u-parent-offline")
        try await service.test(.live) { client in
            let child = try await addChild(client, parent, name: "Kwame Asante")
            var drawings: [String] = []
            for (index, caption) in ["A yellow bus", "Grandma's garden", "A sleepy owl"].enumerated() {
                drawings.append(try await addDrawing(client, parent, child: child, image: try TestDrawings.jpeg(width: 20 + index, height: 20), caption: caption))
            }
            var streaming = parent
            streaming[.accept] = "text/event-stream"
            let streamed = frames(try await tell(client, streaming, child: child, drawings: drawings).text)
            #expect(streamed.last?.data["status"] as? String == "complete")
            let shown = streamed.filter { $0.event == "delta" }.compactMap { $0.data["text"] as? String }.joined()
            #expect(shown.hasPrefix(TemplateStoryteller.sampleNotice), "the reader is told it is a sample: \(shown)")

            let told = try await tell(client, parent, child: child, drawings: drawings)
            #expect(told.status == 200, "\(told.text)")
            let answer = object(told.text)
            #expect(answer["sample"] as? Bool == true)
            #expect(answer["model"] as? String == TemplateStoryteller.modelName)
            let text = answer["story_text"] as? String ?? ""
            let storyID = try #require(answer["id"] as? String)
            let share = object(try await live(client, .POST, "/api/storyteller/stories/\(storyID)/shares", headers: parent).text)
            let page = try await live(client, .GET, try #require(share["url"] as? String))
            #expect(page.text.contains("class=\"sample\""), "the shared page says it is a sample")
            #expect(text.contains("Kwame") && !text.contains("Asante"))
            #expect(text.contains("A yellow bus") && text.contains("A sleepy owl"))
            #expect(Set(placements(answer).map(\.id)) == Set(drawings) && placements(answer).count == drawings.count)
            let count = paragraphs(text).count
            #expect(placements(answer).allSatisfy { (1...count).contains($0.after) })
        }
    }

    @Test func withTheModelDownTheStorytellerFallsBackToTheSample() async throws {
        // A port nothing listens on: the stub is started and stopped first.
        let stopped = try await StubChatServer.start { _ in .error(status: 500, message: "unused") }
        let baseURL = stopped.baseURL
        try await stopped.stop()
        try await StubChatServer.with({ _ in .error(status: 503, message: "overloaded") }) { failing in
            for url in [baseURL, failing.baseURL] {
                let setup = try await StorytellerTestService(environment: StorytellerTestService.model(url))
                defer { setup.removeDrawings() }
                let service = setup.service
                let parent = try await service.headers("u-parent-down")
                try await service.test(.live) { client in
                    let child = try await addChild(client, parent, name: "Lea Müller")
                    let fox = try await addDrawing(client, parent, child: child, caption: "A red fox")
                    let told = try await tell(client, parent, child: child, drawings: [fox])
                    #expect(told.status == 200, "\(url): \(told.text)")
                    let answer = object(told.text)
                    #expect(answer["sample"] as? Bool == true, "\(url)")
                    #expect(answer["model"] as? String == TemplateStoryteller.modelName)
                    #expect((answer["story_text"] as? String ?? "").contains("A red fox"))
                    #expect(placements(answer).map(\.id) == [fox])
                }
            }
            #expect(failing.requests.count >= 1, "the model was asked before the sample was told")
        }
    }
}
