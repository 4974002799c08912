import Foundation
import GriotAuth
import GriotServer
import GriotStore
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// Editing and deleting coaching messages with ETags, exports, the audit log and erasure.
@Suite struct CoachMessageRoutesTests {
    /// Maya's thread in course-7 with one exchange; returns the thread id.
    func thread(_ client: any TestClientProtocol, _ maya: HTTPFields, text: String = "I keep putting off the hard conversation.") async throws -> String {
        let opened = try await live(client, .POST, "/api/coach/threads", headers: maya, body: body(["course_id": "course-7"]))
        let threadID = try #require(object(opened.text)["id"] as? String)
        let sent = try await live(client, .POST, "/api/coach/threads/\(threadID)/messages", headers: maya, body: body(["content": text]))
        #expect(sent.status == 200)
        return threadID
    }

    func messages(_ client: any TestClientProtocol, _ threadID: String, _ headers: HTTPFields) async throws -> [[String: Any]] {
        let page = try await live(client, .GET, "/api/coach/threads/\(threadID)/messages", headers: headers)
        return object(page.text)["messages"] as? [[String: Any]] ?? []
    }

    @Test func editsNeedTheCurrentETagAndDeletesHideAtOnce() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let stranger = try await service.headers("u-stranger")
        try await service.test(.live) { client in
            let threadID = try await thread(client, maya)
            let listed = try await messages(client, threadID, maya)
            let mine = try #require(listed.first { $0["role"] as? String == "user" })
            let reply = try #require(listed.first { $0["role"] as? String == "assistant" })
            let id = try #require(mine["id"] as? String)
            let etag = try #require(mine["etag"] as? String)
            let edit = body(["content": "I keep putting off a hard conversation with my manager."])

            let unconditional = try await live(client, .PATCH, "/api/coach/messages/\(id)", headers: maya, body: edit)
            #expect(unconditional.status == 428, "an edit without If-Match could overwrite a newer one")
            #expect(object(unconditional.text)["error"].map { ($0 as? [String: Any])?["code"] as? String } == "if_match_required")

            var conditional = maya
            conditional[.ifMatch] = etag
            let edited = try await live(client, .PATCH, "/api/coach/messages/\(id)", headers: conditional, body: edit)
            #expect(edited.status == 200)
            let newETag = try #require(edited.headers["etag"])
            #expect(newETag != etag && object(edited.text)["etag"] as? String == newETag)
            #expect(object(edited.text)["content"] as? String == "I keep putting off a hard conversation with my manager.")

            let stale = try await live(client, .PATCH, "/api/coach/messages/\(id)", headers: conditional, body: body(["content": "lost update"]))
            #expect(stale.status == 409)
            #expect(stale.headers["etag"] == newETag, "the conflict names the current ETag")
            #expect(try await service.engine.chats.message(id: id)?.content == "I keep putting off a hard conversation with my manager.")

            var onReply = maya
            onReply[.ifMatch] = try #require(reply["etag"] as? String)
            #expect(try await live(client, .PATCH, "/api/coach/messages/\(reply["id"] as! String)", headers: onReply, body: edit).status == 403)
            #expect(try await live(client, .PATCH, "/api/coach/messages/\(id)", headers: stranger, body: edit).status == 404)
            #expect(try await live(client, .DELETE, "/api/coach/messages/\(id)", headers: stranger).status == 404)
            var emptyEdit = maya
            emptyEdit[.ifMatch] = newETag
            #expect(try await live(client, .PATCH, "/api/coach/messages/\(id)", headers: emptyEdit, body: body(["content": "  "])).status == 400)

            #expect(try await live(client, .DELETE, "/api/coach/messages/\(id)", headers: conditional).status == 409, "stale If-Match on delete")
            #expect(try await live(client, .DELETE, "/api/coach/messages/\(id)", headers: maya).status == 204)
            #expect(try await messages(client, threadID, maya).allSatisfy { $0["id"] as? String != id }, "hidden at once")
            #expect(try await live(client, .DELETE, "/api/coach/messages/\(id)", headers: maya).status == 404)
            #expect(try await service.engine.chats.message(id: id, includingDeleted: true) != nil, "kept until the purge job, 30 days later")
        }
    }

    @Test func coachesOfTheCourseAndAdminsExportAsJSONOrPDF() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        func bearer(_ user: String, _ role: CallerRole, courses: [String]?) async throws -> HTTPFields {
            let token = try await service.verifier.mintDevelopmentToken(userID: user, role: role, courseIDs: courses, expiresIn: 600)
            return [.authorization: "Bearer \(token)"]
        }
        let coach = try await bearer("u-coach-lee", .coach, courses: ["course-7"])
        let otherCoach = try await bearer("u-coach-kim", .coach, courses: ["course-9"])
        let admin = try await bearer("u-admin", .admin, courses: nil)
        try await service.test(.live) { client in
            let threadID = try await thread(client, maya)
            let path = "/api/coach/threads/\(threadID)/export"
            #expect(try await live(client, .GET, path, headers: maya).status == 403, "a client may not export, even their own thread")
            #expect(try await live(client, .GET, path, headers: otherCoach).status == 404, "another course's thread is not revealed")
            #expect(try await live(client, .GET, "\(path)?format=docx", headers: coach).status == 400)
            #expect(try await live(client, .GET, "/api/coach/threads/nope/export", headers: admin).status == 404)

            let exported = try await live(client, .GET, path, headers: coach)
            #expect(exported.status == 200)
            #expect(exported.headers["content-disposition"]?.contains("attachment") == true)
            let document = object(exported.text)
            #expect((document["messages"] as? [[String: Any]])?.count == 2)
            #expect(document["exported_by"] as? String == "u-coach-lee")

            let pdf = try await live(client, .GET, "\(path)?format=pdf", headers: admin)
            #expect(pdf.status == 200 && pdf.headers["content-type"] == "application/pdf")
            #expect(pdf.text.hasPrefix("%PDF-"))
            let page = try Poppler.text(of: pdf.data, raw: true).text
            #expect(page.filter { !$0.isWhitespace }.hasPrefix("Confidential"), "the watermark, drawn first")
            let audit = try await service.engine.chats.auditEntries(AuditFilter(threadID: threadID, actions: [.threadExport]))
            #expect(Set(audit.compactMap(\.actorID)) == ["u-coach-lee", "u-admin"])
        }
    }

    @Test func everyMessageWriteIsAuditedWithTheCallerAndAHashedAddress() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test(.live) { client in
            let threadID = try await thread(client, maya)
            #expect(try await live(client, .GET, "/api/audit", headers: maya).status == 403)
            #expect(try await live(client, .GET, "/api/audit?since=yesterday", headers: admin).status == 400)
            #expect(try await live(client, .GET, "/api/audit?limit=0", headers: admin).status == 400)

            let response = try await live(client, .GET, "/api/audit?thread_id=\(threadID)&action=message.create,message.update", headers: admin)
            #expect(response.status == 200)
            let entries = try #require(object(response.text)["entries"] as? [[String: Any]])
            let created = entries.filter { $0["action"] as? String == "message.create" }
            #expect(created.count == 2, "the question and the reply")
            #expect(entries.contains { $0["action"] as? String == "message.update" }, "the reply's completion")
            for entry in entries {
                #expect(entry["user_id"] as? String == "u-maya")
                let hash = try #require(entry["ip_hash"] as? String, "\(entry)")
                #expect(hash.count == 64 && !hash.contains("127.0.0.1"))
            }
            #expect(created.contains { $0["actor_id"] as? String == "u-maya" })
            #expect(Set(entries.compactMap { $0["ip_hash"] as? String }).count == 1, "one address, one hash")

            let paged = try await live(client, .GET, "/api/audit?thread_id=\(threadID)&limit=1", headers: admin)
            #expect((object(paged.text)["entries"] as? [[String: Any]])?.count == 1)
            #expect(object(paged.text)["next_offset"] as? Int == 1)
        }
    }

    @Test func aUserOrAnAdminErasesTheUsersChatData() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let sam = try await service.headers("u-sam")
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test(.live) { client in
            let mayas = try await thread(client, maya)
            let sams = try await thread(client, sam, text: "How do I start a gratitude practice?")
            #expect(try await live(client, .DELETE, "/api/users/u-maya", headers: sam).status == 403)
            let erased = try await live(client, .DELETE, "/api/users/u-maya", headers: maya)
            #expect(erased.status == 200)
            let counts = try #require(object(erased.text)["erased"] as? [String: Any])
            #expect(counts["threads"] as? Int == 1 && counts["messages"] as? Int == 2)
            #expect(try await live(client, .GET, "/api/coach/threads/\(mayas)/messages", headers: maya).status == 404)
            #expect(try await messages(client, sams, sam).count == 2, "another user's data is untouched")
            let log = try await live(client, .GET, "/api/audit?user_id=u-maya", headers: admin)
            let entries = try #require(object(log.text)["entries"] as? [[String: Any]])
            #expect(entries.map { $0["action"] as? String } == ["user.purge"], "only the record that the erasure was done")
            #expect(try await live(client, .DELETE, "/api/users/u-sam", headers: admin).status == 200)
        }
    }
}
