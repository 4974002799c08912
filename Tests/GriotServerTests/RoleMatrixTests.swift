import AsyncHTTPClient
import Foundation
import GriotAuth
import GriotStore
@testable import GriotServer
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import Testing
import Yams

/// Issue 24, item 2: who may do what, as a table, tested as a table. Every operation of
/// openapi.yaml is called by each of six callers over HTTP, and each gets the status its
/// `x-access` documents; the README's table says the same, and every route has a row in
/// `AccessPolicy.rules`, the one table the service enforces. A new route without its row, its
/// `x-access` or a request here fails this suite.
@Suite struct RoleMatrixTests {
    static let roles = ["client", "course_coach", "other_coach", "admin", "operator", "no_token"]

    /// "METHOD /path" → role → status, from each operation's `x-access` in openapi.yaml.
    static func documented() throws -> [String: [String: Int]] {
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.text) as? [String: Any])
        var matrix: [String: [String: Int]] = [:]
        for (path, item) in try #require(document["paths"] as? [String: Any]) {
            for (method, operation) in item as? [String: Any] ?? [:] where ["get", "post", "put", "patch", "delete"].contains(method) {
                let access = (operation as? [String: Any])?["x-access"] as? [String: Any] ?? [:]
                matrix["\(method.uppercased()) \(path)"] = access.compactMapValues { $0 as? Int }
            }
        }
        return matrix
    }

    /// The same, from the README's table "Who may do what" (rows "| `METHOD /path` | 200 | … |").
    static func readme() throws -> [String: [String: Int]] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "<!-- role-matrix -->").dropFirst().first)
        var matrix: [String: [String: Int]] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let operation = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            matrix[operation] = Dictionary(uniqueKeysWithValues: zip(roles, cells.dropFirst().compactMap { Int($0) }))
        }
        return matrix
    }

    @Test func everyRouteHasOneRuleAndADocumentedStatusForEachRole() async throws {
        let service = try await TestService()
        let routes = Set(service.service.router().routes.map { "\($0.method) \($0.path)" })
        let documented = try Self.documented()
        let readme = try Self.readme()
        #expect(Set(documented.keys) == routes, "openapi.yaml and the router disagree")
        for route in routes.sorted() {
            #expect(AccessPolicy.rules[route] != nil, "\(route) has no row in AccessPolicy.rules")
            #expect(Set(documented[route]?.keys.map { $0 } ?? []) == Set(Self.roles), "\(route): x-access must give a status for each of \(Self.roles)")
            #expect(readme[route] == documented[route], "\(route): the README's row \(readme[route] ?? [:]) differs from x-access \(documented[route] ?? [:])")
            #expect(Self.requests[route] != nil, "\(route) has no request in RoleMatrixTests.requests")
        }
        #expect(Set(AccessPolicy.rules.keys) == routes, "rules for routes that do not exist: \(Set(AccessPolicy.rules.keys).subtracting(routes).sorted())")
    }

    /// What one role's requests work on: a client of course-7 with a coaching thread (one
    /// exchange), a Griot session, and a story id of its own, so that a delete by one role
    /// leaves the others' fixtures alone.
    struct Fixture {
        var owner: String
        var thread: String
        var messageID: String
        var session: String
        var turnID: String
        var story: String
        /// A support grant the fixture's client gave.
        var grant: String
        /// An API key (made for this role's requests, so that a revoke by one role leaves the others' alone).
        var key: String
        /// The assistant's reply in the coaching thread (the asker may report it).
        var replyID: String
        /// A review ticket on the coaching turn (each role's own, so one role's resolve leaves the others' open).
        var ticket: String
        /// The storyteller's: a child of the client's, a drawing of it, a story told from it and a link to the story.
        var child: String
        var drawing: String
        var bedtimeStory: String
        var share: String
        var service: TestService
    }

    struct Call {
        var method: NIOHTTP1.HTTPMethod
        var path: String
        var body: ByteBuffer?
        var headers: HTTPFields = [:]
        /// A stream that stays open while it lasts (Server-Sent Events): only its status is read.
        var streamed = false
    }

    /// A well-formed request for each operation, in the order a role makes them (deletes last).
    static let order: [String] = [
        "GET /healthz", "GET /readyz", "GET /metrics", "GET /openapi.yaml",
        "POST /api/griot/chat", "POST /api/griot/chat/stream", "GET /api/griot/sessions", "GET /api/griot/sessions/{id}",
        "GET /api/stories/search", "GET /api/stories/near", "POST /api/stories", "DELETE /api/stories/{id}",
        "POST /api/coach/threads", "GET /api/coach/threads/{id}/messages", "POST /api/coach/threads/{id}/messages",
        "POST /api/coach/threads/{id}/stop", "PUT /api/coach/courses/{id}/instructions", "GET /api/coach/threads/{id}/export",
        "GET /api/audit", "GET /api/messages/{id}/retained", "GET /api/ops/turns", "POST /api/ops/replay",
        "GET /api/ops/turns/{id}", "GET /api/ops/dashboard", "GET /api/ops/dashboard/stream", "GET /api/ops/prompts",
        "POST /api/ops/prompts/{assistant}/promote",
        "GET /api/ops/reviews", "GET /api/ops/reviews/{id}", "POST /api/ops/reviews/{id}/acknowledge", "POST /api/ops/reviews/{id}/resolve",
        "POST /api/messages/{id}/report",
        "POST /api/support-grants", "GET /api/support-grants", "DELETE /api/support-grants/{id}",
        "GET /v1/models", "POST /v1/chat/completions", "POST /v1/moderations",
        "POST /api/storyteller/children", "GET /api/storyteller/children", "GET /api/storyteller/children/{id}", "PATCH /api/storyteller/children/{id}",
        "POST /api/storyteller/drawings", "GET /api/storyteller/drawings", "GET /api/storyteller/drawings/{id}",
        "GET /api/storyteller/drawings/{id}/image", "GET /api/storyteller/drawings/{id}/thumbnail",
        "POST /api/storyteller/stories", "GET /api/storyteller/stories", "GET /api/storyteller/stories/{id}", "GET /api/storyteller/stories/{id}/pdf", "POST /api/storyteller/stories/{id}/chapters",
        "POST /api/storyteller/stories/{id}/shares", "GET /api/storyteller/stories/{id}/shares",
        "GET /api/storyteller/shared/{token}", "GET /api/storyteller/shared/{token}/drawings/{id}",
        "DELETE /api/storyteller/shares/{token}", "DELETE /api/storyteller/drawings/{id}", "DELETE /api/storyteller/children/{id}",
        "POST /api/admin/keys", "GET /api/admin/keys", "DELETE /api/admin/keys/{id}",
        "PATCH /api/coach/messages/{id}", "DELETE /api/coach/messages/{id}",
        "DELETE /api/griot/sessions/{id}", "DELETE /api/users/{id}",
    ]

    static let requests: [String: @Sendable (Fixture) async throws -> Call] = [
        "GET /healthz": { _ in Call(method: .GET, path: "/healthz") },
        "GET /readyz": { _ in Call(method: .GET, path: "/readyz") },
        "GET /metrics": { _ in Call(method: .GET, path: "/metrics") },
        "GET /openapi.yaml": { _ in Call(method: .GET, path: "/openapi.yaml") },
        "POST /api/griot/chat": { _ in Call(method: .POST, path: "/api/griot/chat", body: body(["message": "Who kept bees?"])) },
        "POST /api/griot/chat/stream": { _ in Call(method: .POST, path: "/api/griot/chat/stream", body: body(["message": "Who kept bees?"])) },
        "GET /api/griot/sessions": { _ in Call(method: .GET, path: "/api/griot/sessions") },
        "GET /api/griot/sessions/{id}": { f in Call(method: .GET, path: "/api/griot/sessions/\(f.session)") },
        "DELETE /api/griot/sessions/{id}": { f in Call(method: .DELETE, path: "/api/griot/sessions/\(f.session)") },
        "GET /api/stories/search": { _ in Call(method: .GET, path: "/api/stories/search?q=flood") },
        "GET /api/stories/near": { _ in Call(method: .GET, path: "/api/stories/near?lat=33.4&lon=-91.06&radius_km=50") },
        "POST /api/stories": { f in
            Call(method: .POST, path: "/api/stories", body: body([
                "artifact_id": f.story, "title": "The Lantern Walk", "privacy": "public", "owner_user_id": "u-admin",
                "transcript": "Every winter solstice we carried paper lanterns down Quillfeather Lane and sang the old counting song.",
            ]))
        },
        "DELETE /api/stories/{id}": { f in Call(method: .DELETE, path: "/api/stories/\(f.story)") },
        "POST /api/coach/threads": { _ in Call(method: .POST, path: "/api/coach/threads", body: body(["course_id": "course-7"])) },
        "GET /api/coach/threads/{id}/messages": { f in Call(method: .GET, path: "/api/coach/threads/\(f.thread)/messages") },
        "POST /api/coach/threads/{id}/messages": { f in
            Call(method: .POST, path: "/api/coach/threads/\(f.thread)/messages", body: body(["content": "One more thing about my week."]))
        },
        "POST /api/coach/threads/{id}/stop": { f in Call(method: .POST, path: "/api/coach/threads/\(f.thread)/stop") },
        "PUT /api/coach/courses/{id}/instructions": { _ in
            Call(method: .PUT, path: "/api/coach/courses/course-7/instructions", body: body(["instructions": "Keep replies short."]))
        },
        "GET /api/coach/threads/{id}/export": { f in Call(method: .GET, path: "/api/coach/threads/\(f.thread)/export") },
        "PATCH /api/coach/messages/{id}": { f in
            let etag = try #require(try await f.service.engine.chats.message(id: f.messageID)?.etag)
            return Call(method: .PATCH, path: "/api/coach/messages/\(f.messageID)", body: body(["content": "Hello, coach."]), headers: [.ifMatch: etag])
        },
        "DELETE /api/coach/messages/{id}": { f in Call(method: .DELETE, path: "/api/coach/messages/\(f.messageID)") },
        "DELETE /api/users/{id}": { f in Call(method: .DELETE, path: "/api/users/\(f.owner)") },
        "GET /api/audit": { _ in Call(method: .GET, path: "/api/audit?limit=5") },
        "GET /api/messages/{id}/retained": { f in Call(method: .GET, path: "/api/messages/\(f.messageID)/retained") },
        "GET /api/ops/turns": { _ in Call(method: .GET, path: "/api/ops/turns?limit=5") },
        "POST /api/ops/replay": { f in Call(method: .POST, path: "/api/ops/replay", body: body(["id": f.turnID, "cassette": true])) },
        "GET /api/ops/turns/{id}": { f in Call(method: .GET, path: "/api/ops/turns/\(f.turnID)") },
        "GET /api/ops/dashboard": { _ in Call(method: .GET, path: "/api/ops/dashboard?range=15m") },
        "GET /api/ops/dashboard/stream": { _ in Call(method: .GET, path: "/api/ops/dashboard/stream?range=15m", streamed: true) },
        "GET /api/ops/prompts": { _ in Call(method: .GET, path: "/api/ops/prompts") },
        // griot v2 (a reworded instruction) judged by the offline responder on the checkout copy's one small eval file.
        "POST /api/ops/prompts/{assistant}/promote": { _ in
            Call(method: .POST, path: "/api/ops/prompts/griot/promote", body: body(["version": 2, "allow_offline": true]))
        },
        "GET /api/ops/reviews": { _ in Call(method: .GET, path: "/api/ops/reviews?limit=5") },
        "GET /api/ops/reviews/{id}": { f in Call(method: .GET, path: "/api/ops/reviews/\(f.ticket)") },
        "POST /api/ops/reviews/{id}/acknowledge": { f in Call(method: .POST, path: "/api/ops/reviews/\(f.ticket)/acknowledge") },
        "POST /api/ops/reviews/{id}/resolve": { f in
            Call(method: .POST, path: "/api/ops/reviews/\(f.ticket)/resolve", body: body(["resolution": "Checked the passages."]))
        },
        "POST /api/messages/{id}/report": { f in Call(method: .POST, path: "/api/messages/\(f.replyID)/report", body: body(["reason": "inaccurate"])) },
        "POST /api/support-grants": { _ in Call(method: .POST, path: "/api/support-grants", body: body(["hours": 2])) },
        "GET /api/support-grants": { _ in Call(method: .GET, path: "/api/support-grants") },
        "DELETE /api/support-grants/{id}": { f in Call(method: .DELETE, path: "/api/support-grants/\(f.grant)") },
        "POST /api/admin/keys": { _ in Call(method: .POST, path: "/api/admin/keys", body: body(["name": "matrix", "role": "client"])) },
        "GET /api/admin/keys": { _ in Call(method: .GET, path: "/api/admin/keys") },
        "DELETE /api/admin/keys/{id}": { f in Call(method: .DELETE, path: "/api/admin/keys/\(f.key)") },
        "GET /v1/models": { _ in Call(method: .GET, path: "/v1/models") },
        // The coach in course-7: the completion's course rule is the one of POST /api/coach/threads.
        "POST /v1/chat/completions": { _ in
            Call(method: .POST, path: "/v1/chat/completions",
                 body: body(["model": "coach", "course_id": "course-7", "messages": [["role": "user", "content": "What should I try this week?"]]]))
        },
        "POST /v1/moderations": { _ in Call(method: .POST, path: "/v1/moderations", body: body(["input": "I love my grandmother's stories."])) },
        "POST /api/storyteller/children": { _ in Call(method: .POST, path: "/api/storyteller/children", body: body(["name": "Ama", "age": 5])) },
        "GET /api/storyteller/children": { _ in Call(method: .GET, path: "/api/storyteller/children") },
        "GET /api/storyteller/children/{id}": { f in Call(method: .GET, path: "/api/storyteller/children/\(f.child)") },
        "PATCH /api/storyteller/children/{id}": { f in Call(method: .PATCH, path: "/api/storyteller/children/\(f.child)", body: body(["age": 6])) },
        "DELETE /api/storyteller/children/{id}": { f in Call(method: .DELETE, path: "/api/storyteller/children/\(f.child)") },
        "POST /api/storyteller/drawings": { f in
            Call(method: .POST, path: "/api/storyteller/drawings", body: body(["child_id": f.child, "image_base64": try TestDrawings.jpeg().base64EncodedString()]))
        },
        "GET /api/storyteller/drawings": { f in Call(method: .GET, path: "/api/storyteller/drawings?child_id=\(f.child)") },
        "GET /api/storyteller/drawings/{id}": { f in Call(method: .GET, path: "/api/storyteller/drawings/\(f.drawing)") },
        "GET /api/storyteller/drawings/{id}/image": { f in Call(method: .GET, path: "/api/storyteller/drawings/\(f.drawing)/image") },
        "GET /api/storyteller/drawings/{id}/thumbnail": { f in Call(method: .GET, path: "/api/storyteller/drawings/\(f.drawing)/thumbnail") },
        "DELETE /api/storyteller/drawings/{id}": { f in Call(method: .DELETE, path: "/api/storyteller/drawings/\(f.drawing)") },
        "POST /api/storyteller/stories": { f in
            Call(method: .POST, path: "/api/storyteller/stories", body: body(["child_id": f.child, "drawing_ids": [f.drawing]]))
        },
        "GET /api/storyteller/stories": { f in Call(method: .GET, path: "/api/storyteller/stories?child_id=\(f.child)") },
        "GET /api/storyteller/stories/{id}": { f in Call(method: .GET, path: "/api/storyteller/stories/\(f.bedtimeStory)") },
        "GET /api/storyteller/stories/{id}/pdf": { f in Call(method: .GET, path: "/api/storyteller/stories/\(f.bedtimeStory)/pdf") },
        "POST /api/storyteller/stories/{id}/chapters": { f in
            Call(method: .POST, path: "/api/storyteller/stories/\(f.bedtimeStory)/chapters", body: body(["drawing_ids": [f.drawing]]))
        },
        "POST /api/storyteller/stories/{id}/shares": { f in Call(method: .POST, path: "/api/storyteller/stories/\(f.bedtimeStory)/shares") },
        "GET /api/storyteller/stories/{id}/shares": { f in Call(method: .GET, path: "/api/storyteller/stories/\(f.bedtimeStory)/shares") },
        "DELETE /api/storyteller/shares/{token}": { f in Call(method: .DELETE, path: "/api/storyteller/shares/\(f.share)") },
        "GET /api/storyteller/shared/{token}": { f in Call(method: .GET, path: "/api/storyteller/shared/\(f.share)") },
        "GET /api/storyteller/shared/{token}/drawings/{id}": { f in Call(method: .GET, path: "/api/storyteller/shared/\(f.share)/drawings/\(f.drawing)") },
    ]

    /// The caller each role names: the fixture's client, a coach of course-7, a coach of
    /// course-9, an admin, an operator, nobody.
    static func headers(_ role: String, fixture: Fixture) async throws -> HTTPFields {
        let service = fixture.service
        switch role {
        case "client": return try await service.bearer(fixture.owner, role: .client, courses: ["course-7"])
        case "course_coach": return try await service.bearer("u-coach-seven", role: .coach, courses: ["course-7"])
        case "other_coach": return try await service.bearer("u-coach-nine", role: .coach, courses: ["course-9"])
        case "admin": return try await service.bearer("u-admin", role: .admin, courses: nil)
        case "operator": return try await service.bearer("u-operator", role: .operator, courses: nil)
        default: return [.contentType: "application/json"]
        }
    }

    @Test func eachRoleGetsItsDocumentedStatusOnEveryRoute() async throws {
        // The prompts in a copy with an evals folder of its own, so that promotions write their log
        // there and run one small eval file, not the checkout's.
        let checkout = try OpsConsoleRoutesTests.checkout()
        defer { try? FileManager.default.removeItem(at: checkout) }
        let service = try await TestService(limits: [.perMinute(1_000_000)], prompts: checkout.appendingPathComponent("prompts"))
        let documented = try Self.documented()
        #expect(Set(Self.order) == Set(documented.keys), "every documented operation is requested, once")
        try await service.test(.live) { client in
            for role in Self.roles {
                // The fixtures of this role, made by their own client.
                let owner = "u-client-\(role.replacingOccurrences(of: "_", with: "-"))"
                let ownerHeaders = try await service.bearer(owner, role: .client, courses: ["course-7"])
                let opened = try await live(client, .POST, "/api/coach/threads", headers: ownerHeaders, body: body(["course_id": "course-7"]))
                let thread = try #require(object(opened.text)["id"] as? String)
                _ = try await live(client, .POST, "/api/coach/threads/\(thread)/messages", headers: ownerHeaders, body: body(["content": "Hello coach"]))
                let mine = try #require(try await service.engine.chats.recentMessages(threadID: thread, limit: 10).first { $0.role == .user })
                let turnID = try #require(mine.turnID)
                let asked = try await live(client, .POST, "/api/griot/chat", headers: ownerHeaders, body: body(["message": "What happened in the flood?"]))
                let session = try #require(object(asked.text)["session_id"] as? String)
                let grant = try await service.engine.chats.createSupportGrant(SupportGrant(
                    ownerUserID: owner, stories: nil, createdAt: Date(), expiresAt: Date().addingTimeInterval(3600)))
                let key = try await service.engine.chats.createAPIKey(APIKey.make(name: "matrix \(role)", role: "client", now: Date()).key)
                let reply = try #require(try await service.engine.chats.recentMessages(threadID: thread, limit: 10).first { $0.role == .assistant })
                try await service.engine.chats.recordVerdicts([SafetyVerdictRecord(
                    at: Date(), turnID: turnID, threadID: thread, messageID: reply.id, userID: owner, ipHash: nil, stage: "groundedness", score: 0.2,
                    decision: "flag", reason: "answer 0.20 over 1 claim; 1 below 0.4")])
                let ticket = try #require(try await service.engine.chats.reviewItems(ReviewFilter(turnID: turnID)).first?.ticket.id)
                let child = try #require(object(try await live(client, .POST, "/api/storyteller/children", headers: ownerHeaders, body: body(["name": "Kofi"])).text)["id"] as? String)
                let drawing = try #require(object(try await live(client, .POST, "/api/storyteller/drawings", headers: ownerHeaders,
                                                                   body: body(["child_id": child, "image_base64": try TestDrawings.jpeg().base64EncodedString(), "caption": "A kite"])).text)["id"] as? String)
                let told = try await live(client, .POST, "/api/storyteller/stories", headers: ownerHeaders, body: body(["child_id": child, "drawing_ids": [drawing]]))
                let bedtimeStory = try #require(object(told.text)["id"] as? String, "\(told.text)")
                let share = try #require(object(try await live(client, .POST, "/api/storyteller/stories/\(bedtimeStory)/shares", headers: ownerHeaders).text)["token"] as? String)
                let fixture = Fixture(owner: owner, thread: thread, messageID: mine.id, session: session, turnID: turnID,
                                      story: "matrix-lantern-\(role.replacingOccurrences(of: "_", with: "-"))", grant: grant.id, key: key.id,
                                      replyID: reply.id, ticket: ticket,
                                      child: child, drawing: drawing, bedtimeStory: bedtimeStory, share: share, service: service)
                let caller = try await Self.headers(role, fixture: fixture)

                for operation in Self.order {
                    let expected = try #require(documented[operation]?[role], "\(operation): no x-access status for \(role)")
                    let request = try #require(Self.requests[operation])
                    let call = try await request(fixture)
                    var headers = caller
                    for field in call.headers { headers[field.name] = field.value }
                    let response = call.streamed ? try await liveStatus(client, call.path, headers: headers)
                        : try await live(client, call.method, call.path, headers: headers, body: call.body)
                    #expect(response.status == expected, "\(operation) as \(role): \(response.status), documented \(expected): \(response.text.prefix(160))")
                    if response.status >= 400 {
                        let error = object(response.text)["error"] as? [String: Any]
                        #expect(error?["code"] is String && error?["message"] is String, "\(operation) as \(role): \(response.text.prefix(160))")
                    }
                }
            }
        }
    }
}

/// A GET of a stream that stays open: its status, and its body only when it is an error (which
/// ends); a stream that answers 200 is hung up on once its head has come.
func liveStatus(_ client: any TestClientProtocol, _ path: String, headers: HTTPFields) async throws -> LiveResponse {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(client.port!)\(path)")
    for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
    let reading = Task {
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let status = Int(response.status.code)
        guard status >= 400 else {
            // The first event comes at once; leaving the body's iterator then cancels the request.
            for try await _ in response.body { break }
            return LiveResponse(status: status, headers: [:], text: "", data: Data())
        }
        let collected = try await response.body.collect(upTo: 1024 * 1024)
        return LiveResponse(status: status, headers: [:], text: String(buffer: collected), data: Data(collected.readableBytesView))
    }
    return try await reading.value
}
