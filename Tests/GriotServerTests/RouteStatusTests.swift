import Foundation
import GriotAuth
@testable import GriotServer
import GriotStore
import GriotTestSupport
import HTTPTypes
import NIOCore
import HummingbirdTesting
import NIOHTTP1
import Testing
import Yams

/// Every status the OpenAPI document promises for an operation is produced by a real request
/// here, over HTTP, and every error comes in the `{"error": {code, message, details}}` shape.
@Suite struct RouteStatusTests {
    struct Case {
        var method: NIOHTTP1.HTTPMethod
        var path: String
        var operation: String
        var status: Int
        var headers: HTTPFields
        var body: ByteBuffer?
    }

    /// The statuses the document lists for each "METHOD /path".
    static func documented() throws -> [String: Set<Int>] {
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.text) as? [String: Any])
        var statuses: [String: Set<Int>] = [:]
        for (path, item) in try #require(document["paths"] as? [String: Any]) {
            for (method, operation) in item as? [String: Any] ?? [:] {
                guard let responses = (operation as? [String: Any])?["responses"] as? [AnyHashable: Any] else { continue }
                statuses["\(method.uppercased()) \(path)"] = Set(responses.keys.compactMap { Int("\($0)") })
            }
        }
        return statuses
    }

    @Test func everyDocumentedStatusIsProducedAndErrorsHaveTheirShape() async throws {
        // The prompts in a copy with one small eval file beside them, for the promotions.
        let checkout = try OpsConsoleRoutesTests.checkout()
        defer { try? FileManager.default.removeItem(at: checkout) }
        let service = try await TestService(prompts: checkout.appendingPathComponent("prompts"))
        let verifier = service.verifier
        func bearer(_ user: String, _ role: CallerRole = .client, courses: [String]? = nil) async throws -> HTTPFields {
            let token = try await verifier.mintDevelopmentToken(userID: user, role: role, courseIDs: courses, expiresIn: 600)
            return [.authorization: "Bearer \(token)", .contentType: "application/json"]
        }
        let maya = try await bearer("u-maya", courses: ["course-7"])
        let stranger = try await bearer("u-stranger", courses: ["course-7"])
        let coach = try await bearer("u-coach", .coach, courses: ["course-7"])
        let admin = try await bearer("u-admin", .admin)
        let ops = try await bearer("u-ops", .operator)
        let anonymous: HTTPFields = [.contentType: "application/json"]
        let story: [String: Any] = ["artifact_id": "status-porch", "title": "The Porch", "privacy": "public", "owner_user_id": "u-admin",
                                    "transcript": "We sat on the porch and counted fireflies until the streetlights came on."]
        let storyBody = body(story)

        var covered = try await service.test(.live) { client -> [String: Set<Int>] in
            var covered: [String: Set<Int>] = [:]
            // Fixtures: a Griot session, a coaching thread with one exchange, the user message's ETag.
            let asked = try await live(client, .POST, "/api/griot/chat", headers: maya, body: body(["message": "What happened in the flood?"]))
            let session = try #require(object(asked.text)["session_id"] as? String)
            let opened = try await live(client, .POST, "/api/coach/threads", headers: maya, body: body(["course_id": "course-7"]))
            let thread = try #require(object(opened.text)["id"] as? String)
            _ = try await live(client, .POST, "/api/coach/threads/\(thread)/messages", headers: maya, body: body(["content": "Hello coach"]))
            let page = try await live(client, .GET, "/api/coach/threads/\(thread)/messages", headers: maya)
            let messages = try #require(object(page.text)["messages"] as? [[String: Any]])
            let mine = try #require(messages.first { $0["role"] as? String == "user" })
            let messageID = try #require(mine["id"] as? String)
            let etag = try #require(mine["etag"] as? String)
            var matching = maya
            matching[.ifMatch] = etag
            var stale = maya
            stale[.ifMatch] = "\"m-\(messageID)-v99\""
            // An id no client may name (longer than 128 characters), and a body over the 8 MB limit.
            let badID = String(repeating: "x", count: 129)
            let huge = ByteBuffer(repeating: UInt8(ascii: " "), count: 9 * 1024 * 1024)
            let granted = try await live(client, .POST, "/api/support-grants", headers: maya, body: body(["hours": 1]))
            let grant = try #require(object(granted.text)["id"] as? String)
            let made = try await live(client, .POST, "/api/admin/keys", headers: admin, body: body(["name": "status key", "role": "client"]))
            let keyID = try #require(object(made.text)["id"] as? String)
            let question = ["model": "griot", "messages": [["role": "user", "content": "Who kept bees?"]]] as [String: Any]
            // A review ticket on Maya's Griot turn, and her reply to report.
            let sessionTurn = try #require(try await service.engine.chats.turns(threadID: session).first)
            try await service.engine.chats.recordVerdicts([SafetyVerdictRecord(
                at: Date(), turnID: sessionTurn.id, threadID: session, messageID: sessionTurn.assistantMessageID, userID: "u-maya", ipHash: nil,
                stage: "copyright", score: 0.95, decision: "flag", reason: "420 characters 0.95 similar to passage [1]")])
            let ticket = try #require(try await service.engine.chats.reviewItems(ReviewFilter(turnID: sessionTurn.id)).first?.ticket.id)
            let replyID = try #require(object(asked.text)["message_id"] as? String)
            // A turn whose snapshot cannot be read (as one stored before snapshots were), in a
            // thread of its own so that the session's replay below stays readable.
            let oldThread = try await service.engine.chats.createThread(assistant: "griot", userID: "u-maya")
            let oldQuestion = try await service.engine.chats.appendMessage(threadID: oldThread.id, role: .user, content: "An old question",
                                                                           turnID: "turn-unreadable")
            var unreadable = sessionTurn
            unreadable.threadID = oldThread.id
            unreadable.id = "turn-unreadable"
            unreadable.userMessageID = oldQuestion.id
            unreadable.assistantMessageID = nil
            unreadable.snapshot = "{"
            try await service.engine.chats.saveTurn(unreadable)

            let cases: [Case] = [
                Case(method: .GET, path: "/api/ops/turns/\(sessionTurn.id)", operation: "GET /api/ops/turns/{id}", status: 200, headers: ops),
                Case(method: .GET, path: "/api/ops/turns/\(sessionTurn.id)", operation: "GET /api/ops/turns/{id}", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/ops/turns/\(sessionTurn.id)", operation: "GET /api/ops/turns/{id}", status: 403, headers: maya),
                Case(method: .GET, path: "/api/ops/turns/no-such-turn", operation: "GET /api/ops/turns/{id}", status: 404, headers: ops),
                Case(method: .GET, path: "/api/ops/turns/turn-unreadable", operation: "GET /api/ops/turns/{id}", status: 422, headers: admin),
                Case(method: .GET, path: "/api/ops/dashboard?range=15m", operation: "GET /api/ops/dashboard", status: 200, headers: ops),
                Case(method: .GET, path: "/api/ops/dashboard?range=7d", operation: "GET /api/ops/dashboard", status: 400, headers: ops),
                Case(method: .GET, path: "/api/ops/dashboard", operation: "GET /api/ops/dashboard", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/ops/dashboard", operation: "GET /api/ops/dashboard", status: 403, headers: coach),
                Case(method: .GET, path: "/api/ops/dashboard/stream?range=7d", operation: "GET /api/ops/dashboard/stream", status: 400, headers: ops),
                Case(method: .GET, path: "/api/ops/dashboard/stream", operation: "GET /api/ops/dashboard/stream", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/ops/dashboard/stream", operation: "GET /api/ops/dashboard/stream", status: 403, headers: maya),
                Case(method: .GET, path: "/api/ops/prompts", operation: "GET /api/ops/prompts", status: 200, headers: ops),
                Case(method: .GET, path: "/api/ops/prompts", operation: "GET /api/ops/prompts", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/ops/prompts", operation: "GET /api/ops/prompts", status: 403, headers: coach),
                Case(method: .POST, path: "/api/ops/prompts/griot/promote", operation: "POST /api/ops/prompts/{assistant}/promote", status: 400, headers: ops,
                     body: body([:])),
                Case(method: .POST, path: "/api/ops/prompts/griot/promote", operation: "POST /api/ops/prompts/{assistant}/promote", status: 401, headers: anonymous,
                     body: body(["version": 2])),
                Case(method: .POST, path: "/api/ops/prompts/griot/promote", operation: "POST /api/ops/prompts/{assistant}/promote", status: 403, headers: maya,
                     body: body(["version": 2])),
                Case(method: .POST, path: "/api/ops/prompts/griot/promote", operation: "POST /api/ops/prompts/{assistant}/promote", status: 413, headers: ops, body: huge),
                // v2 rewords the instructions, which the offline responder cannot judge: refused unless allowed.
                Case(method: .POST, path: "/api/ops/prompts/griot/promote", operation: "POST /api/ops/prompts/{assistant}/promote", status: 409, headers: ops,
                     body: body(["version": 2])),
                Case(method: .POST, path: "/api/ops/prompts/griot/promote", operation: "POST /api/ops/prompts/{assistant}/promote", status: 200, headers: admin,
                     body: body(["version": 2, "allow_offline": true])),
                Case(method: .GET, path: "/api/ops/reviews?status=open&kind=copyright_review", operation: "GET /api/ops/reviews", status: 200, headers: ops),
                Case(method: .GET, path: "/api/ops/reviews?kind=sparkly", operation: "GET /api/ops/reviews", status: 400, headers: ops),
                Case(method: .GET, path: "/api/ops/reviews", operation: "GET /api/ops/reviews", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/ops/reviews", operation: "GET /api/ops/reviews", status: 403, headers: maya),
                Case(method: .GET, path: "/api/ops/reviews/\(ticket)", operation: "GET /api/ops/reviews/{id}", status: 200, headers: admin),
                Case(method: .GET, path: "/api/ops/reviews/\(badID)", operation: "GET /api/ops/reviews/{id}", status: 400, headers: ops),
                Case(method: .GET, path: "/api/ops/reviews/\(ticket)", operation: "GET /api/ops/reviews/{id}", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/ops/reviews/\(ticket)", operation: "GET /api/ops/reviews/{id}", status: 403, headers: coach),
                Case(method: .GET, path: "/api/ops/reviews/no-such-ticket", operation: "GET /api/ops/reviews/{id}", status: 404, headers: ops),
                Case(method: .POST, path: "/api/ops/reviews/\(badID)/acknowledge", operation: "POST /api/ops/reviews/{id}/acknowledge", status: 400, headers: ops),
                Case(method: .POST, path: "/api/ops/reviews/\(ticket)/acknowledge", operation: "POST /api/ops/reviews/{id}/acknowledge", status: 401, headers: anonymous),
                Case(method: .POST, path: "/api/ops/reviews/\(ticket)/acknowledge", operation: "POST /api/ops/reviews/{id}/acknowledge", status: 403, headers: maya),
                Case(method: .POST, path: "/api/ops/reviews/no-such-ticket/acknowledge", operation: "POST /api/ops/reviews/{id}/acknowledge", status: 404, headers: ops),
                Case(method: .POST, path: "/api/ops/reviews/\(ticket)/acknowledge", operation: "POST /api/ops/reviews/{id}/acknowledge", status: 200, headers: ops),
                Case(method: .POST, path: "/api/ops/reviews/\(ticket)/acknowledge", operation: "POST /api/ops/reviews/{id}/acknowledge", status: 409, headers: admin),
                Case(method: .POST, path: "/api/ops/reviews/\(ticket)/resolve", operation: "POST /api/ops/reviews/{id}/resolve", status: 400, headers: ops,
                     body: body(["resolution": 5])),
                Case(method: .POST, path: "/api/ops/reviews/\(ticket)/resolve", operation: "POST /api/ops/reviews/{id}/resolve", status: 401, headers: anonymous),
                Case(method: .POST, path: "/api/ops/reviews/\(ticket)/resolve", operation: "POST /api/ops/reviews/{id}/resolve", status: 403, headers: coach),
                Case(method: .POST, path: "/api/ops/reviews/no-such-ticket/resolve", operation: "POST /api/ops/reviews/{id}/resolve", status: 404, headers: ops),
                Case(method: .POST, path: "/api/ops/reviews/\(ticket)/resolve", operation: "POST /api/ops/reviews/{id}/resolve", status: 413, headers: ops, body: huge),
                Case(method: .POST, path: "/api/ops/reviews/\(ticket)/resolve", operation: "POST /api/ops/reviews/{id}/resolve", status: 200, headers: admin,
                     body: body(["resolution": "Quoted a public-domain passage; no action."])),
                Case(method: .POST, path: "/api/ops/reviews/\(ticket)/resolve", operation: "POST /api/ops/reviews/{id}/resolve", status: 409, headers: ops),
                Case(method: .POST, path: "/api/messages/\(replyID)/report", operation: "POST /api/messages/{id}/report", status: 400, headers: maya,
                     body: body(["reason": "boring"])),
                Case(method: .POST, path: "/api/messages/\(replyID)/report", operation: "POST /api/messages/{id}/report", status: 401, headers: anonymous,
                     body: body(["reason": "inaccurate"])),
                Case(method: .POST, path: "/api/messages/\(replyID)/report", operation: "POST /api/messages/{id}/report", status: 404, headers: stranger,
                     body: body(["reason": "inaccurate"])),
                Case(method: .POST, path: "/api/messages/\(replyID)/report", operation: "POST /api/messages/{id}/report", status: 413, headers: maya, body: huge),
                Case(method: .POST, path: "/api/messages/\(replyID)/report", operation: "POST /api/messages/{id}/report", status: 422, headers: maya,
                     body: body(["reason": "offensive", "note": "Shut up, you idiot. You are worthless trash and everyone hates you."])),
                Case(method: .POST, path: "/api/messages/\(replyID)/report", operation: "POST /api/messages/{id}/report", status: 201, headers: maya,
                     body: body(["reason": "inaccurate", "note": "The flood was in 1927."])),
                Case(method: .POST, path: "/api/messages/\(replyID)/report", operation: "POST /api/messages/{id}/report", status: 200, headers: maya,
                     body: body(["reason": "inaccurate"])),
                Case(method: .GET, path: "/api/ops/turns?assistant=griot&limit=5", operation: "GET /api/ops/turns", status: 200, headers: ops),
                Case(method: .GET, path: "/api/ops/turns?flag=sparkly", operation: "GET /api/ops/turns", status: 400, headers: ops),
                Case(method: .GET, path: "/api/ops/turns", operation: "GET /api/ops/turns", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/ops/turns", operation: "GET /api/ops/turns", status: 403, headers: coach),
                Case(method: .POST, path: "/api/ops/replay", operation: "POST /api/ops/replay", status: 200, headers: admin,
                     body: body(["id": session, "cassette": true])),
                Case(method: .POST, path: "/api/ops/replay", operation: "POST /api/ops/replay", status: 400, headers: ops, body: body(["index": "yesterday", "id": session])),
                Case(method: .POST, path: "/api/ops/replay", operation: "POST /api/ops/replay", status: 401, headers: anonymous, body: body(["id": session])),
                Case(method: .POST, path: "/api/ops/replay", operation: "POST /api/ops/replay", status: 403, headers: maya, body: body(["id": session])),
                Case(method: .POST, path: "/api/ops/replay", operation: "POST /api/ops/replay", status: 404, headers: ops, body: body(["id": "no-such-turn"])),
                Case(method: .POST, path: "/api/ops/replay", operation: "POST /api/ops/replay", status: 422, headers: ops,
                     body: body(["id": session, "prompt_version": "99"])),
                Case(method: .POST, path: "/api/support-grants", operation: "POST /api/support-grants", status: 201, headers: ops, body: body(["hours": 2])),
                Case(method: .POST, path: "/api/support-grants", operation: "POST /api/support-grants", status: 400, headers: maya, body: body(["hours": -1])),
                Case(method: .POST, path: "/api/support-grants", operation: "POST /api/support-grants", status: 401, headers: anonymous, body: body(["hours": 2])),
                Case(method: .POST, path: "/api/support-grants", operation: "POST /api/support-grants", status: 413, headers: maya, body: huge),
                Case(method: .GET, path: "/api/support-grants", operation: "GET /api/support-grants", status: 200, headers: maya),
                Case(method: .GET, path: "/api/support-grants", operation: "GET /api/support-grants", status: 401, headers: anonymous),
                Case(method: .DELETE, path: "/api/support-grants/\(badID)", operation: "DELETE /api/support-grants/{id}", status: 400, headers: maya),
                Case(method: .DELETE, path: "/api/support-grants/\(grant)", operation: "DELETE /api/support-grants/{id}", status: 401, headers: anonymous),
                Case(method: .DELETE, path: "/api/support-grants/\(grant)", operation: "DELETE /api/support-grants/{id}", status: 404, headers: stranger),
                Case(method: .DELETE, path: "/api/support-grants/\(grant)", operation: "DELETE /api/support-grants/{id}", status: 200, headers: maya),
                Case(method: .POST, path: "/api/admin/keys", operation: "POST /api/admin/keys", status: 201, headers: admin, body: body(["name": "second", "role": "coach", "course_ids": ["course-7"]])),
                Case(method: .POST, path: "/api/admin/keys", operation: "POST /api/admin/keys", status: 400, headers: admin, body: body(["name": "no role"])),
                Case(method: .POST, path: "/api/admin/keys", operation: "POST /api/admin/keys", status: 401, headers: anonymous, body: body(["name": "x", "role": "client"])),
                Case(method: .POST, path: "/api/admin/keys", operation: "POST /api/admin/keys", status: 403, headers: maya, body: body(["name": "x", "role": "client"])),
                Case(method: .POST, path: "/api/admin/keys", operation: "POST /api/admin/keys", status: 413, headers: admin, body: huge),
                Case(method: .GET, path: "/api/admin/keys", operation: "GET /api/admin/keys", status: 200, headers: admin),
                Case(method: .GET, path: "/api/admin/keys", operation: "GET /api/admin/keys", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/admin/keys", operation: "GET /api/admin/keys", status: 403, headers: coach),
                Case(method: .DELETE, path: "/api/admin/keys/\(keyID)", operation: "DELETE /api/admin/keys/{id}", status: 401, headers: anonymous),
                Case(method: .DELETE, path: "/api/admin/keys/\(keyID)", operation: "DELETE /api/admin/keys/{id}", status: 403, headers: ops),
                Case(method: .DELETE, path: "/api/admin/keys/0000000000000000", operation: "DELETE /api/admin/keys/{id}", status: 404, headers: admin),
                Case(method: .DELETE, path: "/api/admin/keys/\(keyID)", operation: "DELETE /api/admin/keys/{id}", status: 204, headers: admin),

                Case(method: .GET, path: "/v1/models", operation: "GET /v1/models", status: 200, headers: maya),
                Case(method: .GET, path: "/v1/models", operation: "GET /v1/models", status: 401, headers: anonymous),
                Case(method: .POST, path: "/v1/chat/completions", operation: "POST /v1/chat/completions", status: 200, headers: maya, body: body(question)),
                Case(method: .POST, path: "/v1/chat/completions", operation: "POST /v1/chat/completions", status: 400, headers: maya,
                     body: body(["model": "griot", "n": 3, "messages": [["role": "user", "content": "Who kept bees?"]]])),
                Case(method: .POST, path: "/v1/chat/completions", operation: "POST /v1/chat/completions", status: 401, headers: anonymous, body: body(question)),
                Case(method: .POST, path: "/v1/chat/completions", operation: "POST /v1/chat/completions", status: 403, headers: coach,
                     body: body(["model": "coach", "course_id": "course-9", "messages": [["role": "user", "content": "Hello"]]])),
                Case(method: .POST, path: "/v1/chat/completions", operation: "POST /v1/chat/completions", status: 404, headers: maya,
                     body: body(["model": "no-such-assistant", "messages": [["role": "user", "content": "Hello"]]])),
                Case(method: .POST, path: "/v1/chat/completions", operation: "POST /v1/chat/completions", status: 413, headers: maya, body: huge),
                Case(method: .POST, path: "/v1/moderations", operation: "POST /v1/moderations", status: 200, headers: maya, body: body(["input": "Who kept bees?"])),
                Case(method: .POST, path: "/v1/moderations", operation: "POST /v1/moderations", status: 400, headers: maya, body: body(["input": []] as [String: Any])),
                Case(method: .POST, path: "/v1/moderations", operation: "POST /v1/moderations", status: 401, headers: anonymous, body: body(["input": "x"])),
                Case(method: .POST, path: "/v1/moderations", operation: "POST /v1/moderations", status: 413, headers: maya, body: huge),
                Case(method: .GET, path: "/healthz", operation: "GET /healthz", status: 200, headers: anonymous),
                Case(method: .GET, path: "/readyz", operation: "GET /readyz", status: 200, headers: anonymous),
                Case(method: .GET, path: "/openapi.yaml", operation: "GET /openapi.yaml", status: 200, headers: anonymous),
                Case(method: .GET, path: "/metrics", operation: "GET /metrics", status: 200, headers: anonymous),

                Case(method: .POST, path: "/api/griot/chat", operation: "POST /api/griot/chat", status: 200, headers: maya, body: body(["message": "Who kept bees?"])),
                Case(method: .POST, path: "/api/griot/chat", operation: "POST /api/griot/chat", status: 400, headers: maya, body: body(["message": "  "])),
                Case(method: .POST, path: "/api/griot/chat", operation: "POST /api/griot/chat", status: 401, headers: anonymous, body: body(["message": "hi"])),
                Case(method: .POST, path: "/api/griot/chat", operation: "POST /api/griot/chat", status: 404, headers: stranger, body: body(["session_id": session, "message": "hi"])),
                Case(method: .POST, path: "/api/griot/chat", operation: "POST /api/griot/chat", status: 422, headers: stranger,
                     body: body(["message": "Shut up, you idiot. You are worthless trash and everyone hates you."])),
                Case(method: .POST, path: "/api/griot/chat/stream", operation: "POST /api/griot/chat/stream", status: 200, headers: stranger, body: body(["message": "Who kept bees?"])),
                Case(method: .POST, path: "/api/griot/chat/stream", operation: "POST /api/griot/chat/stream", status: 400, headers: stranger, body: body(["nothing": 1])),
                Case(method: .POST, path: "/api/griot/chat/stream", operation: "POST /api/griot/chat/stream", status: 401, headers: anonymous, body: body(["message": "hi"])),
                Case(method: .POST, path: "/api/griot/chat/stream", operation: "POST /api/griot/chat/stream", status: 404, headers: stranger, body: body(["session_id": session, "message": "hi"])),
                Case(method: .GET, path: "/api/griot/sessions", operation: "GET /api/griot/sessions", status: 200, headers: maya),
                Case(method: .GET, path: "/api/griot/sessions", operation: "GET /api/griot/sessions", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/griot/sessions/\(session)", operation: "GET /api/griot/sessions/{id}", status: 200, headers: maya),
                Case(method: .GET, path: "/api/griot/sessions/\(session)", operation: "GET /api/griot/sessions/{id}", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/griot/sessions/\(session)", operation: "GET /api/griot/sessions/{id}", status: 404, headers: stranger),
                Case(method: .DELETE, path: "/api/griot/sessions/\(session)", operation: "DELETE /api/griot/sessions/{id}", status: 401, headers: anonymous),
                Case(method: .DELETE, path: "/api/griot/sessions/\(session)", operation: "DELETE /api/griot/sessions/{id}", status: 404, headers: stranger),
                Case(method: .GET, path: "/api/griot/sessions/\(badID)", operation: "GET /api/griot/sessions/{id}", status: 400, headers: maya),
                Case(method: .DELETE, path: "/api/griot/sessions/\(badID)", operation: "DELETE /api/griot/sessions/{id}", status: 400, headers: maya),
                Case(method: .DELETE, path: "/api/griot/sessions/\(session)", operation: "DELETE /api/griot/sessions/{id}", status: 204, headers: maya),

                Case(method: .POST, path: "/api/stories", operation: "POST /api/stories", status: 201, headers: admin, body: storyBody),
                Case(method: .POST, path: "/api/stories", operation: "POST /api/stories", status: 200, headers: admin, body: storyBody),
                Case(method: .POST, path: "/api/stories", operation: "POST /api/stories", status: 400, headers: admin, body: body([] as [Any])),
                Case(method: .POST, path: "/api/stories", operation: "POST /api/stories", status: 401, headers: anonymous, body: storyBody),
                Case(method: .POST, path: "/api/stories", operation: "POST /api/stories", status: 403, headers: maya, body: storyBody),
                Case(method: .POST, path: "/api/stories", operation: "POST /api/stories", status: 422, headers: admin, body: body(["title": "No id"])),
                Case(method: .DELETE, path: "/api/stories/status-porch", operation: "DELETE /api/stories/{id}", status: 401, headers: anonymous),
                Case(method: .DELETE, path: "/api/stories/status-porch", operation: "DELETE /api/stories/{id}", status: 403, headers: maya),
                Case(method: .DELETE, path: "/api/stories/status-porch", operation: "DELETE /api/stories/{id}", status: 204, headers: admin),
                Case(method: .DELETE, path: "/api/stories/status-porch", operation: "DELETE /api/stories/{id}", status: 404, headers: admin),
                Case(method: .GET, path: "/api/stories/search?q=flood", operation: "GET /api/stories/search", status: 200, headers: maya),
                Case(method: .GET, path: "/api/stories/search", operation: "GET /api/stories/search", status: 400, headers: maya),
                Case(method: .GET, path: "/api/stories/search?q=flood", operation: "GET /api/stories/search", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/stories/near?lat=33.4&lon=-91.06&radius_km=50", operation: "GET /api/stories/near", status: 200, headers: maya),
                Case(method: .GET, path: "/api/stories/near?lat=north", operation: "GET /api/stories/near", status: 400, headers: maya),
                Case(method: .GET, path: "/api/stories/near?lat=33.4&lon=-91.06", operation: "GET /api/stories/near", status: 401, headers: anonymous),

                Case(method: .POST, path: "/api/coach/threads", operation: "POST /api/coach/threads", status: 200, headers: maya, body: body(["course_id": "course-7"])),
                Case(method: .POST, path: "/api/coach/threads", operation: "POST /api/coach/threads", status: 400, headers: maya, body: body([:])),
                Case(method: .POST, path: "/api/coach/threads", operation: "POST /api/coach/threads", status: 401, headers: anonymous, body: body(["course_id": "course-7"])),
                Case(method: .POST, path: "/api/coach/threads", operation: "POST /api/coach/threads", status: 403, headers: coach, body: body(["course_id": "course-9"])),
                Case(method: .GET, path: "/api/coach/threads/\(thread)/messages", operation: "GET /api/coach/threads/{id}/messages", status: 200, headers: maya),
                Case(method: .GET, path: "/api/coach/threads/\(thread)/messages?limit=0", operation: "GET /api/coach/threads/{id}/messages", status: 400, headers: maya),
                Case(method: .GET, path: "/api/coach/threads/\(thread)/messages", operation: "GET /api/coach/threads/{id}/messages", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/coach/threads/\(thread)/messages", operation: "GET /api/coach/threads/{id}/messages", status: 404, headers: stranger),
                Case(method: .POST, path: "/api/coach/threads/\(thread)/messages", operation: "POST /api/coach/threads/{id}/messages", status: 400, headers: maya, body: body(["content": ""])),
                Case(method: .POST, path: "/api/coach/threads/\(thread)/messages", operation: "POST /api/coach/threads/{id}/messages", status: 401, headers: anonymous, body: body(["content": "hi"])),
                Case(method: .POST, path: "/api/coach/threads/\(thread)/messages", operation: "POST /api/coach/threads/{id}/messages", status: 404, headers: stranger, body: body(["content": "hi"])),
                Case(method: .POST, path: "/api/coach/threads/\(thread)/stop", operation: "POST /api/coach/threads/{id}/stop", status: 200, headers: maya),
                Case(method: .POST, path: "/api/coach/threads/\(thread)/stop", operation: "POST /api/coach/threads/{id}/stop", status: 401, headers: anonymous),
                Case(method: .POST, path: "/api/coach/threads/\(thread)/stop", operation: "POST /api/coach/threads/{id}/stop", status: 404, headers: stranger),
                Case(method: .POST, path: "/api/coach/threads/\(badID)/stop", operation: "POST /api/coach/threads/{id}/stop", status: 400, headers: maya),
                Case(method: .PUT, path: "/api/coach/courses/course-7/instructions", operation: "PUT /api/coach/courses/{id}/instructions", status: 200, headers: coach, body: body(["instructions": "Be brief."])),
                Case(method: .PUT, path: "/api/coach/courses/course-7/instructions", operation: "PUT /api/coach/courses/{id}/instructions", status: 400, headers: coach, body: body(["title": "no instructions"])),
                Case(method: .PUT, path: "/api/coach/courses/course-7/instructions", operation: "PUT /api/coach/courses/{id}/instructions", status: 401, headers: anonymous, body: body(["instructions": "x"])),
                Case(method: .PUT, path: "/api/coach/courses/course-7/instructions", operation: "PUT /api/coach/courses/{id}/instructions", status: 403, headers: maya, body: body(["instructions": "x"])),
                Case(method: .GET, path: "/api/coach/threads/\(thread)/export", operation: "GET /api/coach/threads/{id}/export", status: 200, headers: coach),
                Case(method: .GET, path: "/api/coach/threads/\(thread)/export?format=rtf", operation: "GET /api/coach/threads/{id}/export", status: 400, headers: coach),
                Case(method: .GET, path: "/api/coach/threads/\(thread)/export", operation: "GET /api/coach/threads/{id}/export", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/coach/threads/\(thread)/export", operation: "GET /api/coach/threads/{id}/export", status: 403, headers: maya),
                Case(method: .GET, path: "/api/coach/threads/nope/export", operation: "GET /api/coach/threads/{id}/export", status: 404, headers: coach),
                // 413: a body over 8 MB on every route that reads one.
                Case(method: .POST, path: "/api/griot/chat", operation: "POST /api/griot/chat", status: 413, headers: maya, body: huge),
                Case(method: .POST, path: "/api/griot/chat/stream", operation: "POST /api/griot/chat/stream", status: 413, headers: maya, body: huge),
                Case(method: .POST, path: "/api/stories", operation: "POST /api/stories", status: 413, headers: admin, body: huge),
                Case(method: .POST, path: "/api/coach/threads", operation: "POST /api/coach/threads", status: 413, headers: maya, body: huge),
                Case(method: .POST, path: "/api/coach/threads/\(thread)/messages", operation: "POST /api/coach/threads/{id}/messages", status: 413, headers: maya, body: huge),
                Case(method: .PUT, path: "/api/coach/courses/course-7/instructions", operation: "PUT /api/coach/courses/{id}/instructions", status: 413, headers: coach, body: huge),
                Case(method: .PATCH, path: "/api/coach/messages/\(messageID)", operation: "PATCH /api/coach/messages/{id}", status: 413, headers: matching, body: huge),
                Case(method: .POST, path: "/api/ops/replay", operation: "POST /api/ops/replay", status: 413, headers: ops, body: huge),
                // An edit a send would block: the send's 422, and the message (and so `matching`) unchanged.
                Case(method: .PATCH, path: "/api/coach/messages/\(messageID)", operation: "PATCH /api/coach/messages/{id}", status: 422, headers: matching,
                     body: body(["content": "Shut up, you idiot. You are worthless trash and everyone hates you."])),
                Case(method: .PATCH, path: "/api/coach/messages/\(messageID)", operation: "PATCH /api/coach/messages/{id}", status: 403, headers: admin, body: body(["content": "x"])),
                Case(method: .PATCH, path: "/api/coach/messages/\(messageID)", operation: "PATCH /api/coach/messages/{id}", status: 428, headers: maya, body: body(["content": "Hello, coach"])),
                Case(method: .PATCH, path: "/api/coach/messages/\(messageID)", operation: "PATCH /api/coach/messages/{id}", status: 409, headers: stale, body: body(["content": "Hello, coach"])),
                Case(method: .PATCH, path: "/api/coach/messages/\(messageID)", operation: "PATCH /api/coach/messages/{id}", status: 400, headers: matching, body: body(["content": " "])),
                Case(method: .PATCH, path: "/api/coach/messages/\(messageID)", operation: "PATCH /api/coach/messages/{id}", status: 401, headers: anonymous, body: body(["content": "x"])),
                Case(method: .PATCH, path: "/api/coach/messages/\(messageID)", operation: "PATCH /api/coach/messages/{id}", status: 404, headers: stranger, body: body(["content": "x"])),
                Case(method: .PATCH, path: "/api/coach/messages/\(messages.last!["id"] as! String)", operation: "PATCH /api/coach/messages/{id}", status: 403, headers: matching, body: body(["content": "x"])),
                Case(method: .PATCH, path: "/api/coach/messages/\(messageID)", operation: "PATCH /api/coach/messages/{id}", status: 200, headers: matching, body: body(["content": "Hello, coach"])),
                Case(method: .DELETE, path: "/api/coach/messages/\(messageID)", operation: "DELETE /api/coach/messages/{id}", status: 409, headers: matching),
                Case(method: .DELETE, path: "/api/coach/messages/\(messageID)", operation: "DELETE /api/coach/messages/{id}", status: 401, headers: anonymous),
                Case(method: .DELETE, path: "/api/coach/messages/\(messageID)", operation: "DELETE /api/coach/messages/{id}", status: 204, headers: maya),
                Case(method: .DELETE, path: "/api/coach/messages/\(messageID)", operation: "DELETE /api/coach/messages/{id}", status: 404, headers: maya),

                Case(method: .GET, path: "/api/audit?limit=5", operation: "GET /api/audit", status: 200, headers: admin),
                Case(method: .GET, path: "/api/audit?until=soon", operation: "GET /api/audit", status: 400, headers: admin),
                Case(method: .GET, path: "/api/audit", operation: "GET /api/audit", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/audit", operation: "GET /api/audit", status: 403, headers: coach),
                Case(method: .GET, path: "/api/messages/m-none/retained", operation: "GET /api/messages/{id}/retained", status: 200, headers: admin),
                Case(method: .GET, path: "/api/messages/m-none/retained", operation: "GET /api/messages/{id}/retained", status: 401, headers: anonymous),
                Case(method: .GET, path: "/api/messages/m-none/retained", operation: "GET /api/messages/{id}/retained", status: 403, headers: coach),
                Case(method: .DELETE, path: "/api/users/u-maya", operation: "DELETE /api/users/{id}", status: 401, headers: anonymous),
                Case(method: .DELETE, path: "/api/users/u-maya", operation: "DELETE /api/users/{id}", status: 403, headers: stranger),
                Case(method: .DELETE, path: "/api/users/u-stranger", operation: "DELETE /api/users/{id}", status: 200, headers: stranger),
            ]
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
            // The dashboard's stream stays open: its status is read, then the client hangs up.
            let streamed = try await liveStatus(client, "/api/ops/dashboard/stream?range=15m", headers: ops)
            #expect(streamed.status == 200)
            covered["GET /api/ops/dashboard/stream", default: []].insert(streamed.status)

            // 503: a node shutting down turns new chats away and is not ready.
            service.service.drain.begin()
            for (method, path, operation) in [(NIOHTTP1.HTTPMethod.POST, "/api/griot/chat", "POST /api/griot/chat"),
                                               (.POST, "/api/griot/chat/stream", "POST /api/griot/chat/stream"),
                                               (.POST, "/api/coach/threads/\(thread)/messages", "POST /api/coach/threads/{id}/messages"),
                                               (.POST, "/v1/chat/completions", "POST /v1/chat/completions"),
                                               (.GET, "/readyz", "GET /readyz")] {
                let response = try await live(client, method, path, headers: admin,
                                              body: body(["message": "hi", "content": "hi", "model": "griot", "messages": [["role": "user", "content": "hi"]]]))
                #expect(response.status == 503, "\(operation)")
                // A chat turned away says when to come back (readiness is for the load balancer).
                #expect(operation == "GET /readyz" || response.headers["retry-after"] != nil, "\(operation)")
                covered[operation, default: []].insert(503)
            }
            return covered
        }

        // 429: over a limit of one message a minute, on every route that sends one.
        let limitedService = try await TestService(limits: [.perMinute(1)])
        let sam = try await limitedService.headers("u-sam")
        try await limitedService.test(.live) { client in
            let opened = try await live(client, .POST, "/api/coach/threads", headers: sam, body: body(["course_id": "course-7"]))
            let thread = try #require(object(opened.text)["id"] as? String)
            let first = try await live(client, .POST, "/api/coach/threads/\(thread)/messages", headers: sam, body: body(["content": "One"]))
            #expect(first.status == 200)
            for (path, field) in [("/api/coach/threads/\(thread)/messages", "content"), ("/api/griot/chat", "message"), ("/api/griot/chat/stream", "message"),
                                  ("/v1/chat/completions", "messages")] {
                let payload = field == "messages" ? body(["model": "griot", "messages": [["role": "user", "content": "Two"]]]) : body([field: "Two"])
                let response = try await live(client, .POST, path, headers: sam, body: payload)
                #expect(response.status == 429 && response.headers["retry-after"] != nil, "\(path): \(response.status)")
                #expect((object(response.text)["error"] as? [String: Any])?["code"] as? String == "rate_limited")
            }
        }
        covered["POST /api/coach/threads/{id}/messages", default: []].formUnion([200, 429])

        // 429 on every other route: past a budget of one request of its cost class (per user, per
        // address without a token), whoever asks, before the route's rule is consulted.
        var tight = RouteLimits()
        for cost in [CostClass.probe, .read, .search, .heavy] { tight[cost] = .init(requests: 1, seconds: 3600) }
        let tightService = try await TestService(routeLimits: tight)
        let tightAdmin = try await tightService.headers("u-admin-tight", role: .admin)
        let refusedOperations = try await tightService.test(.live) { client -> [String] in
            var refusedOperations: [String] = []
            for (operation, row) in AccessPolicy.rules.sorted(by: { $0.key < $1.key }) where row.cost != .chat {
                let parts = operation.split(separator: " ")
                let method = NIOHTTP1.HTTPMethod(rawValue: String(parts[0]))
                let path = parts[1].replacingOccurrences(of: "{id}", with: "x")
                let payload = method == .POST || method == .PUT || method == .PATCH ? body([:]) : nil
                _ = try await live(client, method, path, headers: tightAdmin, body: payload)
                let refused = try await live(client, method, path, headers: tightAdmin, body: payload)
                #expect(refused.status == 429 && Int(refused.headers["retry-after"] ?? "") ?? 0 >= 1, "\(operation): \(refused.status) \(refused.text.prefix(160))")
                let error = object(refused.text)["error"] as? [String: Any]
                #expect(error?["code"] as? String == "rate_limited" && (error?["details"] as? [String: Any])?["limit"] as? String == row.cost.rawValue,
                        "\(operation): \(refused.text.prefix(200))")
                if refused.status == 429 { refusedOperations.append(operation) }
            }
            return refusedOperations
        }
        for operation in refusedOperations { covered[operation, default: []].insert(429) }
        covered["POST /api/griot/chat", default: []].insert(429)
        covered["POST /api/griot/chat/stream", default: []].insert(429)
        covered["POST /v1/chat/completions", default: []].insert(429)

        // 502: the model answers with an error it will not get over by retrying.
        try await StubChatServer.with({ _ in .error(status: 400, message: "bad request upstream") }) { stub in
            let failing = try await TestService(provider: try RemoteProviderForTests.make(stub.baseURL))
            let headers = try await failing.headers("u-maya")
            try await failing.test(.live) { client in
                let response = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["message": "What happened in the flood?"]))
                #expect(response.status == 502, "\(response.text)")
                #expect((object(response.text)["error"] as? [String: Any])?["details"] is [String: Any])
                let completion = try await live(client, .POST, "/v1/chat/completions", headers: headers,
                                                body: body(["model": "griot", "messages": [["role": "user", "content": "What happened in the flood?"]]]))
                #expect(completion.status == 502, "\(completion.text)")
            }
        }
        covered["POST /api/griot/chat", default: []].insert(502)
        covered["POST /v1/chat/completions", default: []].insert(502)

        // 403 on every route that takes a token: a caller of a region the node keeps no database
        // for (residency) is refused before the route's rule runs, whatever their role.
        let regionalNode = try await ResidencyTests.Node(regions: ["eu"])
        defer { regionalNode.remove() }
        let elsewhere = try await regionalNode.headers("u-admin-ap", region: "ap", role: .admin)
        let unavailable = try await regionalNode.service.test(.live) { client -> [String] in
            var refused: [String] = []
            for (operation, row) in AccessPolicy.rules.sorted(by: { $0.key < $1.key }) where row.rule.needsToken {
                let parts = operation.split(separator: " ")
                let method = NIOHTTP1.HTTPMethod(rawValue: String(parts[0]))
                let path = parts[1].replacingOccurrences(of: "{id}", with: "x").replacingOccurrences(of: "{assistant}", with: "griot")
                let payload = method == .POST || method == .PUT || method == .PATCH ? body([:]) : nil
                let response = try await live(client, method, path, headers: elsewhere, body: payload)
                let code = (object(response.text)["error"] as? [String: Any])?["code"] as? String
                #expect(response.status == 403 && code == "region_unavailable", "\(operation): \(response.status) \(response.text.prefix(160))")
                if response.status == 403 { refused.append(operation) }
            }
            return refused
        }
        for operation in unavailable { covered[operation, default: []].insert(403) }
        covered.merge(try await Self.storytellerStatuses()) { $0.union($1) }

        let documented = try Self.documented()
        for (operation, statuses) in documented {
            let missing = statuses.subtracting(covered[operation] ?? [])
            #expect(missing.isEmpty, "\(operation): documented statuses no request here produced: \(missing.sorted())")
            let undocumented = (covered[operation] ?? []).subtracting(statuses)
            #expect(undocumented.isEmpty, "\(operation): statuses produced but not documented: \(undocumented.sorted())")
        }
    }
}
