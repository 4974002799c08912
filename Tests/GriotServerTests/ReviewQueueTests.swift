import Foundation
import GriotAuth
import GriotServer
import GriotStore
import GriotTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import Synchronization
import Testing

/// The review queue over HTTP (issue 37, item 63): flags that need a person open tickets that
/// operators acknowledge and resolve; the asker reports a reply; each ticket reaches the
/// tracker's webhook exactly once, across failures and a restart.
@Suite struct ReviewQueueTests {
    static let insult = "Shut up, you idiot. You are worthless trash and everyone hates you."

    @Test func aBlockedTurnOpensATicketThatOperatorsAcknowledgeThenResolve() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let ops = try await service.headers("u-ops", role: .operator)
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test(.live) { client in
            let blocked = try await live(client, .POST, "/api/griot/chat", headers: maya, body: body(["message": Self.insult]))
            #expect(blocked.status == 422)

            let listed = try await live(client, .GET, "/api/ops/reviews?status=open&kind=blocked", headers: ops)
            #expect(listed.status == 200)
            let tickets = try #require(object(listed.text)["tickets"] as? [[String: Any]])
            #expect(tickets.count == 1)
            let ticket = try #require(tickets.first)
            let id = try #require(ticket["id"] as? String)
            let turnID = try #require(ticket["turn_id"] as? String)
            let messageID = try #require(ticket["message_id"] as? String)
            #expect(ticket["status"] as? String == "open" && ticket["assistant"] as? String == "griot")
            #expect((ticket["delivery"] as? [String: Any])?["state"] as? String == "pending")
            // The link to its turn: the turn the blocked message started, and the message itself.
            let turn = try #require(try await service.engine.chats.turn(id: turnID))
            #expect(turn.userMessageID == messageID && turn.status == .blocked)
            #expect(!listed.text.contains("idiot"), "a ticket never holds the message's text")
            #expect(!listed.text.contains("u-maya"), "nor the user's id")

            let acknowledged = try await live(client, .POST, "/api/ops/reviews/\(id)/acknowledge", headers: ops)
            #expect(acknowledged.status == 200)
            #expect(object(acknowledged.text)["status"] as? String == "acknowledged")
            #expect(object(acknowledged.text)["acknowledged_by"] as? String == "u-ops")
            #expect(object(acknowledged.text)["acknowledged_at"] is String)
            let twice = try await live(client, .POST, "/api/ops/reviews/\(id)/acknowledge", headers: admin)
            #expect(twice.status == 409, "\(twice.text)")

            let resolved = try await live(client, .POST, "/api/ops/reviews/\(id)/resolve", headers: admin,
                                          body: body(["resolution": "Warned the user; no further action."]))
            #expect(resolved.status == 200)
            let shown = object(resolved.text)
            #expect(shown["status"] as? String == "resolved" && shown["resolved_by"] as? String == "u-admin" && shown["resolved_at"] is String)
            #expect(shown["acknowledged_by"] as? String == "u-ops" && shown["resolution"] as? String == "Warned the user; no further action.")
            let again = try await live(client, .POST, "/api/ops/reviews/\(id)/resolve", headers: ops)
            #expect(again.status == 409)

            let read = try await live(client, .GET, "/api/ops/reviews/\(id)", headers: ops)
            #expect(object(read.text)["status"] as? String == "resolved")
            #expect(try await live(client, .GET, "/api/ops/reviews/no-such-ticket", headers: ops).status == 404)

            // Both steps are in the audit log with who took them.
            let entries = try await service.engine.chats.auditEntries(AuditFilter(actions: [.reviewAcknowledge, .reviewResolve]))
            #expect(entries.map(\.actorID) == ["u-admin", "u-ops"])
            #expect(entries.allSatisfy { $0.userID == "u-maya" && $0.messageID == messageID })
        }
    }

    @Test func clientsAndCoachesGet403OnTheOpsRoutes() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let coach = try await service.headers("u-coach", role: .coach)
        try await service.test(.live) { client in
            for headers in [maya, coach] {
                for (method, path) in [(NIOHTTP1.HTTPMethod.GET, "/api/ops/reviews"), (.GET, "/api/ops/reviews/t-1"),
                                       (.POST, "/api/ops/reviews/t-1/acknowledge"), (.POST, "/api/ops/reviews/t-1/resolve")] {
                    let response = try await live(client, method, path, headers: headers)
                    #expect(response.status == 403, "\(method) \(path): \(response.status)")
                    #expect((object(response.text)["error"] as? [String: Any])?["code"] as? String == "forbidden")
                }
            }
            #expect(try await live(client, .GET, "/api/ops/reviews", headers: [:]).status == 401)
        }
    }

    @Test func theAskerReportsAReplyOfTheirOwnThreadOnly() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let ruth = try await service.headers("u-ruth")
        let ops = try await service.headers("u-ops", role: .operator)
        try await service.test(.live) { client in
            let asked = try await live(client, .POST, "/api/griot/chat", headers: maya, body: body(["message": "What happened in the flood?"]))
            let replyID = try #require(object(asked.text)["message_id"] as? String)
            let sessionID = try #require(object(asked.text)["session_id"] as? String)

            // Not Ruth's reply to report: as if it did not exist.
            let stranger = try await live(client, .POST, "/api/messages/\(replyID)/report", headers: ruth, body: body(["reason": "inaccurate"]))
            #expect(stranger.status == 404, "\(stranger.text)")
            #expect((object(stranger.text)["error"] as? [String: Any])?["code"] as? String == "message_not_found")

            let badReason = try await live(client, .POST, "/api/messages/\(replyID)/report", headers: maya, body: body(["reason": "boring"]))
            #expect(badReason.status == 400)
            let tooLong = try await live(client, .POST, "/api/messages/\(replyID)/report", headers: maya,
                                         body: body(["reason": "other", "note": String(repeating: "a", count: 1001)]))
            #expect(tooLong.status == 400 && tooLong.text.contains("1000"))
            let insulting = try await live(client, .POST, "/api/messages/\(replyID)/report", headers: maya,
                                           body: body(["reason": "other", "note": Self.insult]))
            #expect(insulting.status == 422 && insulting.text.contains("message_blocked"), "\(insulting.text)")

            let reported = try await live(client, .POST, "/api/messages/\(replyID)/report", headers: maya,
                                          body: body(["reason": "inaccurate", "note": "The flood was in 1927, not 1937. Write me at maya.k@example.com"]))
            #expect(reported.status == 201, "\(reported.text)")
            let ticket = object(reported.text)
            #expect(ticket["kind"] as? String == "user_report" && ticket["reason"] as? String == "inaccurate" && ticket["message_id"] as? String == replyID)
            #expect(ticket["thread_id"] as? String == sessionID && ticket["turn_id"] is String)
            let note = try #require(ticket["note"] as? String)
            #expect(note.contains("1927") && !note.contains("maya.k@example.com"), "the note is kept with personal details masked: \(note)")

            let again = try await live(client, .POST, "/api/messages/\(replyID)/report", headers: maya, body: body(["reason": "harmful"]))
            #expect(again.status == 200 && object(again.text)["id"] as? String == ticket["id"] as? String)

            let listed = try await live(client, .GET, "/api/ops/reviews?kind=user_report", headers: ops)
            #expect((object(listed.text)["tickets"] as? [[String: Any]])?.map { $0["id"] as? String } == [ticket["id"] as? String])
        }
    }

    @Test func filtersSelectByStatusKindAssistantAndTime() async throws {
        let service = try await TestService()
        let chats = service.engine.chats
        let ops = try await service.headers("u-ops", role: .operator)
        let griot = try await chats.createThread(assistant: "griot", userID: "u-maya")
        let coach = try await chats.createThread(assistant: "coach", userID: "u-maya", courseID: "course-7")
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        var turnIDs: [String] = []
        for (index, (thread, stage)) in [(griot, "groundedness"), (coach, "copyright"), (griot, "crisis"), (coach, "groundedness")].enumerated() {
            let turnID = "turn-filter-\(index)"
            let question = try await chats.appendMessage(threadID: thread.id, role: .user, content: "q\(index)", turnID: turnID)
            try await chats.recordVerdicts([SafetyVerdictRecord(
                at: start + Double(index) * 86_400, turnID: turnID, threadID: thread.id, messageID: question.id, userID: "u-maya", ipHash: nil,
                stage: stage, score: 0.3, decision: stage == "crisis" ? "route" : "flag", reason: "test")])
            turnIDs.append(turnID)
        }
        let ids = turnIDs
        try await service.test(.live) { client in
            let turnIDs = ids
            func turns(_ query: String) async throws -> [String] {
                let response = try await live(client, .GET, "/api/ops/reviews?\(query)", headers: ops)
                #expect(response.status == 200, "\(query): \(response.text)")
                return (object(response.text)["tickets"] as? [[String: Any]] ?? []).compactMap { $0["turn_id"] as? String }
            }
            #expect(try await turns("") == turnIDs.reversed())
            #expect(try await turns("kind=low_groundedness") == [turnIDs[3], turnIDs[0]])
            #expect(try await turns("assistant=coach") == [turnIDs[3], turnIDs[1]])
            #expect(try await turns("kind=crisis&assistant=griot") == [turnIDs[2]])
            // Opened from the second day (inclusive) to the fourth (exclusive): the second and third tickets.
            let since = (start + 86_400).ISO8601Format()
            let until = (start + 3 * 86_400).ISO8601Format()
            #expect(try await turns("since=\(since)&until=\(until)") == [turnIDs[2], turnIDs[1]])
            let page = try await live(client, .GET, "/api/ops/reviews?limit=3", headers: ops)
            #expect(object(page.text)["next_offset"] as? Int == 3)
            #expect(try await turns("limit=3&offset=3") == [turnIDs[0]])
            let first = try #require((object(page.text)["tickets"] as? [[String: Any]])?.first?["id"] as? String)
            _ = try await live(client, .POST, "/api/ops/reviews/\(first)/acknowledge", headers: ops)
            #expect(try await turns("status=acknowledged") == [turnIDs[3]])
            #expect(try await turns("status=open").count == 3)
            #expect(try await live(client, .GET, "/api/ops/reviews?kind=sparkly", headers: ops).status == 400)
            #expect(try await live(client, .GET, "/api/ops/reviews?status=closed", headers: ops).status == 400)
            #expect(try await live(client, .GET, "/api/ops/reviews?since=yesterday", headers: ops).status == 400)
        }
    }
}
