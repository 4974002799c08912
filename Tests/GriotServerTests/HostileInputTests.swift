import Foundation
import GriotAuth
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 25's acceptance: the hostile-string corpus (`HostileStrings`) through every route that
/// takes text: the process stays up after each request (`/healthz` answers), and each request
/// gets a 2xx or a 4xx whose body says what was wrong, never a 5xx or a dropped connection.
@Suite(.serialized) struct HostileInputTests {
    /// A 2xx, or a 4xx with the error body's code and message.
    func expectClearAnswer(_ response: LiveResponse, _ what: String) {
        if (200..<300).contains(response.status) { return }
        #expect((400..<500).contains(response.status), "\(what): \(response.status) \(response.text.prefix(300))")
        let error = object(response.text)["error"] as? [String: Any]
        #expect(error?["code"] is String && !((error?["message"] as? String) ?? "").isEmpty, "\(what): \(response.text.prefix(300))")
    }

    func expectAlive(_ client: any TestClientProtocol, _ what: String) async throws {
        let health = try await live(client, .GET, "/healthz")
        #expect(health.status == 200, "the service did not answer after \(what)")
    }

    func raw(_ json: String) -> ByteBuffer { ByteBuffer(string: json) }

    @Test func theGriotChatRoutesAnswerEveryHostileString() async throws {
        let service = try await TestService(routeLimits: .generous)
        try await service.test(.live) { client in
            for (index, hostile) in HostileStrings.all.enumerated() {
                // One user per string: the per-user message limit is not what is tested here.
                let headers = try await service.headers("hostile-griot-\(index)")
                let chat = try await live(client, .POST, "/api/griot/chat", headers: headers, body: raw(#"{"message": \#(hostile.json)}"#))
                expectClearAnswer(chat, "chat: \(hostile)")
                let stream = try await live(client, .POST, "/api/griot/chat/stream", headers: headers, body: raw(#"{"message": \#(hostile.json)}"#))
                expectClearAnswer(stream, "stream: \(hostile)")
                if stream.status == 200 {
                    #expect(stream.text.contains("event: done"), "stream: \(hostile) ended without done")
                }
                let session = try await live(client, .POST, "/api/griot/chat", headers: headers,
                                             body: raw(#"{"message": "Who was Tad?", "session_id": \#(hostile.json)}"#))
                expectClearAnswer(session, "session_id: \(hostile)")
                try await expectAlive(client, hostile.name)
            }
        }
    }

    @Test func theCoachRoutesAnswerEveryHostileString() async throws {
        let service = try await TestService(routeLimits: .generous)
        try await service.test(.live) { client in
            for (index, hostile) in HostileStrings.all.enumerated() {
                let headers = try await service.headers("hostile-coach-\(index)", courses: ["course-1"])
                let opened = try await live(client, .POST, "/api/coach/threads", headers: headers, body: raw(#"{"course_id": "course-1"}"#))
                #expect(opened.status == 200 || opened.status == 201, "\(opened.text)")
                let threadID = try #require(object(opened.text)["id"] as? String)
                let sent = try await live(client, .POST, "/api/coach/threads/\(threadID)/messages", headers: headers,
                                          body: raw(#"{"content": \#(hostile.json)}"#))
                expectClearAnswer(sent, "coach send: \(hostile)")
                // An edit of the first message of the thread, when one was stored.
                let page = try await live(client, .GET, "/api/coach/threads/\(threadID)/messages", headers: headers)
                let messages = object(page.text)["messages"] as? [[String: Any]] ?? []
                if let first = messages.first(where: { $0["role"] as? String == "user" }), let id = first["id"] as? String,
                   let etag = first["etag"] as? String {
                    var editHeaders = headers
                    editHeaders[.ifMatch] = etag
                    let edited = try await live(client, .PATCH, "/api/coach/messages/\(id)", headers: editHeaders, body: raw(#"{"content": \#(hostile.json)}"#))
                    expectClearAnswer(edited, "coach edit: \(hostile)")
                }
                let course = try await live(client, .POST, "/api/coach/threads", headers: headers, body: raw(#"{"course_id": \#(hostile.json)}"#))
                expectClearAnswer(course, "course_id: \(hostile)")
                try await expectAlive(client, hostile.name)
            }
        }
    }

    @Test func theAdminAndSearchRoutesAnswerEveryHostileString() async throws {
        let service = try await TestService(routeLimits: .generous)
        try await service.test(.live) { client in
            let headers = try await service.headers("hostile-admin", role: .admin, courses: ["course-1"])
            for hostile in HostileStrings.all {
                let instructions = try await live(client, .PUT, "/api/coach/courses/course-1/instructions", headers: headers,
                                                  body: raw(#"{"instructions": \#(hostile.json), "title": \#(hostile.json)}"#))
                expectClearAnswer(instructions, "instructions: \(hostile)")
                // A query string carries what a URL can: the decoded text, percent-encoded (capped at 4 kB, under the URL limit).
                if let text = hostile.text {
                    let query = String(text.prefix(1_000)).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                    let search = try await live(client, .GET, "/api/stories/search?q=\(query)&k=5", headers: headers)
                    expectClearAnswer(search, "search: \(hostile)")
                    let path = String(text.prefix(200)).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                    for route in ["/api/griot/sessions/\(path)", "/api/coach/threads/\(path)/messages", "/api/coach/threads/\(path)/export"] where !path.isEmpty {
                        expectClearAnswer(try await live(client, .GET, route, headers: headers), "\(route.prefix(40)): \(hostile)")
                    }
                }
                try await expectAlive(client, hostile.name)
            }
        }
    }
}
