import Foundation
import GriotArchive
import GriotAuth
import GriotChat
import GriotPrompts
import GriotProviders
@testable import GriotServer
import GriotStore
import GriotTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import Testing

extension RouteStatusTests {
    /// The storyteller's part of `everyDocumentedStatusIsProducedAndErrorsHaveTheirShape`: every
    /// status of its routes, by real requests to a service with the storyteller behind the vision
    /// stub (a malformed reply twice is the 502), and one with a limit of a message a minute (429).
    /// Their 403 (a region the node keeps no database for) and the other routes' 429 come from the
    /// main test's loops over `AccessPolicy.rules`. Answers what each operation produced.
    static func storytellerStatuses() async throws -> [String: Set<Int>] {
        let script = ScriptedReplies()
        var covered = try await StubChatServer.with(answering: { _, _ in script.next() }) { server -> [String: Set<Int>] in
            let setup = try await StorytellerTestService(environment: StorytellerTestService.model(server.baseURL))
            defer { setup.removeDrawings() }
            let service = setup.service
            let parent = try await service.headers("u-parent-status")
            let stranger = try await service.headers("u-parent-other")
            let anonymous: HTTPFields = [.contentType: "application/json"]
            let huge = ByteBuffer(repeating: UInt8(ascii: " "), count: 9 * 1024 * 1024)
            let harmful = "Shut up, you idiot. You are worthless trash and everyone hates you."
            return try await service.test(.live) { client -> [String: Set<Int>] in
                var covered: [String: Set<Int>] = [:]
                func run(_ cases: [Case]) async throws {
                    for test in cases {
                        let response = try await live(client, test.method, test.path, headers: test.headers, body: test.body)
                        #expect(response.status == test.status, "\(test.method) \(test.path): \(response.status) \(response.text.prefix(200))")
                        if test.status >= 400 {
                            let error = object(response.text)["error"] as? [String: Any]
                            #expect(error?["code"] is String && error?["message"] is String && error?["details"] is [String: Any],
                                    "\(test.method) \(test.path): \(response.text.prefix(200))")
                        }
                        covered[test.operation, default: []].insert(test.status)
                    }
                }
                func created(_ response: LiveResponse) throws -> String {
                    #expect(response.status == 201, "\(response.text.prefix(200))")
                    return try #require(object(response.text)["id"] as? String)
                }
                func upload(_ child: String, _ image: Data) -> ByteBuffer {
                    body(["child_id": child, "image_base64": image.base64EncodedString(), "caption": "Le jardin de Łucja"])
                }
                // Fixtures: a child with a drawing (the one every story below is told from), a story.
                let child = try created(try await live(client, .POST, "/api/storyteller/children", headers: parent, body: body(["name": "Zofia Łukasiewicz", "age": 6])))
                let leaving = try created(try await live(client, .POST, "/api/storyteller/children", headers: parent, body: body(["name": "李秀英"])))
                let drawing = try created(try await live(client, .POST, "/api/storyteller/drawings", headers: parent, body: upload(child, try TestDrawings.jpeg())))
                let discarded = try created(try await live(client, .POST, "/api/storyteller/drawings", headers: parent,
                                                           body: upload(child, TestDrawings.png(width: 40, height: 30))))
                script.set([], then: StorytellerRouteTests.story("Zofia drew a garden.\n\nThen she slept.", placing: [(drawing, 1)]))
                let told = try await live(client, .POST, "/api/storyteller/stories", headers: parent, body: body(["child_id": child, "drawing_ids": [drawing]]))
                #expect(told.status == 200, "\(told.text.prefix(200))")
                let story = try #require(object(told.text)["id"] as? String)
                covered["POST /api/storyteller/stories", default: []].insert(told.status)
                let shared = try await live(client, .POST, "/api/storyteller/stories/\(story)/shares", headers: parent)
                #expect(shared.status == 201, "\(shared.text.prefix(200))")
                let token = try #require(object(shared.text)["token"] as? String)
                covered["POST /api/storyteller/stories/{id}/shares", default: []].insert(shared.status)
                // A drawing that is in no story, for the shared link's 404.
                let unshown = try created(try await live(client, .POST, "/api/storyteller/drawings", headers: parent,
                                                         body: upload(child, TestDrawings.png(width: 30, height: 40))))
                let tooLarge = try TestDrawings.jpeg() + Data(repeating: 0x42, count: 6 * 1024 * 1024)

                let children = "POST /api/storyteller/children", list = "GET /api/storyteller/children", one = "GET /api/storyteller/children/{id}"
                let patch = "PATCH /api/storyteller/children/{id}", remove = "DELETE /api/storyteller/children/{id}"
                let add = "POST /api/storyteller/drawings", drawings = "GET /api/storyteller/drawings", read = "GET /api/storyteller/drawings/{id}"
                let image = "GET /api/storyteller/drawings/{id}/image", thumbnail = "GET /api/storyteller/drawings/{id}/thumbnail"
                let discard = "DELETE /api/storyteller/drawings/{id}", tell = "POST /api/storyteller/stories", stories = "GET /api/storyteller/stories"
                let whole = "GET /api/storyteller/stories/{id}", chapters = "POST /api/storyteller/stories/{id}/chapters"
                let share = "POST /api/storyteller/stories/{id}/shares", shares = "GET /api/storyteller/stories/{id}/shares"
                let pdf = "GET /api/storyteller/stories/{id}/pdf", revoke = "DELETE /api/storyteller/shares/{token}"
                let page = "GET /api/storyteller/shared/{token}", sharedDrawing = "GET /api/storyteller/shared/{token}/drawings/{id}"
                try await run([
                    Case(method: .POST, path: "/api/storyteller/children", operation: children, status: 400, headers: parent, body: body(["age": 6])),
                    Case(method: .POST, path: "/api/storyteller/children", operation: children, status: 401, headers: anonymous, body: body(["name": "Ama"])),
                    Case(method: .POST, path: "/api/storyteller/children", operation: children, status: 413, headers: parent, body: huge),
                    Case(method: .GET, path: "/api/storyteller/children", operation: list, status: 200, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/children", operation: list, status: 401, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/children/\(child)", operation: one, status: 200, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/children/\(child)", operation: one, status: 401, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/children/\(child)", operation: one, status: 404, headers: stranger),
                    Case(method: .PATCH, path: "/api/storyteller/children/\(child)", operation: patch, status: 200, headers: parent, body: body(["name": "Zofia", "age": 7])),
                    Case(method: .PATCH, path: "/api/storyteller/children/\(child)", operation: patch, status: 400, headers: parent, body: body(["name": "Zofia", "age": 99])),
                    Case(method: .PATCH, path: "/api/storyteller/children/\(child)", operation: patch, status: 401, headers: anonymous, body: body(["name": "Zofia"])),
                    Case(method: .PATCH, path: "/api/storyteller/children/\(child)", operation: patch, status: 404, headers: stranger, body: body(["name": "Zofia"])),
                    Case(method: .PATCH, path: "/api/storyteller/children/\(child)", operation: patch, status: 413, headers: parent, body: huge),
                    Case(method: .DELETE, path: "/api/storyteller/children/\(leaving)", operation: remove, status: 401, headers: anonymous),
                    Case(method: .DELETE, path: "/api/storyteller/children/\(leaving)", operation: remove, status: 404, headers: stranger),
                    Case(method: .DELETE, path: "/api/storyteller/children/\(leaving)", operation: remove, status: 204, headers: parent),
                    Case(method: .DELETE, path: "/api/storyteller/children/\(leaving)", operation: remove, status: 404, headers: parent),

                    Case(method: .POST, path: "/api/storyteller/drawings", operation: add, status: 400, headers: parent, body: body(["child_id": child])),
                    Case(method: .POST, path: "/api/storyteller/drawings", operation: add, status: 401, headers: anonymous, body: upload(child, try TestDrawings.jpeg())),
                    Case(method: .POST, path: "/api/storyteller/drawings", operation: add, status: 404, headers: stranger, body: upload(child, try TestDrawings.jpeg())),
                    Case(method: .POST, path: "/api/storyteller/drawings", operation: add, status: 413, headers: parent, body: upload(child, tooLarge)),
                    Case(method: .POST, path: "/api/storyteller/drawings", operation: add, status: 415, headers: parent, body: upload(child, TestDrawings.heic)),
                    Case(method: .GET, path: "/api/storyteller/drawings?child_id=\(child)", operation: drawings, status: 200, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/drawings", operation: drawings, status: 400, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/drawings?child_id=\(child)", operation: drawings, status: 401, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/drawings?child_id=\(child)", operation: drawings, status: 404, headers: stranger),
                    Case(method: .GET, path: "/api/storyteller/drawings/\(drawing)", operation: read, status: 200, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/drawings/\(drawing)", operation: read, status: 401, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/drawings/\(drawing)", operation: read, status: 404, headers: stranger),
                    Case(method: .GET, path: "/api/storyteller/drawings/\(drawing)/image", operation: image, status: 200, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/drawings/\(drawing)/image", operation: image, status: 401, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/drawings/\(drawing)/image", operation: image, status: 404, headers: stranger),
                    Case(method: .GET, path: "/api/storyteller/drawings/\(drawing)/thumbnail", operation: thumbnail, status: 200, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/drawings/\(drawing)/thumbnail", operation: thumbnail, status: 401, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/drawings/\(drawing)/thumbnail", operation: thumbnail, status: 404, headers: stranger),
                    Case(method: .DELETE, path: "/api/storyteller/drawings/\(discarded)", operation: discard, status: 401, headers: anonymous),
                    Case(method: .DELETE, path: "/api/storyteller/drawings/\(discarded)", operation: discard, status: 404, headers: stranger),
                    Case(method: .DELETE, path: "/api/storyteller/drawings/\(discarded)", operation: discard, status: 204, headers: parent),
                    Case(method: .DELETE, path: "/api/storyteller/drawings/\(discarded)", operation: discard, status: 404, headers: parent),

                    Case(method: .POST, path: "/api/storyteller/stories", operation: tell, status: 400, headers: parent, body: body(["child_id": child, "drawing_ids": [String]()])),
                    Case(method: .POST, path: "/api/storyteller/stories", operation: tell, status: 401, headers: anonymous, body: body(["child_id": child, "drawing_ids": [drawing]])),
                    Case(method: .POST, path: "/api/storyteller/stories", operation: tell, status: 404, headers: stranger, body: body(["child_id": child, "drawing_ids": [drawing]])),
                    Case(method: .POST, path: "/api/storyteller/stories", operation: tell, status: 413, headers: parent, body: huge),
                    Case(method: .POST, path: "/api/storyteller/stories", operation: tell, status: 422, headers: parent,
                         body: body(["child_id": child, "drawing_ids": [drawing], "theme": harmful])),
                    Case(method: .GET, path: "/api/storyteller/stories?child_id=\(child)", operation: stories, status: 200, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/stories", operation: stories, status: 400, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/stories?child_id=\(child)", operation: stories, status: 401, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/stories?child_id=\(child)", operation: stories, status: 404, headers: stranger),
                    Case(method: .GET, path: "/api/storyteller/stories/\(story)", operation: whole, status: 200, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/stories/\(story)", operation: whole, status: 401, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/stories/\(story)", operation: whole, status: 404, headers: stranger),
                    Case(method: .POST, path: "/api/storyteller/stories/\(story)/chapters", operation: chapters, status: 200, headers: parent, body: body(["drawing_ids": [drawing]])),
                    Case(method: .POST, path: "/api/storyteller/stories/\(story)/chapters", operation: chapters, status: 400, headers: parent, body: body(["drawing_ids": [String]()])),
                    Case(method: .POST, path: "/api/storyteller/stories/\(story)/chapters", operation: chapters, status: 401, headers: anonymous, body: body(["drawing_ids": [drawing]])),
                    Case(method: .POST, path: "/api/storyteller/stories/\(story)/chapters", operation: chapters, status: 404, headers: stranger, body: body(["drawing_ids": [drawing]])),
                    Case(method: .POST, path: "/api/storyteller/stories/\(story)/chapters", operation: chapters, status: 413, headers: parent, body: huge),
                    Case(method: .POST, path: "/api/storyteller/stories/\(story)/chapters", operation: chapters, status: 422, headers: parent,
                         body: body(["drawing_ids": [drawing], "theme": harmful])),
                    Case(method: .POST, path: "/api/storyteller/stories/\(story)/shares", operation: share, status: 401, headers: anonymous),
                    Case(method: .POST, path: "/api/storyteller/stories/\(story)/shares", operation: share, status: 404, headers: stranger),
                    Case(method: .GET, path: "/api/storyteller/stories/\(story)/shares", operation: shares, status: 200, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/stories/\(story)/shares", operation: shares, status: 401, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/stories/\(story)/shares", operation: shares, status: 404, headers: stranger),
                    Case(method: .GET, path: "/api/storyteller/stories/\(story)/pdf", operation: pdf, status: 200, headers: parent),
                    Case(method: .GET, path: "/api/storyteller/stories/\(story)/pdf", operation: pdf, status: 401, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/stories/\(story)/pdf", operation: pdf, status: 404, headers: stranger),
                    Case(method: .GET, path: "/api/storyteller/shared/\(token)", operation: page, status: 200, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/shared/\(token.dropLast(2))xx", operation: page, status: 404, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/shared/\(token)/drawings/\(drawing)", operation: sharedDrawing, status: 200, headers: anonymous),
                    Case(method: .GET, path: "/api/storyteller/shared/\(token)/drawings/\(unshown)", operation: sharedDrawing, status: 404, headers: anonymous),
                    Case(method: .DELETE, path: "/api/storyteller/shares/\(token)", operation: revoke, status: 401, headers: anonymous),
                    Case(method: .DELETE, path: "/api/storyteller/shares/\(token)", operation: revoke, status: 404, headers: stranger),
                    Case(method: .DELETE, path: "/api/storyteller/shares/\(token)", operation: revoke, status: 200, headers: parent),
                ])

                // 502: the model's reply is malformed, and so is the one it is asked again for.
                for (path, operation, payload) in [("/api/storyteller/stories", tell, body(["child_id": child, "drawing_ids": [drawing]])),
                                                   ("/api/storyteller/stories/\(story)/chapters", chapters, body(["drawing_ids": [drawing]]))] {
                    script.set([.text("Once upon a time {\"story_text\": "), .text("{\"story_text\": 42}")])
                    try await run([Case(method: .POST, path: path, operation: operation, status: 502, headers: parent, body: payload)])
                }

                // 409: past the most children a parent may have (20), and the most drawings a child may (500, stored directly).
                var added = try await live(client, .POST, "/api/storyteller/children", headers: parent, body: body(["name": "Kofi"]))
                for _ in 0..<25 where added.status == 201 {
                    added = try await live(client, .POST, "/api/storyteller/children", headers: parent, body: body(["name": "Kofi"]))
                }
                #expect(added.status == 409 && (object(added.text)["error"] as? [String: Any])?["code"] as? String == "too_many_children", "\(added.text.prefix(200))")
                covered[children, default: []].formUnion([201, added.status])
                let store = try #require(service.engine.chats as? any StorytellerStore)
                let hash = try #require(try await store.drawing(id: drawing, parentID: "u-parent-status")?.contentHash)
                for number in 1...500 {
                    _ = try await store.addDrawing(DrawingRecord(parentID: "u-parent-status", childID: child, contentHash: hash, mediaType: "image/jpeg",
                                                                 byteCount: 1000, width: 64, height: 48, caption: "drawing \(number)"))
                }
                try await run([Case(method: .POST, path: "/api/storyteller/drawings", operation: add, status: 409, headers: parent, body: upload(child, try TestDrawings.jpeg()))])
                covered[add, default: []].insert(201)

                // 410: the drawing's files are gone from the data folder (the database still names it).
                setup.removeDrawings()
                try await run([Case(method: .GET, path: "/api/storyteller/drawings/\(drawing)/image", operation: image, status: 410, headers: parent),
                               Case(method: .GET, path: "/api/storyteller/drawings/\(drawing)/thumbnail", operation: thumbnail, status: 410, headers: parent)])
                return covered
            }
        }

        // 429: a story and a chapter over a limit of one message a minute.
        let storage = try await TestDatabase.storage()
        let drawings = FileManager.default.temporaryDirectory.appendingPathComponent("griot-drawings-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: drawings) }
        let storyteller = try await StorytellerSetup.declaration(chats: storage.chats, drawings: drawings, environment: [:])
        let engine = ChatEngine(archive: StoryArchive(storage: storage), chats: storage.chats,
                                prompts: try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts")),
                                provider: ExtractiveResponder(), counters: .bytePair, assistants: AssistantCatalog.builtIn.adding(storyteller))
        let verifier = try await TokenVerifier.make(AuthConfiguration(environment: ["GRIOT_AUTH_MODE": "development"]))
        let limited = try GriotService(engine: engine, verifier: verifier, turns: TurnRegistry(grace: 10), limits: [.perMinute(1)])
        let token = try await verifier.mintDevelopmentToken(userID: "u-parent-limited", role: .client, courseIDs: nil, expiresIn: 600)
        let parent: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
        let limitedOperations = try await Application(router: limited.router(), server: GriotService.server).test(.live) { client -> [String] in
            var refusedOperations: [String] = []
            let child = try #require(object(try await live(client, .POST, "/api/storyteller/children", headers: parent, body: body(["name": "Sam"])).text)["id"] as? String)
            let added = try await live(client, .POST, "/api/storyteller/drawings", headers: parent,
                                       body: body(["child_id": child, "image_base64": try TestDrawings.jpeg().base64EncodedString()]))
            let drawing = try #require(object(added.text)["id"] as? String)
            let first = try await live(client, .POST, "/api/storyteller/stories", headers: parent, body: body(["child_id": child, "drawing_ids": [drawing]]))
            #expect(first.status == 200, "\(first.text.prefix(200))")
            let story = try #require(object(first.text)["id"] as? String)
            for (path, operation, payload) in [("/api/storyteller/stories", "POST /api/storyteller/stories", body(["child_id": child, "drawing_ids": [drawing]])),
                                               ("/api/storyteller/stories/\(story)/chapters", "POST /api/storyteller/stories/{id}/chapters", body(["drawing_ids": [drawing]]))] {
                let refused = try await live(client, .POST, path, headers: parent, body: payload)
                #expect(refused.status == 429 && refused.headers["retry-after"] != nil, "\(path): \(refused.status) \(refused.text.prefix(200))")
                #expect((object(refused.text)["error"] as? [String: Any])?["code"] as? String == "rate_limited")
                if refused.status == 429 { refusedOperations.append(operation) }
            }
            return refusedOperations
        }
        for operation in limitedOperations { covered[operation, default: []].insert(429) }
        return covered
    }
}
