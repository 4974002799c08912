import Foundation
import GriotAuth
import GriotServer
import GriotStore
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 24, items 1, 2 (the author rule) and 5, through HTTP: sending and editing a coaching
/// message pass one gate, only a message's author rewrites it, and a blocked message never names
/// a thread or reaches an export.
@Suite struct MessageWriteGateTests {
    static let toxic = "Shut up, you idiot. You are worthless trash and everyone hates you."
    static let selfHarm = "I can't go on anymore, I want to kill myself."

    /// Opens Maya's course-7 thread and sends `text`; returns the thread id and the SSE frames.
    func send(_ client: any TestClientProtocol, _ headers: HTTPFields, _ text: String, thread: String? = nil) async throws
        -> (thread: String, frames: [(id: String, event: String, data: [String: Any])]) {
        var threadID = thread
        if threadID == nil {
            let opened = try await live(client, .POST, "/api/coach/threads", headers: headers, body: body(["course_id": "course-7"]))
            threadID = try #require(object(opened.text)["id"] as? String)
        }
        let sent = try await live(client, .POST, "/api/coach/threads/\(threadID!)/messages", headers: headers, body: body(["content": text]))
        #expect(sent.status == 200)
        return (threadID!, frames(sent.text))
    }

    func userMessages(_ client: any TestClientProtocol, _ thread: String, _ headers: HTTPFields) async throws -> [[String: Any]] {
        let page = try await live(client, .GET, "/api/coach/threads/\(thread)/messages", headers: headers)
        return (object(page.text)["messages"] as? [[String: Any]] ?? []).filter { $0["role"] as? String == "user" }
    }

    func edit(_ client: any TestClientProtocol, _ headers: HTTPFields, _ message: [String: Any], to text: String) async throws -> LiveResponse {
        var conditional = headers
        conditional[.ifMatch] = message["etag"] as? String
        return try await live(client, .PATCH, "/api/coach/messages/\(message["id"] as! String)", headers: conditional, body: body(["content": text]))
    }

    /// The refusal's words without the warning number, which counts up with each refusal.
    func withoutWarningNumber(_ message: String?) -> String? {
        message?.replacingOccurrences(of: #"\(warning \d+\)"#, with: "(warning n)", options: .regularExpression)
    }

    @Test func anEditIntoBlockedTextIsRefusedLikeASendAndChangesNothing() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test(.live) { client in
            // The send of the text: refused in the stream with message_blocked.
            let (thread, sentFrames) = try await send(client, maya, Self.toxic)
            let sendError = try #require(sentFrames.first { $0.event == "error" }?.data)
            #expect(sendError["code"] as? String == "message_blocked")

            // A harmless message, then an edit of it into the same text.
            _ = try await send(client, maya, "I would like to practise saying no at work.", thread: thread)
            let before = try #require(try await userMessages(client, thread, maya).last)
            let refused = try await edit(client, maya, before, to: Self.toxic)
            #expect(refused.status == 422)
            let error = try #require(object(refused.text)["error"] as? [String: Any])
            #expect(error["code"] as? String == "message_blocked")
            #expect(withoutWarningNumber(error["message"] as? String) == withoutWarningNumber(sendError["message"] as? String),
                    "the same words as the send's refusal")

            let after = try #require(try await userMessages(client, thread, maya).last)
            #expect(after["content"] as? String == "I would like to practise saying no at work.")
            #expect(after["etag"] as? String == before["etag"] as? String, "the ETag is unchanged")
            #expect(after["status"] as? String == "complete")
            #expect(try await service.engine.chats.moderationWarnings(userID: "u-maya") == 2, "one warning for the send, one for the edit")

            // The audit log has the refused edit's moderation, and no update of the message.
            let log = try await live(client, .GET, "/api/audit?message_id=\(before["id"] as! String)&action=message.moderate,message.update", headers: admin)
            let entries = try #require(object(log.text)["entries"] as? [[String: Any]])
            let refusal = try #require(entries.first { ($0["details"] as? String)?.contains("\"write\":\"edit\"") == true })
            #expect(refusal["action"] as? String == "message.moderate")
            #expect((refusal["details"] as? String)?.contains("\"decision\":\"block\"") == true)
            #expect((refusal["moderation"] as? String)?.contains("harassment") == true)
            #expect(!entries.contains { $0["action"] as? String == "message.update" && ($0["details"] as? String)?.contains("edit") == true })
        }
    }

    @Test func anEditIntoSelfHarmGetsTheCrisisReplyAndFlagAsASendDoes() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test(.live) { client in
            let (thread, sentFrames) = try await send(client, maya, Self.selfHarm)
            let sentFlag = try #require(sentFrames.first { $0.event == "flag" }?.data)
            #expect(sentFlag["kind"] as? String == "crisis" && sentFlag["escalate"] as? Bool == true)
            let crisisText = sentFrames.filter { $0.event == "delta" }.compactMap { $0.data["text"] as? String }.joined()
            #expect(!crisisText.isEmpty)

            _ = try await send(client, maya, "Today went fine, thank you.", thread: thread)
            let before = try #require(try await userMessages(client, thread, maya).last)
            let edited = try await edit(client, maya, before, to: Self.selfHarm)
            #expect(edited.status == 200, "stored, as a sent crisis message is: \(edited.text.prefix(200))")
            let reply = object(edited.text)
            #expect(reply["content"] as? String == Self.selfHarm)
            let flags = try #require(reply["flags"] as? [[String: Any]])
            #expect(flags.count == 1)
            let flag = try #require(flags.first, "an edit into self-harm raises the crisis flag")
            #expect(flag["kind"] as? String == "crisis" && flag["escalate"] as? Bool == true)
            #expect(flag["message"] as? String == sentFlag["message"] as? String)
            #expect(reply["crisis_reply"] as? String == crisisText, "the crisis reply a send of the text streamed")
            #expect(edited.headers["etag"] != nil && edited.headers["etag"] != before["etag"] as? String)

            // The escalation is on record: the edit's moderation with decision route, and a crisis verdict.
            let log = try await live(client, .GET, "/api/audit?message_id=\(before["id"] as! String)&action=message.moderate,message.update", headers: admin)
            let entries = try #require(object(log.text)["entries"] as? [[String: Any]])
            let update = try #require(entries.first { $0["action"] as? String == "message.update" })
            #expect((update["moderation"] as? String)?.contains("self_harm") == true, "the edit's audit entry carries its moderation")
            #expect(entries.contains { $0["action"] as? String == "message.moderate" && ($0["details"] as? String)?.contains("\"decision\":\"route\"") == true })
            let metrics = try await live(client, .GET, "/metrics")
            #expect(metrics.text.contains("griot_moderation_flags_total{category=\"self_harm\"} 2"), "the send's and the edit's crisis")
        }
    }

    @Test func anAllowedEditIsAuditedWithItsModerationAndKeepsTheSendsChecks() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test(.live) { client in
            let (thread, _) = try await send(client, maya, "I keep putting off the hard conversation.")
            let before = try #require(try await userMessages(client, thread, maya).last)
            let edited = try await edit(client, maya, before, to: "  I keep putting off a hard talk with Zofia Łukasiewicz and 李秀英.  ")
            #expect(edited.status == 200)
            #expect(object(edited.text)["content"] as? String == "I keep putting off a hard talk with Zofia Łukasiewicz and 李秀英.",
                    "stored as a send stores it, names unchanged")
            #expect((object(edited.text)["flags"] as? [Any])?.isEmpty == true)
            let log = try await live(client, .GET, "/api/audit?message_id=\(before["id"] as! String)&action=message.update", headers: admin)
            let update = try #require((object(log.text)["entries"] as? [[String: Any]])?.first)
            #expect((update["moderation"] as? String)?.contains("\"harassment\":") == true, "the edit's audit entry carries its moderation")

            // The send's length limit holds for an edit too.
            let current = try #require(try await userMessages(client, thread, maya).last)
            let long = try await edit(client, maya, current, to: String(repeating: "a", count: 40_001))
            #expect(long.status == 400)
            #expect((object(long.text)["error"] as? [String: Any])?["code"] as? String == "invalid_message")
        }
    }

    @Test func onlyTheAuthorRewritesAMessageAndAnAdminMayDeleteIt() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test(.live) { client in
            let (thread, _) = try await send(client, maya, "My words, as I wrote them.")
            let mine = try #require(try await userMessages(client, thread, maya).last)
            let rewrite = try await edit(client, admin, mine, to: "Words an admin put in my mouth.")
            #expect(rewrite.status == 403)
            let error = try #require(object(rewrite.text)["error"] as? [String: Any])
            #expect((error["message"] as? String)?.contains("never rewrite") == true)
            #expect(try await service.engine.chats.message(id: mine["id"] as! String)?.content == "My words, as I wrote them.")
            #expect(try await live(client, .DELETE, "/api/coach/messages/\(mine["id"] as! String)", headers: admin).status == 204)
        }
    }

    @Test func aBlockedFirstMessageNeverNamesTheThreadOrReachesAnExport() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let coach = try await service.bearer("u-coach-lee", role: .coach, courses: ["course-7"])
        try await service.test(.live) { client in
            // Ask the Griot: a blocked first message leaves the session untitled.
            let asked = try await live(client, .POST, "/api/griot/chat", headers: maya, body: body(["message": Self.toxic]))
            #expect(asked.status == 422)
            let sessions = try await live(client, .GET, "/api/griot/sessions", headers: maya)
            let session = try #require((object(sessions.text)["sessions"] as? [[String: Any]])?.first)
            #expect(session["title"] as? String == "")

            // Coaching: blocked first, then an allowed message, which names the thread.
            let (thread, _) = try await send(client, maya, Self.toxic)
            _ = try await send(client, maya, "How do I start a gratitude practice?", thread: thread)
            let exported = try await live(client, .GET, "/api/coach/threads/\(thread)/export", headers: coach)
            #expect(exported.status == 200)
            #expect(!exported.text.contains("idiot") && !exported.text.contains("worthless"))
            let document = object(exported.text)
            #expect((document["thread"] as? [String: Any])?["title"] as? String == "How do I start a gratitude practice?")
            let blocked = try #require((document["messages"] as? [[String: Any]])?.first)
            #expect(blocked["status"] as? String == "blocked" && blocked["content"] as? String == "")

            let pdf = try await live(client, .GET, "/api/coach/threads/\(thread)/export?format=pdf", headers: coach)
            #expect(pdf.status == 200)
            let page = try Poppler.text(of: pdf.data, noDiagonal: true).text
            #expect(!page.contains("idiot") && !page.contains("worthless"))
            #expect(page.contains("How do I start a gratitude practice?"))
            #expect(try Poppler.info(of: pdf.data)["Title"] == "How do I start a gratitude practice?",
                    "the allowed message is the document's title")
        }
    }
}

extension TestService {
    /// A bearer header for a caller with these course ids.
    func bearer(_ userID: String, role: CallerRole, courses: [String]?) async throws -> HTTPFields {
        let token = try await verifier.mintDevelopmentToken(userID: userID, role: role, courseIDs: courses, expiresIn: 3600)
        return [.authorization: "Bearer \(token)", .contentType: "application/json"]
    }
}
