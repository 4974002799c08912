import AsyncHTTPClient
import Foundation
import GriotArchive
import GriotChat
import GriotPrompts
import GriotSafety
import GriotServer
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// The chunks of an OpenAI stream: each `data:` line's JSON, and whether `[DONE]` ended it.
func completionChunks(_ text: String) -> (chunks: [[String: Any]], done: Bool) {
    var chunks: [[String: Any]] = []
    var done = false
    for frame in text.components(separatedBy: "\n\n") where frame.hasPrefix("data: ") {
        let data = frame.dropFirst(6)
        if data == "[DONE]" { done = true; continue }
        chunks.append(object(String(data)))
    }
    return (chunks, done)
}

/// The OpenAI facade (issue 36) through the service's router and real connections: the same
/// turn as Griot's own routes, in OpenAI's format, with the refusals in OpenAI's error shape.
@Suite struct V1RoutesTests {
    static func completion(_ model: String = "griot", _ question: String, extra: [String: Any] = [:]) -> ByteBuffer {
        var object: [String: Any] = ["model": model, "messages": [["role": "user", "content": question]]]
        object.merge(extra) { $1 }
        return body(object)
    }

    @Test func modelsNameEachAssistantAndItsLabels() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-v1-models")
        try await service.test(.router) { client in
            try await client.execute(uri: "/v1/models", method: .get, headers: headers) { response in
                #expect(response.status == .ok)
                let ids = (json(response.body)["data"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                for id in ["griot", "coach", "griot@production", "griot@latest", "coach@production"] { #expect(ids.contains(id), "\(ids)") }
                #expect(!ids.contains("crisis"), "fixed replies are no model anyone chats with")
            }
        }
    }

    @Test func aCompletionIsTheTurnOfGriotsOwnRoutesWithCitationsAndTheTurnAsExtensions() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-v1-plain")
        try await service.test(.router) { client in
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: headers,
                                     body: Self.completion("griot", "Who sang in the choir?")) { response in
                #expect(response.status == .ok)
                let reply = json(response.body)
                #expect(reply["object"] as? String == "chat.completion")
                #expect(reply["model"] as? String == "griot")
                let choice = try #require((reply["choices"] as? [[String: Any]])?.first)
                #expect(choice["finish_reason"] as? String == "stop")
                let content = try #require((choice["message"] as? [String: Any])?["content"] as? String)
                #expect(content.contains("choir"))
                let citations = try #require(reply["citations"] as? [[String: Any]])
                #expect(!citations.isEmpty)
                #expect(citations.allSatisfy { ($0["quote"] as? String).map { !$0.isEmpty } == true && $0["story_id"] is String })
                let griot = try #require(reply["griot"] as? [String: Any])
                #expect(griot["status"] as? String == "complete")
                #expect(griot["model"] as? String == "griot-extractive-1")
                #expect(griot["prompt_version"] as? Int == 1)
                let usage = try #require(reply["usage"] as? [String: Any])
                #expect((usage["prompt_tokens"] as? Int ?? 0) > 100 && (usage["completion_tokens"] as? Int ?? 0) > 10)
                // Stored: the question and the reply, in a thread of the caller's.
                let threadID = try #require(griot["thread_id"] as? String)
                let messages = try await service.engine.chats.recentMessages(threadID: threadID, limit: 10)
                #expect(messages.map(\.content) == ["Who sang in the choir?", content])
                #expect(try await service.engine.chats.thread(id: threadID)?.userID == "u-v1-plain")
            }
        }
    }

    @Test func aStreamIsChunksEndingWithTheExtensionsUsageAndDone() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-v1-stream")
        try await service.test(.live) { client in
            let response = try await live(client, .POST, "/v1/chat/completions", headers: headers,
                                          body: Self.completion("griot", "Who sang in the choir?", extra: ["stream": true, "stream_options": ["include_usage": true]]))
            #expect(response.status == 200)
            #expect(response.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            let (chunks, done) = completionChunks(response.text)
            #expect(done)
            #expect(chunks.allSatisfy { $0["object"] as? String == "chat.completion.chunk" && ($0["id"] as? String)?.hasPrefix("chatcmpl-") == true })
            let deltas = chunks.compactMap { (($0["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any]) }
            #expect(deltas.first?["role"] as? String == "assistant")
            let text = deltas.compactMap { $0["content"] as? String }.joined()
            let last = try #require(chunks.last { (($0["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String) != nil })
            #expect(!((last["citations"] as? [Any]) ?? []).isEmpty)
            let griot = try #require(last["griot"] as? [String: Any])
            let messageID = try #require(griot["message_id"] as? String)
            let stored = try #require(try await service.engine.chats.message(id: messageID))
            #expect(stored.content == text, "what was streamed is what was stored")
            let usage = try #require(chunks.last?["usage"] as? [String: Any])
            #expect((chunks.last?["choices"] as? [Any])?.isEmpty == true)
            #expect((usage["total_tokens"] as? Int ?? 0) > 0)
        }
    }

    @Test func maxTokensAndStopCutTheReplyAsAsked() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-v1-limits")
        try await service.test(.router) { client in
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: headers,
                                     body: Self.completion("griot", "Who sang in the choir?", extra: ["max_tokens": 6])) { response in
                let reply = json(response.body)
                let choice = try #require((reply["choices"] as? [[String: Any]])?.first)
                #expect(choice["finish_reason"] as? String == "length")
                #expect((reply["usage"] as? [String: Any])?["completion_tokens"] as? Int ?? 99 <= 6)
            }
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: headers,
                                     body: Self.completion("griot", "Who sang in the choir?", extra: ["stop": ["[1]"]])) { response in
                let reply = json(response.body)
                let choice = try #require((reply["choices"] as? [[String: Any]])?.first)
                let content = try #require((choice["message"] as? [String: Any])?["content"] as? String)
                #expect(!content.isEmpty && !content.contains("[1]"), "\(content)")
                #expect(choice["finish_reason"] as? String == "stop")
            }
        }
    }

    @Test func statelessHistoryIsNotStoredAndAThreadIDContinuesTheStoredThread() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-v1-history")
        try await service.test(.router) { client in
            let history: [[String: Any]] = [
                ["role": "system", "content": "Answer warmly."],
                ["role": "user", "content": "Tell me about the choir."],
                ["role": "assistant", "content": "Hattie Odom ran the choir."],
                ["role": "user", "content": "Who sang with her?"],
            ]
            let threadID = try await client.execute(uri: "/v1/chat/completions", method: .post, headers: headers,
                                                    body: body(["model": "griot", "messages": history])) { response in
                #expect(response.status == .ok)
                return try #require((json(response.body)["griot"] as? [String: Any])?["thread_id"] as? String)
            }
            #expect(try await service.engine.chats.recentMessages(threadID: threadID, limit: 10).map(\.content).first == "Who sang with her?",
                    "only the new message and the reply are stored")
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: headers,
                                     body: Self.completion("griot", "And who cooked the Sunday supper?", extra: ["thread_id": threadID])) { response in
                #expect(response.status == .ok)
                #expect((json(response.body)["griot"] as? [String: Any])?["thread_id"] as? String == threadID)
            }
            #expect(try await service.engine.chats.recentMessages(threadID: threadID, limit: 10).count == 4)
            // Someone else's thread is not found, as on Griot's own routes.
            let other = try await service.headers("u-v1-other")
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: other,
                                     body: Self.completion("griot", "What else?", extra: ["thread_id": threadID])) { response in
                #expect(response.status == .notFound)
                let error = try #require(json(response.body)["error"] as? [String: Any])
                #expect(error["param"] as? String == "thread_id")
                #expect(error["type"] as? String == "invalid_request_error")
            }
        }
    }

    /// Each refusal in OpenAI's shape, naming the field: what would change the meaning is never ignored.
    @Test func whatWouldChangeTheMeaningIsRefusedNamingTheField() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-v1-refused", courses: ["course-7"])
        let question: [[String: Any]] = [["role": "user", "content": "Who sang?"]]
        let raw: [(body: [String: Any], status: Int, param: String?)] = [
            (["model": "griot", "n": 2, "messages": question], 400, "n"),
            (["model": "griot", "tools": [["type": "function", "function": ["name": "f"]]], "messages": question], 400, "tools"),
            (["model": "griot", "tool_choice": "required", "messages": question], 400, "tool_choice"),
            (["model": "griot", "response_format": ["type": "json_object"], "messages": question], 400, "response_format"),
            (["model": "griot", "logprobs": true, "messages": question], 400, "logprobs"),
            (["model": "griot", "messages": [["role": "user", "content": [["type": "image_url", "image_url": ["url": "data:,"]]]]]], 400, "messages[0].content"),
            (["model": "griot", "messages": [["role": "tool", "content": "42"]]], 400, "messages[0].role"),
            (["model": "griot", "messages": []], 400, "messages"),
            (["model": "griot", "messages": [["role": "assistant", "content": "Hello"]]], 400, "messages"),
            (["model": "griot", "temperature": 3, "messages": question], 400, "temperature"),
            (["model": "griot", "stop": ["a", "b", "c", "d", "e"], "messages": question], 400, "stop"),
            (["model": "griot", "stream_options": ["include_usage": true], "messages": question], 400, "stream_options"),
            (["model": "griot", "messages": "Who sang?"], 400, "messages"),
            (["model": "nope", "messages": question], 404, "model"),
            (["model": "griot@staging", "messages": question], 404, "model"),
            (["model": "coach", "messages": question], 400, "course_id"),
            (["model": "coach", "course_id": "course-9", "messages": question], 403, nil),
        ]
        let cases = raw.map { (body: body($0.body), shown: "\($0.body)", status: $0.status, param: $0.param) }
        let unsigned = body(["model": "griot", "messages": question])
        try await service.test(.router) { client in
            for test in cases {
                try await client.execute(uri: "/v1/chat/completions", method: .post, headers: headers, body: test.body) { response in
                    #expect(Int(response.status.code) == test.status, "\(test.shown): \(String(buffer: response.body))")
                    let error = try #require(json(response.body)["error"] as? [String: Any], "\(test.shown)")
                    #expect(error["message"] is String && error["type"] is String && error["code"] is String)
                    #expect(error["param"] as? String == test.param, "\(test.shown): \(error)")
                }
            }
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: [.contentType: "application/json"],
                                     body: unsigned) { response in
                #expect(response.status == .unauthorized)
                #expect((json(response.body)["error"] as? [String: Any])?["type"] as? String == "authentication_error")
            }
        }
    }

    /// The coach through the facade: in the caller's course thread, as the coach's own route.
    @Test func theCoachAnswersInTheCallersCourseThread() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-v1-coach", courses: ["course-7"])
        try await service.test(.router) { client in
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: headers,
                                     body: Self.completion("coach", "I walked three times this week.", extra: ["course_id": "course-7"])) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let griot = try #require(json(response.body)["griot"] as? [String: Any])
                let threadID = try #require(griot["thread_id"] as? String)
                let thread = try #require(try await service.engine.chats.thread(id: threadID))
                #expect(thread.courseID == "course-7" && thread.assistant == "coach")
            }
        }
    }

    /// A blocked message is stored (as on every route) and refused with 400 before any text,
    /// streamed or not; a stream refused that way is an HTTP error, not a 200 holding one.
    @Test func aBlockedMessageIsStoredAndRefusedBeforeAnyText() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-v1-blocked")
        let message = "I will kill you all, you worthless idiots"
        try await service.test(.live) { client in
            for stream in [false, true] {
                let response = try await live(client, .POST, "/v1/chat/completions", headers: headers,
                                              body: Self.completion("griot", message, extra: ["stream": stream]))
                #expect(response.status == 400)
                let error = try #require(object(response.text)["error"] as? [String: Any])
                #expect(error["code"] as? String == "message_blocked")
                let threadID = try #require((error["details"] as? [String: Any])?["thread_id"] as? String)
                let stored = try await service.engine.chats.recentMessages(threadID: threadID, limit: 10)
                #expect(stored.first?.content == message && stored.last?.status == .blocked)
            }
        }
    }

    /// The model unavailable: a failing upstream opens the breaker, and the facade says 503 with
    /// `Retry-After`, which OpenAI's SDKs raise as their own error and retry after.
    @Test func anUnavailableModelIs503WithRetryAfter() async throws {
        try await StubChatServer.with({ _ in .error(status: 503, message: "overloaded") }) { stub in
            // The breaker and retries as configured (2 failures open it for 30 s; 2 attempts 10 ms apart).
            let environment = [
                "GRIOT_PROMPTS": packageRoot.appendingPathComponent("prompts").path, "GRIOT_PROVIDER": "openai",
                "OPENAI_BASE_URL": stub.baseURL, "OPENAI_MODEL": "stub-model",
                "GRIOT_BREAKER_FAILURES": "2", "GRIOT_BREAKER_OPEN_SECONDS": "30",
                "GRIOT_RETRY_ATTEMPTS": "2", "GRIOT_RETRY_BASE_DELAY_SECONDS": "0.01", "GRIOT_RETRY_MAX_DELAY_SECONDS": "0.02",
            ]
            let configuration = try GriotConfiguration.load(file: nil, environment: environment)
            let engine = try await ChatEngine.open(archive: demoArchive, configuration: configuration, environment: environment,
                                                   chats: try await TestDatabase.storage().chats)
            let service = try await TestService(engine: engine)
            let headers = try await service.headers("u-v1-down")
            try await service.test(.router) { client in
                var statuses: [Int] = []
                for round in 0..<3 {
                    try await client.execute(uri: "/v1/chat/completions", method: .post, headers: headers,
                                             body: Self.completion("griot", "Who sang in the choir? (\(round))")) { response in
                        statuses.append(Int(response.status.code))
                        if response.status == .serviceUnavailable {
                            #expect(response.headers[.retryAfter] != nil)
                            #expect((json(response.body)["error"] as? [String: Any])?["code"] as? String == "ai_unavailable")
                        }
                    }
                }
                #expect(statuses == [502, 503, 503], "the model's failures, then the open breaker: \(statuses)")
            }
        }
    }

    /// A client that hangs up stops the turn at once (OpenAI's protocol has no resume): the
    /// upstream request is cancelled and what was written is stored as stopped.
    @Test func aClientThatHangsUpStopsTheTurnAndTheUpstreamRequest() async throws {
        let pieces = (0..<200).map { "Hattie Odom sang in the choir, verse \($0). " }
        try await StubChatServer.with({ _ in .stream(pieces, pause: 0.05) }) { stub in
            // A grace of 60 s: only the facade's own hang-up handling can stop the turn in time.
            let service = try await TestService(provider: try RemoteProviderForTests.make(stub.baseURL), grace: 60)
            let headers = try await service.headers("u-v1-hangup")
            try await service.test(.live) { client in
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(client.port!)/v1/chat/completions")
                request.method = .POST
                for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
                request.body = .bytes(Self.completion("griot", "Who sang in the choir?", extra: ["stream": true]))
                let (started, signal) = AsyncStream.makeStream(of: Void.self)
                let reader = Task {
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                    for try await _ in response.body { signal.yield() }
                }
                for await _ in started { break }
                reader.cancel()
                _ = await reader.result
                #expect(await stub.waitUntil(timeout: 5) { $0.first?.clientDisconnected == true }, "the upstream request was cancelled")
                let thread = try #require(try await service.engine.chats.threads(userID: "u-v1-hangup", assistant: "griot").first)
                var reply = try await service.engine.chats.recentMessages(threadID: thread.id, limit: 10).last
                for _ in 0..<50 where reply?.status == .streaming {
                    try await Task.sleep(for: .milliseconds(100))
                    reply = try await service.engine.chats.recentMessages(threadID: thread.id, limit: 10).last
                }
                #expect(reply?.status == .stopped)
            }
        }
    }

    @Test func moderationsSpeakOpenAIsFormatFromGriotsOwnModeration() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-v1-moderation")
        try await service.test(.router) { client in
            try await client.execute(uri: "/v1/moderations", method: .post, headers: headers,
                                     body: body(["input": ["I will kill you, you worthless idiot", "I love my grandmother's stories.", "I want to end my life tonight."]])) { response in
                #expect(response.status == .ok)
                let results = try #require(json(response.body)["results"] as? [[String: Any]])
                #expect(results.count == 3)
                #expect(results.map { $0["flagged"] as? Bool } == [true, false, true])
                for result in results {
                    #expect((result["categories"] as? [String: Bool])?.count == 13)
                    #expect((result["category_scores"] as? [String: Double])?.count == 13)
                }
                #expect((results[2]["categories"] as? [String: Bool])?["self-harm"] == true)
            }
            try await client.execute(uri: "/v1/moderations", method: .post, headers: headers, body: body(["model": "x"])) { response in
                #expect(response.status == .badRequest)
                #expect((json(response.body)["error"] as? [String: Any])?["param"] as? String == "input")
            }
        }
    }

    /// Griot's remote moderation pointed at a second Griot node's `/v1/moderations`: it reads
    /// that node's reply as it reads OpenAI's, and decides as the node's own moderation would.
    @Test func remoteModerationReadsASecondGriotNode() async throws {
        let moderating = try await TestService()
        let key = try await moderating.token("svc-moderation", role: .operator, courses: nil)
        try await moderating.test(.live) { node in
            let environment = ["GRIOT_MODERATION_URL": "http://127.0.0.1:\(node.port!)/v1/moderations", "GRIOT_MODERATION_API_KEY": key,
                               "GRIOT_MODERATION_TIMEOUT_SECONDS": "10"]
            let remote = try #require(SafetyTools.standard(embedder: nil, environment: environment).moderator as? RemoteModerator)
            for text in ["I will kill you, you worthless idiot", "I love my grandmother's stories.", "I want to end my life tonight.",
                         "Zofia Łukasiewicz sang in the choir.", "李秀英 kept the family Bible."] {
                let reading = await remote.moderate(text)
                #expect(reading.source.contains("remote griot-moderation-1"), "\(text): \(reading.source)")
                // What the second node flagged is what its own moderation acts on.
                let own = await moderating.engine.safety.moderator.moderate(text)
                let flaggedRemotely = reading.reasons.contains { $0.hasPrefix("remote flagged") }
                #expect(flaggedRemotely == (own.blocks || own.needsCrisisResponse), "\(text): \(reading.reasons) vs \(own)")
                #expect(reading.blocks == own.blocks && reading.needsCrisisResponse == own.needsCrisisResponse, "\(text): \(reading) vs \(own)")
            }
        }
    }
}
