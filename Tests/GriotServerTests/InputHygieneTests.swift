import AsyncHTTPClient
import Foundation
import GriotArchive
import GriotChat
import GriotServer
import GriotStore
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing

/// Faulty and hostile input through HTTP, as a client sends it: each is refused with a status and
/// a body that says what to do, and nothing is stored other than what was sent.
@Suite struct InputHygieneTests {
    func error(_ response: LiveResponse) -> [String: Any] {
        object(response.text)["error"] as? [String: Any] ?? [:]
    }

    /// The service on the demo archive answering from `stub`, with `settings` added to the
    /// environment it is configured from.
    func service(answeringFrom stub: StubChatServer, settings: [String: String] = [:]) async throws -> (TestService, GriotConfiguration) {
        let environment = [
            "GRIOT_PROMPTS": packageRoot.appendingPathComponent("prompts").path, "GRIOT_PROVIDER": "openai",
            "OPENAI_BASE_URL": stub.baseURL, "OPENAI_MODEL": "stub-model",
        ].merging(settings) { _, setting in setting }
        let configuration = try GriotConfiguration.load(file: nil, environment: environment)
        let engine = try await ChatEngine.open(archive: demoArchive, configuration: configuration, environment: environment,
                                               chats: try await TestDatabase.storage().chats)
        return (try await TestService(engine: engine), configuration)
    }

    /// The stored content of the session's first message in `role`, as `GET /api/griot/sessions/{id}` gives it.
    func storedContent(_ role: String, of reply: LiveResponse, _ client: any TestClientProtocol, headers: HTTPFields) async throws -> String {
        let session = try #require(object(reply.text)["session_id"] as? String)
        let detail = try await live(client, .GET, "/api/griot/sessions/\(session)", headers: headers)
        let messages = try #require(object(detail.text)["messages"] as? [[String: Any]])
        return try #require(messages.first { $0["role"] as? String == role }?["content"] as? String)
    }

    // MARK: NUL

    @Test func aMessageWithANulIsRefusedWholeAndNothingIsStored() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-nul")
        try await service.test(.live) { client in
            let sent = "Tell me about the flood\u{0} and the levee"
            for path in ["/api/griot/chat", "/api/griot/chat/stream"] {
                let refused = try await live(client, .POST, path, headers: headers, body: body(["message": sent, "session_id": "nul-session"]))
                #expect(refused.status == 400, "\(path): \(refused.text)")
                #expect(error(refused)["code"] as? String == "invalid_message")
                #expect((error(refused)["message"] as? String)?.contains("NUL character (U+0000") == true)
            }
            // Not even the client-named session was made.
            let sessions = try await live(client, .GET, "/api/griot/sessions", headers: headers)
            #expect((object(sessions.text)["sessions"] as? [Any])?.isEmpty == true)
            #expect(try await service.engine.chats.threadExists(id: "nul-session") == false)

            // The coaching chat and an edit go through the same rule.
            let opened = try await live(client, .POST, "/api/coach/threads", headers: headers, body: body(["course_id": "course-7"]))
            let thread = try #require(object(opened.text)["id"] as? String)
            let coached = try await live(client, .POST, "/api/coach/threads/\(thread)/messages", headers: headers, body: body(["content": sent]))
            #expect(coached.status == 400 && error(coached)["code"] as? String == "invalid_message", "\(coached.text)")
            let page = try await live(client, .GET, "/api/coach/threads/\(thread)/messages", headers: headers)
            #expect((object(page.text)["messages"] as? [Any])?.isEmpty == true)

            _ = try await live(client, .POST, "/api/coach/threads/\(thread)/messages", headers: headers, body: body(["content": "Hello coach"]))
            let sentPage = try await live(client, .GET, "/api/coach/threads/\(thread)/messages", headers: headers)
            let mine = try #require((object(sentPage.text)["messages"] as? [[String: Any]])?.first { $0["role"] as? String == "user" })
            var editing = headers
            editing[.ifMatch] = try #require(mine["etag"] as? String)
            let edited = try await live(client, .PATCH, "/api/coach/messages/\(try #require(mine["id"] as? String))", headers: editing,
                                        body: body(["content": "Hello\u{0} coach"]))
            #expect(edited.status == 400 && (error(edited)["message"] as? String)?.contains("NUL character") == true, "\(edited.text)")
            let after = try await live(client, .GET, "/api/coach/threads/\(thread)/messages", headers: headers)
            #expect((object(after.text)["messages"] as? [[String: Any]])?.first { $0["role"] as? String == "user" }?["content"] as? String == "Hello coach")
        }
    }

    @Test func whatIsStoredIsExactlyWhatWasSent() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-exact")
        try await service.test(.live) { client in
            // Other control characters, combining marks and any script are stored as sent.
            let sent = "Who kept bees?\u{1}\u{7F} Zofia Łukasiewicz, 李秀英, e\u{301}"
            let reply = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["message": sent]))
            #expect(reply.status == 200, "\(reply.text)")
            let stored = try await storedContent("user", of: reply, client, headers: headers)
            #expect(Array(stored.unicodeScalars) == Array(sent.unicodeScalars))
        }
    }

    /// A model whose reply holds a NUL: the client gets the reply without it, and the session
    /// holds exactly what the client got (SQLite text would have ended at the NUL).
    @Test func aNulInTheModelsReplyIsDroppedAndTheStoredReplyIsWhatWasSent() async throws {
        try await StubChatServer.with({ _ in .stream(["Bees were\u{0}", " kept by Octavia.\u{0}"]) }) { stub in
            let (service, _) = try await self.service(answeringFrom: stub)
            let headers = try await service.headers("u-nul-reply")
            try await service.test(.live) { client in
                let reply = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["message": "Who kept bees?"]))
                #expect(reply.status == 200, "\(reply.text)")
                let content = try #require(object(reply.text)["content"] as? String)
                #expect(content.contains("Bees were kept by Octavia."), "\(content.debugDescription)")
                #expect(!content.unicodeScalars.contains("\u{0}"))
                let stored = try await storedContent("assistant", of: reply, client, headers: headers)
                #expect(Array(stored.unicodeScalars) == Array(content.unicodeScalars))
            }
        }
    }

    // MARK: Session ids

    @Test func aSessionIdOutsideTheRuleIsRefusedBeforeAnythingIsStored() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-ids")
        try await service.test(.live) { client in
            for id in ["../../etc/passwd", String(repeating: "s", count: 100_000), "-starts-with-a-dash", "has space", "ümlaut"] {
                let refused = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["session_id": id, "message": "Who kept bees?"]))
                #expect(refused.status == 400, "\(id.prefix(30)): \(refused.text.prefix(300))")
                #expect(error(refused)["code"] as? String == "invalid_session_id")
                #expect((error(refused)["message"] as? String)?.contains("1 to 128 letters, digits") == true)
                #expect((error(refused)["details"] as? [String: Any])?["pattern"] as? String == "^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$")
                #expect(refused.text.count < 1_000, "the refusal does not echo a huge id back")
            }
            let sessions = try await live(client, .GET, "/api/griot/sessions", headers: headers)
            #expect((object(sessions.text)["sessions"] as? [Any])?.isEmpty == true)

            // An id within the rule works end to end: created, read, deleted by its owner.
            let id = "family-reunion_2026.v1~a"
            let asked = try await live(client, .POST, "/api/griot/chat/stream", headers: headers, body: body(["session_id": id, "message": "Who kept bees?"]))
            #expect(asked.status == 200)
            #expect(try await live(client, .GET, "/api/griot/sessions/\(id)", headers: headers).status == 200)
            #expect(try await live(client, .DELETE, "/api/griot/sessions/\(id)", headers: headers).status == 204)

            // The routes that read a session or thread id hold it to the same rule.
            let long = String(repeating: "t", count: 129)
            for (method, path) in [(NIOHTTP1.HTTPMethod.GET, "/api/griot/sessions/\(long)"), (.DELETE, "/api/griot/sessions/\(long)"),
                                   (.GET, "/api/coach/threads/\(long)/messages"), (.POST, "/api/coach/threads/\(long)/stop")] {
                let response = try await live(client, method, path, headers: headers)
                #expect(response.status == 400, "\(method) \(path.prefix(40))")
                #expect((error(response)["code"] as? String)?.hasPrefix("invalid_") == true)
            }
        }
    }

    // MARK: Sizes

    @Test func aBodyOverTheLimitIs413AndSaysTheLimit() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-big")
        try await service.test(.live) { client in
            let twentyMegabytes = body(["message": String(repeating: "flood ", count: 20 * 1024 * 1024 / 6)])
            let response = try await live(client, .POST, "/api/griot/chat", headers: headers, body: twentyMegabytes)
            #expect(response.status == 413)
            #expect(error(response)["code"] as? String == "body_too_large")
            #expect((error(response)["message"] as? String)?.contains("limit of 8 MB") == true)
            let health = try await live(client, .GET, "/healthz")
            #expect(health.status == 200, "the service goes on serving")
        }
    }

    @Test func aHugeQueryStringOrHeaderIs431WithABodyThatSaysWhatToDo() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-long")
        try await service.test(.live) { client in
            let query = try await live(client, .GET, "/api/stories/search?q=" + String(repeating: "flood+", count: 16_000), headers: headers)
            var filled = headers
            filled[HTTPField.Name("X-Filler")!] = String(repeating: "x", count: 90_000)
            let header = try await live(client, .GET, "/api/griot/sessions", headers: filled)
            for response in [query, header] {
                #expect(response.status == 431, "\(response.status) \(response.text.prefix(200))")
                #expect(error(response)["code"] as? String == "headers_too_large")
                #expect((error(response)["message"] as? String)?.contains("send long values in a JSON body") == true)
            }
            #expect(try await live(client, .GET, "/healthz").status == 200)
        }
    }

    // MARK: Streams

    @Test func aStreamThatSaysConnectionCloseClosesItAfterDone() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-close")
        try await service.test(.live) { client in
            let port = try #require(client.port)
            let payload = try JSONSerialization.data(withJSONObject: ["message": "Who kept bees?"])
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
            // A keep-alive request: only the response's `Connection: close` may end the connection.
            var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/api/griot/chat/stream")
            head.headers.add(name: "Host", value: "127.0.0.1")
            head.headers.add(name: "Content-Length", value: String(payload.count))
            for field in headers { head.headers.add(name: field.name.rawName, value: field.value) }
            let request = head
            let outcome = try await withThrowingTaskGroup(of: (String, String?, Bool)?.self) { group in
                group.addTask {
                    try await channel.executeThenClose { inbound, outbound in
                        try await outbound.write(.head(request))
                        try await outbound.write(.body(.byteBuffer(ByteBuffer(data: payload))))
                        try await outbound.write(.end(nil))
                        var text = ""
                        var connection: String?
                        var ended = false
                        // The loop ends only when the server closes the connection.
                        for try await part in inbound {
                            switch part {
                            case .head(let response): connection = response.headers.first(name: "Connection")
                            case .body(let buffer): text += String(buffer: buffer)
                            case .end: ended = true
                            }
                        }
                        return (text, connection, ended)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(20))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            let (text, connection, ended) = try #require(outcome, "the server kept the connection open after done")
            #expect(connection == "close")
            #expect(ended)
            #expect(frames(text).last?.event == "done")
        }
    }

    @Test func aLastEventIDThatIsNotAnEventIdIsRefusedAndStartsNoTurn() async throws {
        let service = try await TestService()
        let plain = try await service.headers("u-resume")
        try await service.test(.live) { client in
            var headers = plain
            for garbage in ["garbage", "abc:", ":5", "turn:-1", "turn:1.5", String(repeating: "z", count: 5_000)] {
                headers[HTTPField.Name("Last-Event-ID")!] = garbage
                let refused = try await live(client, .POST, "/api/griot/chat/stream", headers: headers, body: body(["message": "Who kept bees?"]))
                #expect(refused.status == 400, "\(garbage.prefix(20)): \(refused.text.prefix(200))")
                #expect(error(refused)["code"] as? String == "invalid_last_event_id")
                #expect((error(refused)["message"] as? String)?.contains("\"<turn id>:<n>\"") == true)
            }
            let sessions = try await live(client, .GET, "/api/griot/sessions", headers: headers)
            #expect((object(sessions.text)["sessions"] as? [Any])?.isEmpty == true, "no turn was started")
            // Well formed but unknown: 404, as before.
            headers[HTTPField.Name("Last-Event-ID")!] = "no-such-turn:3"
            let unknown = try await live(client, .POST, "/api/griot/chat/stream", headers: headers, body: body(["message": "Who kept bees?"]))
            #expect(unknown.status == 404 && error(unknown)["code"] as? String == "turn_not_found")
        }
    }

    @Test func doneNamesNoModerationCategoryWhenNothingScored() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-calm")
        try await service.test(.live) { client in
            let calm = try await live(client, .POST, "/api/griot/chat/stream", headers: headers, body: body(["message": "Who kept bees?"]))
            let done = try #require(frames(calm.text).last { $0.event == "done" }?.data)
            #expect(done["moderation_category"] == nil || done["moderation_category"] is NSNull, "\(done["moderation_category"] ?? "")")
            let rude = try await live(client, .POST, "/api/griot/chat/stream", headers: headers,
                                      body: body(["message": "Shut up, you idiot. You are worthless trash."]))
            let blocked = try #require(frames(rude.text).last { $0.event == "done" }?.data)
            #expect(blocked["moderation_category"] as? String == "harassment")
        }
    }

    // MARK: The breaker, configured

    /// The breaker and retries as configured through the environment (2 failures, 2 s open, 2
    /// attempts 10 ms apart): a failing model opens the breaker, the next chat gets 503
    /// `ai_unavailable` with `Retry-After` (the seconds left), and once they are over a chat goes
    /// through again. With the defaults (120 s) this would take two minutes.
    @Test func aBreakerOpenedByAFailingModelGives503WithRetryAfterThenRecovers() async throws {
        let healthy = Mutex(false)
        try await StubChatServer.with({ _ in healthy.withLock { $0 } ? .stream(["Bees were kept by Octavia."]) : .error(status: 503, message: "overloaded") }) { stub in
            let (service, configuration) = try await self.service(answeringFrom: stub, settings: [
                "GRIOT_BREAKER_FAILURES": "2", "GRIOT_BREAKER_OPEN_SECONDS": "2",
                "GRIOT_RETRY_ATTEMPTS": "2", "GRIOT_RETRY_BASE_DELAY_SECONDS": "0.01", "GRIOT_RETRY_MAX_DELAY_SECONDS": "0.02",
            ])
            #expect(configuration.breaker.failureThreshold == 2 && configuration.breaker.openSeconds == 2 && configuration.retry.maximumAttempts == 2)
            let headers = try await service.headers("u-breaker")
            try await service.test(.live) { client in
                let failed = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["message": "Who kept bees?"]))
                #expect(failed.status == 502, "two attempts, both 503: \(failed.text)")
                #expect(stub.requests.count == 2)

                let started = ContinuousClock.now
                let unavailable = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["message": "Who kept bees?"]))
                #expect(unavailable.status == 503)
                #expect(error(unavailable)["code"] as? String == "ai_unavailable")
                let retryAfter = try #require(unavailable.headers["retry-after"].flatMap(Int.init), "\(unavailable.headers)")
                #expect((1...2).contains(retryAfter))
                #expect(stub.requests.count == 2, "nothing reaches the model while the breaker is open")

                healthy.withLock { $0 = true }
                try await Task.sleep(until: started + .seconds(retryAfter) + .milliseconds(100))
                let recovered = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["message": "Who kept bees?"]))
                #expect(recovered.status == 200, "\(recovered.text)")
                #expect((object(recovered.text)["content"] as? String)?.contains("Bees were kept by Octavia") == true)
            }
        }
    }

    @Test func aBreakerSettingOutsideItsRangeSaysWhatToSet() throws {
        #expect(throws: ConfigurationError.self) { try GriotConfiguration.load(file: nil, environment: ["GRIOT_BREAKER_FAILURES": "three"]) }
        do {
            _ = try GriotConfiguration.load(file: nil, environment: ["GRIOT_BREAKER_OPEN_SECONDS": "0"])
            Issue.record("an open period of 0 s was accepted")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("use e.g. 120 (GRIOT_BREAKER_OPEN_SECONDS or breaker.open_seconds)"))
        }
        let defaults = try GriotConfiguration.load(file: nil, environment: [:])
        #expect(defaults.breaker.failureThreshold == 3 && defaults.breaker.openSeconds == 120)
        #expect(defaults.retry.maximumAttempts == 3 && defaults.retry.baseDelay == 0.5 && defaults.retry.maximumDelay == 8)

        // The configuration file sets them too, and the environment wins over it.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("griot-breaker-\(UUID().uuidString).json")
        try Data(#"{"breaker": {"failure_threshold": 5, "open_seconds": 30}, "retry": {"attempts": 1, "base_delay_seconds": 0.25, "max_delay_seconds": 4}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let configured = try GriotConfiguration.load(file: file.path, environment: ["GRIOT_BREAKER_OPEN_SECONDS": "45"])
        #expect(configured.breaker.failureThreshold == 5 && configured.breaker.openSeconds == 45)
        #expect(configured.retry.maximumAttempts == 1 && configured.retry.baseDelay == 0.25 && configured.retry.maximumDelay == 4)
    }
}
