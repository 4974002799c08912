import Foundation
import GriotAuth
import GriotChat
import GriotServer
import GriotStore
import GriotTestSupport
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import Testing

/// SSE frames of a finished stream: (id, event, data).
func frames(_ text: String) -> [(id: String, event: String, data: [String: Any])] {
    text.components(separatedBy: "\n\n").compactMap { frame in
        var id = "", event = "", data: [String: Any] = [:]
        for line in frame.split(separator: "\n") {
            if line.hasPrefix("id: ") { id = String(line.dropFirst(4)) }
            if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data = (try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8))) as? [String: Any] ?? [:] }
        }
        return event.isEmpty ? nil : (id, event, data)
    }
}

@Suite struct CoachRoutesTests {
    @Test func aThreadPerUserAndCourseWithScrollbackAndInstructions() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya", families: [])
        let coach = try await service.headers("u-coach-lee", role: .coach)
        try await service.test(.live) { client in
            let refused = try await live(client, .PUT, "/api/coach/courses/course-7/instructions", headers: maya, body: body(["instructions": "x"]))
            #expect(refused.status == 403)
            let course = try await live(client, .PUT, "/api/coach/courses/course-7/instructions", headers: coach,
                                        body: body(["instructions": "Always end with one question about the week's practice.", "title": "Leading From Within"]))
            #expect(course.status == 200)
            #expect(course.text.contains("Leading From Within"))
            let opened = try await live(client, .POST, "/api/coach/threads", headers: maya, body: body(["course_id": "course-7"]))
            #expect(opened.status == 200)
            let threadID = try #require(object(opened.text)["id"] as? String)
            let again = try await live(client, .POST, "/api/coach/threads", headers: maya, body: body(["course_id": "course-7"]))
            #expect(object(again.text)["id"] as? String == threadID, "created once")
            for message in ["I keep putting off the hard conversation.", "It is with my manager."] {
                let response = try await live(client, .POST, "/api/coach/threads/\(threadID)/messages", headers: maya, body: body(["content": message]))
                #expect(response.status == 200)
                let events = frames(response.text)
                #expect(events.first?.event == "meta" && events.last?.event == "done")
                #expect(events.allSatisfy { $0.id.hasPrefix((events.first?.data["turn_id"] as? String ?? "?") + ":") })
            }
            let page = try await live(client, .GET, "/api/coach/threads/\(threadID)/messages?limit=3", headers: maya)
            #expect(page.status == 200)
            let fields = object(page.text)
            let messages = try #require(fields["messages"] as? [[String: Any]])
            #expect(messages.count == 3)
            #expect(messages.last?["role"] as? String == "assistant")
            #expect(fields["has_more"] as? Bool == true)
            #expect(fields["unread_count"] as? Int == 2, "both replies are unread; the user's own messages never are")
            let reread = try await live(client, .GET, "/api/coach/threads/\(threadID)/messages?limit=3", headers: maya)
            #expect(object(reread.text)["unread_count"] as? Int == 0, "the page that reached the newest message marked the thread read")
            let oldest = try #require(messages.first?["id"] as? String)
            let earlier = try await live(client, .GET, "/api/coach/threads/\(threadID)/messages?before=\(oldest)", headers: maya)
            #expect((object(earlier.text)["messages"] as? [[String: Any]])?.count == 1)
            let stranger = try await service.headers("u-stranger")
            #expect(try await live(client, .GET, "/api/coach/threads/\(threadID)/messages", headers: stranger).status == 404)
            #expect(try await live(client, .POST, "/api/coach/threads", headers: maya, body: body([:])).status == 400)
        }
        // The coach's instructions reached the system prompt of Maya's turns.
        let turns = try await service.engine.chats.turns(threadID: try #require(service.engine.chats.threads(userID: "u-maya", assistant: "coach").first).id)
        #expect(turns.count == 2)
    }

    @Test func stopAndDisconnectStopTheReplyAndKeepWhatWasWritten() async throws {
        let pieces = (0..<400).map { "w\($0) " }
        try await StubChatServer.with({ _ in .stream(pieces, pause: 0.01) }) { server in
            let provider = try RemoteProviderForTests.make(server.baseURL)
            let service = try await TestService(provider: provider, grace: 0)
            let maya = try await service.headers("u-maya")
            try await service.test(.live) { client in
                let threadID = try await client.execute(uri: "/api/coach/threads", method: .post, headers: maya, body: body(["course_id": "c-1"])) { response in
                    try #require(json(response.body)["id"] as? String)
                }
                // Start a reply in the background, then stop it by the thread.
                async let streamed = live(client, .POST, "/api/coach/threads/\(threadID)/messages", headers: maya, body: body(["content": "Tell me everything"]))
                #expect(await server.waitUntil(timeout: 10) { !$0.isEmpty })
                try await Task.sleep(for: .milliseconds(200))
                let stop = try await live(client, .POST, "/api/coach/threads/\(threadID)/stop", headers: maya)
                #expect(stop.status == 200)
                #expect(stop.text.contains("\"stopped\":true"))
                let events = frames(try await streamed.text)
                #expect(events.last?.event == "done")
                #expect(events.last?.data["status"] as? String == "stopped")
                #expect(await server.waitUntil(timeout: 5) { $0.first?.clientDisconnected == true }, "the model server sees the disconnect")
                let reply = try await #require(service.engine.chats.recentMessages(threadID: threadID, limit: 5).last)
                #expect(reply.status == .stopped)
                #expect(reply.content.hasPrefix("w0 "))
                #expect(!reply.content.contains("w399"))
            }
        }
    }
}
