import AsyncHTTPClient
import Foundation
import GRDB
import GriotAuth
import GriotServer
import GriotStore
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// The coaching record under deletes, erasure and slow sentences (issue 24, items 3, 4, 6, 7
/// and 8), each checked through HTTP the way a client, an operator or an admin would.
@Suite struct CoachingRecordTests {
    /// Opens Maya's thread in course-7 and returns its id.
    func openThread(_ client: any TestClientProtocol, _ headers: HTTPFields) async throws -> String {
        let opened = try await live(client, .POST, "/api/coach/threads", headers: headers, body: body(["course_id": "course-7"]))
        return try #require(object(opened.text)["id"] as? String)
    }

    @discardableResult
    func send(_ client: any TestClientProtocol, _ threadID: String, _ headers: HTTPFields, _ text: String) async throws -> LiveResponse {
        try await live(client, .POST, "/api/coach/threads/\(threadID)/messages", headers: headers, body: body(["content": text]))
    }

    func page(_ client: any TestClientProtocol, _ threadID: String, _ headers: HTTPFields, query: String = "") async throws -> LiveResponse {
        try await live(client, .GET, "/api/coach/threads/\(threadID)/messages\(query)", headers: headers)
    }

    func messages(_ response: LiveResponse) -> [[String: Any]] {
        object(response.text)["messages"] as? [[String: Any]] ?? []
    }

    // MARK: Item 3: what reached the client is stored, whatever the sentence lengths

    /// A short first sentence followed by a long one: the first sentence is on the client while
    /// the gate still holds the second (it has no full stop yet), and the stored reply, read back
    /// through scrollback, already holds it. Before, the reply was saved only when the next
    /// sentence was released, so it stayed unsaved for as long as the long sentence took.
    @Test func textThatReachedTheClientIsStoredBeforeTheNextSentenceIsReleased() async throws {
        // The short sentence and the first word after it come at once; the long one then takes 6 s.
        var steps: [StubReply.Step] = [.send(SSE.chunk(role: "assistant")), .send(SSE.chunk("Take one small step today.")), .send(SSE.chunk(" Then"))]
        for index in 1...24 { steps += [.pause(seconds: 0.25), .send(SSE.chunk(" word\(index)"))] }
        steps += [.send(SSE.chunk(".")), .send(SSE.finish("stop")), .send(SSE.done)]
        try await StubChatServer.with({ [steps] _ in StubReply(steps: steps) }) { stub in
            let service = try await TestService(provider: try RemoteProviderForTests.make(stub.baseURL))
            let maya = try await service.headers("u-maya-autosave")
            try await service.test(.live) { client in
                let threadID = try await openThread(client, maya)
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(client.port!)/api/coach/threads/\(threadID)/messages")
                request.method = .POST
                for field in maya { request.headers.add(name: field.name.rawName, value: field.value) }
                request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: ["content": "How do I start the hard conversation?"])))
                let (firstDelta, signal) = AsyncStream.makeStream(of: String.self)
                let reader = Task {
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
                    var seen = ""
                    for try await chunk in response.body {
                        seen += String(buffer: chunk)
                        if seen.contains("event: delta") { signal.yield(seen) }
                    }
                    signal.finish()
                    return seen
                }
                var sent = ""
                for await text in firstDelta { sent = text; break }
                #expect(sent.contains("Take one small step today."), "the first sentence reaches the client on its own")
                #expect(!sent.contains("Then"), "the long sentence is still held by the gate")

                // The long sentence needs 24 × 0.25 s more: the first must be stored well before then.
                var stored: [String: Any]?
                for _ in 0..<40 {
                    let reply = messages(try await page(client, threadID, maya)).first { $0["role"] as? String == "assistant" }
                    if (reply?["content"] as? String)?.contains("Take one small step today.") == true {
                        stored = reply
                        break
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let reply = try #require(stored, "the sentence the client has was not stored while the next one was held")
                #expect(reply["status"] as? String == "streaming", "stored while the reply was still streaming")
                #expect((reply["content"] as? String)?.contains("Then") == false, "only text that was sent is stored")

                let whole = try await reader.value
                #expect(whole.contains("word24"))
                let final = messages(try await page(client, threadID, maya)).first { $0["role"] as? String == "assistant" }
                #expect(final?["status"] as? String == "complete")
                #expect((final?["content"] as? String)?.contains("word24.") == true)
            }
        }
    }

    // MARK: Item 4: deletion reaches every copy

    @Test func aDeletedMessagesTextLeavesOperatorViewsReplaysAndExportsAndIsKeptOnceForReview() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya-delete")
        let ops = try await service.headers("u-ops", role: .operator)
        let admin = try await service.headers("u-admin", role: .admin)
        let coach = try await service.headers("u-coach", role: .coach)
        let phone = "415-555-0132"
        try await service.test(.live) { client in
            let threadID = try await openThread(client, maya)
            // (The coach's offline reply reflects the first sentence back; the number is in the second.)
            try await send(client, threadID, maya, "I need advice. Call me at \(phone) after six, Zofia Łukasiewicz said I should ask you.")
            try await send(client, threadID, maya, "What should I say first?")
            let listed = messages(try await page(client, threadID, maya))
            let question = try #require(listed.first { ($0["content"] as? String)?.contains(phone) == true })
            let messageID = try #require(question["id"] as? String)
            let before = try await live(client, .GET, "/api/ops/turns?limit=50", headers: ops)
            #expect(before.text.contains("Zofia Łukasiewicz"), "the operator view shows the question while it exists")
            #expect(!before.text.contains(phone) && before.text.contains("Call me at [PHONE]"), "with personal details masked (README, What operators may read)")
            let turnID = try #require((object(before.text)["turns"] as? [[String: Any]])?
                .first { ($0["question"] as? String)?.contains("Łukasiewicz") == true }?["turn_id"] as? String)

            #expect(try await live(client, .DELETE, "/api/coach/messages/\(messageID)", headers: maya).status == 204)

            let after = try await live(client, .GET, "/api/ops/turns?limit=50", headers: ops)
            #expect(after.status == 200)
            #expect(!after.text.contains(phone) && !after.text.contains("Łukasiewicz"), "the operator view no longer shows the deleted text")
            let snapshot = try #require(try await service.engine.chats.turn(id: turnID)).snapshot
            #expect(!snapshot.contains(phone), "the turn snapshot lost the deleted text")
            // Read as JSON: PostgreSQL writes the edited snapshot back with jsonb's spacing and key order.
            #expect(object(snapshot)["redacted_question"] as? String == "deleted", "the snapshot says why the question is missing")
            let replay = try await live(client, .POST, "/api/ops/replay", headers: ops, body: body(["id": turnID]))
            #expect(replay.status == 422 && !replay.text.contains(phone), "a deleted question is not replayed")
            let export = try await live(client, .GET, "/api/coach/threads/\(threadID)/export?format=json", headers: admin)
            #expect(export.status == 200 && !export.text.contains(phone))
            #expect(try await service.engine.chats.message(id: messageID, includingDeleted: true)?.content == "", "the hidden row keeps no text")

            // Kept in one place for moderation review: admins only, every read audited.
            for headers in [maya, ops, coach] {
                #expect(try await live(client, .GET, "/api/messages/\(messageID)/retained", headers: headers).status == 403)
            }
            let retained = try await live(client, .GET, "/api/messages/\(messageID)/retained", headers: admin)
            #expect(retained.status == 200)
            let texts = object(retained.text)["texts"] as? [[String: Any]] ?? []
            #expect(texts.count == 1 && texts.first?["reason"] as? String == "deleted")
            #expect((texts.first?["content"] as? String)?.contains("Zofia Łukasiewicz") == true, "kept as written")
            let audit = try await live(client, .GET, "/api/audit?action=retained_text.read&message_id=\(messageID)", headers: admin)
            let reads = object(audit.text)["entries"] as? [[String: Any]] ?? []
            #expect(reads.count == 1 && reads.first?["actor_id"] as? String == "u-admin" && reads.first?["user_id"] as? String == "u-maya-delete")
            #expect(!audit.text.contains(phone), "the audit entry holds no text")

            // Purged with the message, 30 days later.
            try await service.engine.chats.purgeDeleted(now: Date().addingTimeInterval(31 * 86_400))
            let purged = try await live(client, .GET, "/api/messages/\(messageID)/retained", headers: admin)
            #expect((object(purged.text)["texts"] as? [[String: Any]])?.isEmpty == true)
        }
    }

    @Test func anEditedMessagesOldTextLeavesEveryCopyButTheReviewPlace() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya-edit")
        let ops = try await service.headers("u-ops", role: .operator)
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test(.live) { client in
            let threadID = try await openThread(client, maya)
            try await send(client, threadID, maya, "Text me the plan. My number is 415-555-0199.")
            let mine = try #require(messages(try await page(client, threadID, maya)).first { $0["role"] as? String == "user" })
            let id = try #require(mine["id"] as? String)
            var conditional = maya
            conditional[.ifMatch] = try #require(mine["etag"] as? String)
            let edited = try await live(client, .PATCH, "/api/coach/messages/\(id)", headers: conditional,
                                        body: body(["content": "Text me the plan, please."]))
            #expect(edited.status == 200)

            let turns = try await live(client, .GET, "/api/ops/turns?limit=50", headers: ops)
            #expect(!turns.text.contains("415-555-0199"), "the operator view lost the text edited away")
            let export = try await live(client, .GET, "/api/coach/threads/\(threadID)/export?format=json", headers: admin)
            #expect(export.text.contains("Text me the plan, please.") && !export.text.contains("415-555-0199"))
            let retained = object(try await live(client, .GET, "/api/messages/\(id)/retained", headers: admin).text)["texts"] as? [[String: Any]] ?? []
            #expect(retained.count == 1 && retained.first?["reason"] as? String == "edited")
            #expect(retained.first?["content"] as? String == "Text me the plan. My number is 415-555-0199.")

            // An edit's old text leaves 30 days after the edit, while the message stays.
            try await service.engine.chats.purgeDeleted(now: Date().addingTimeInterval(31 * 86_400))
            let later = object(try await live(client, .GET, "/api/messages/\(id)/retained", headers: admin).text)["texts"] as? [[String: Any]]
            #expect(later?.isEmpty == true)
            #expect(try await service.engine.chats.message(id: id)?.content == "Text me the plan, please.")
        }
    }

    // MARK: Item 6: erasure and abuse limits together

    @Test func erasingYourselfRemovesYourDataButNotYourLimits() async throws {
        let service = try await TestService(limits: [.perMinute(2), .perDay(300)])
        let user = "u-rude-eraser"
        let headers = try await service.headers(user)
        try await service.test(.live) { client in
            let threadID = try await openThread(client, headers)
            let blocked = try await send(client, threadID, headers, "Shut up, you idiot. You are worthless trash.")
            #expect(blocked.text.contains("message_blocked") || blocked.text.contains("Message violates policy"))
            try await send(client, threadID, headers, "Sorry. How do I start?")
            #expect(try await send(client, threadID, headers, "One more?").status == 429, "two a minute")
            #expect(try await service.engine.chats.moderationWarnings(userID: user) == 1)

            let erased = try await live(client, .DELETE, "/api/users/\(user)", headers: headers)
            #expect(erased.status == 200)
            let again = try await openThread(client, headers)
            #expect(try await send(client, again, headers, "Fresh start?").status == 429, "erasure does not reset the rate window")
            #expect(try await service.engine.chats.moderationWarnings(userID: user) == 1, "nor the warning count")

            #expect(UserPseudonyms.ephemeral().key(for: user) != service.engine.chats.pseudonyms.key(for: user), "keyed by the server's secret")
            // What survives does not name the user: only keyed hashes of the id. Read from
            // SQLite's own tables, so on SQLite only; RetentionConformanceTests checks what an
            // erasure leaves on both backends through the store.
            guard TestDatabase.isSQLite else { return }
            let keys = try await (service.engine.chats as! SQLiteChatStore).writer.read { db in
                try String.fetchAll(db, sql: "SELECT userKey FROM rateEvent UNION ALL SELECT userKey FROM moderationWarning")
            }
            #expect(!keys.isEmpty && keys.allSatisfy { $0.count == 64 && !$0.contains(user) })
            #expect(Set(keys) == [service.engine.chats.pseudonyms.key(for: user)])
            let naming = try await (service.engine.chats as! SQLiteChatStore).writer.read { db in
                try Int.fetchOne(db, sql: """
                    SELECT (SELECT COUNT(*) FROM message JOIN thread ON thread.id = message.threadID WHERE thread.userID = ?1)
                         + (SELECT COUNT(*) FROM safetyVerdict WHERE userID = ?1) + (SELECT COUNT(*) FROM retainedText WHERE userID = ?1)
                    """, arguments: [user]) ?? -1
            }
            #expect(naming == 0, "the user's messages, verdicts and kept texts are gone")
        }
    }

    // MARK: Item 7: cursors survive deletes

    @Test func pagingBackFromADeletedMessageContinuesWhereItWas() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya-pages")
        try await service.test(.live) { client in
            let threadID = try await openThread(client, maya)
            for text in ["First question?", "Second question?", "Third question?"] { try await send(client, threadID, maya, text) }
            let all = messages(try await page(client, threadID, maya)).compactMap { $0["id"] as? String }
            #expect(all.count == 6)
            let newest = messages(try await page(client, threadID, maya, query: "?limit=2"))
            let cursor = try #require(newest.first?["id"] as? String)
            #expect(try await live(client, .DELETE, "/api/coach/messages/\(cursor)", headers: maya).status == 204)

            let older = try await page(client, threadID, maya, query: "?before=\(cursor)&limit=2")
            #expect(older.status == 200, "the cursor's place in the thread outlives the message")
            #expect(messages(older).compactMap { $0["id"] as? String } == Array(all[2..<4]), "the page before the cursor, no gap")
            #expect(object(older.text)["has_more"] as? Bool == true)
            let other = try await page(client, threadID, try await service.headers("u-stranger-pages"), query: "?before=\(cursor)")
            #expect(other.status == 404, "another user's thread stays hidden")
        }
    }

    // MARK: Item 8: one rule for values the user shared

    /// The rule: every value the user wrote anywhere in the thread (and has not deleted) stays
    /// unmasked in a reply, not only those in the model's window (20 exchanges for the coach).
    @Test func aValueTheUserWroteAnywhereInTheThreadStaysUnmaskedButAnotherIsMasked() async throws {
        let reply = "I will ring you on 415-555-0132 tomorrow. Your brother's number 212-555-0147 is not mine to share."
        try await StubChatServer.with({ _ in .stream([reply]) }) { stub in
            let service = try await TestService(provider: try RemoteProviderForTests.make(stub.baseURL))
            let maya = try await service.headers("u-maya-shared")
            try await service.test(.live) { client in
                let threadID = try await openThread(client, maya)
                try await send(client, threadID, maya, "You can reach me at 415-555-0132 in the evenings.")
                // Forty-five older messages later, the first is out of the model's window.
                for index in 0..<45 {
                    _ = try await service.engine.chats.appendMessage(threadID: threadID, role: index % 2 == 0 ? .user : .assistant,
                                                               content: "Filler message \(index) about the week's small steps.")
                }
                let streamed = try await send(client, threadID, maya, "Can you call me about it?")
                #expect(streamed.status == 200)
                let window = try #require(stub.requests.last).json["messages"] as? [[String: Any]] ?? []
                #expect(!window.contains { ($0["content"] as? String)?.contains("415-555-0132") == true }, "the value is outside the model's window")
                #expect(streamed.text.contains("415-555-0132"), "the user's own number, written long ago, is not masked")
                #expect(!streamed.text.contains("212-555-0147") && streamed.text.contains("[PHONE]"), "a number the user never wrote is masked")
                let stored = messages(try await page(client, threadID, maya)).last { $0["role"] as? String == "assistant" }
                #expect((stored?["content"] as? String)?.contains("415-555-0132") == true)
            }
        }
    }
}
