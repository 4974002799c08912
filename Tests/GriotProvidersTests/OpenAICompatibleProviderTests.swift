import GriotTestSupport
import Foundation
@testable import GriotProviders
import NIOHTTP1
import Testing

@Suite struct OpenAICompatibleProviderTests {
    @Test func textArrivesInOrderAfterTheModelAndTheReplyEndsWithReasonAndUsage() async throws {
        try await StubChatServer.with({ _ in .stream(["Hel", "lo, ", "levee"], pause: 0.01, usage: (12, 3)) }) { server in
            let provider = OpenAICompatibleProvider(configuration: .stub(server))
            var request = ChatRequest.question()
            request.settings = ModelSettings(temperature: 0.2, maxTokens: 300)
            let reply = await ReceivedReply.of(provider.stream(request))

            #expect(reply.error == nil)
            #expect(reply.events == [
                .model("stub-model"), .text("Hel"), .text("lo, "), .text("levee"),
                .finished(reason: "stop", usage: TokenUsage(promptTokens: 12, completionTokens: 3)),
            ])
            let sent = try #require(server.requests.first)
            #expect(sent.method == .POST)
            #expect(sent.uri == "/v1/chat/completions")
            #expect(sent.headers.first(name: "authorization") == "Bearer sk-test")
            #expect(sent.headers.first(name: "content-type") == "application/json")
            #expect(sent.json["model"] as? String == "gpt-test")
            #expect(sent.json["stream"] as? Bool == true)
            #expect((sent.json["stream_options"] as? [String: Any])?["include_usage"] as? Bool == true)
            #expect(sent.json["temperature"] as? Double == 0.2)
            #expect(sent.json["max_tokens"] as? Int == 300)
            let messages = try #require(sent.json["messages"] as? [[String: String]])
            #expect(messages == [
                ["role": "system", "content": "Answer from the passages."],
                ["role": "user", "content": "What happened at the levee?"],
            ])
        }
    }

    @Test func theConfiguredModelAndSettingsApplyWhenTheRequestHasNone() async throws {
        try await StubChatServer.with({ _ in .stream(["ok"]) }) { server in
            var configuration = OpenAICompatibleConfiguration.stub(server)
            configuration.temperature = 0.7
            configuration.maxTokens = 50
            configuration.includeUsage = false
            configuration.apiKey = nil
            _ = await ReceivedReply.of(OpenAICompatibleProvider(configuration: configuration).stream(.question()))

            let sent = try #require(server.requests.first)
            #expect(sent.json["temperature"] as? Double == 0.7)
            #expect(sent.json["max_tokens"] as? Int == 50)
            // Some compatible servers reject `stream_options`, so it can be left out.
            #expect(sent.json["stream_options"] == nil)
            #expect(sent.headers.first(name: "authorization") == nil)
        }
    }

    @Test func linesSplitAcrossReadsEvenInsideACharacterAreReassembled() async throws {
        let stream = SSE.chunk(role: "assistant") + SSE.chunk("Café ") + SSE.chunk("🌊 and levee") + SSE.finish("stop") + SSE.done
        // Cut inside "data:", inside the JSON, inside é (2 bytes) and 🌊 (4 bytes), and between the two "\n" of a dispatch.
        let e = stream.firstIndex(of: 0xC3)!
        let wave = stream.firstIndex(of: 0xF0)!
        let blank = stream.indices.first { stream[$0] == 10 && stream[$0 + 1] == 10 }!
        let cuts = [3, 40, e + 1, wave + 2, blank + 1].sorted()
        var steps: [StubReply.Step] = []
        var start = 0
        for cut in cuts + [stream.count] {
            steps += [.send(Array(stream[start..<cut])), .pause(seconds: 0.02)]
            start = cut
        }
        try await StubChatServer.with({ [steps] _ in StubReply(steps: steps) }) { server in
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server)).stream(.question()))
            #expect(reply.error == nil)
            #expect(reply.pieces == ["Café ", "🌊 and levee"])
            #expect(reply.events.last == .finished(reason: "stop", usage: nil))
        }
    }

    @Test func keepAliveCommentsAreIgnored() async throws {
        let steps: [StubReply.Step] = [
            .send(SSE.keepAlive), .send(SSE.chunk(role: "assistant")), .pause(seconds: 0.02), .send(SSE.keepAlive),
            .send(SSE.chunk("Hello")), .send(Array(": ping\r\n\r\n".utf8)), .send(SSE.chunk(" there")),
            .send(SSE.finish("stop")), .send(SSE.keepAlive), .send(SSE.done),
        ]
        try await StubChatServer.with({ [steps] _ in StubReply(steps: steps) }) { server in
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server)).stream(.question()))
            #expect(reply.events == [.model("stub-model"), .text("Hello"), .text(" there"), .finished(reason: "stop", usage: nil)])
        }
    }

    @Test func doneEndsTheReplyAndAServerThatKeepsTheReplyOpenIsLeft() async throws {
        // After [DONE] this stub would go on for 30 s; the consumer must not wait for it, and
        // the provider must not keep the connection for it either.
        let steps: [StubReply.Step] = [.send(SSE.chunk("Done")), .send(SSE.done), .pause(seconds: 30), .send(SSE.chunk("late"))]
        try await StubChatServer.with({ [steps] _ in StubReply(steps: steps) }) { server in
            let started = ContinuousClock.now
            let provider = OpenAICompatibleProvider(configuration: .stub(server, readTimeout: 20))
            let reply = await ReceivedReply.of(provider.stream(.question()))
            #expect(reply.error == nil)
            #expect(reply.events == [.model("stub-model"), .text("Done"), .finished(reason: nil, usage: nil)])
            #expect((ContinuousClock.now - started).seconds < 2)
            // About a second for what follows [DONE], far less than the 20 s read timeout.
            #expect(await server.waitUntil(timeout: 10) { $0.first?.clientDisconnected == true })
            #expect((ContinuousClock.now - started).seconds < 6)
        }
    }

    @Test func aFinishReasonWithoutDoneStillCompletesTheReply() async throws {
        let steps: [StubReply.Step] = [.send(SSE.chunk("All")), .send(SSE.finish("length"))]
        try await StubChatServer.with({ [steps] _ in StubReply(steps: steps) }) { server in
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server)).stream(.question()))
            #expect(reply.error == nil)
            #expect(reply.events == [.model("stub-model"), .text("All"), .finished(reason: "length", usage: nil)])
        }
    }

    @Test func aStreamThatEndsWithoutDoneOrFinishReasonEndedEarly() async throws {
        try await StubChatServer.with({ _ in StubReply(steps: [.send(SSE.chunk("Half")), .send(SSE.chunk(" a"))]) }) { server in
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server)).stream(.question()))
            #expect(reply.pieces == ["Half", " a"])
            #expect(reply.providerError == .connection("stream ended early"))
        }
    }

    @Test func anAbruptCloseMidStreamIsAConnectionErrorAfterThePartialText() async throws {
        try await StubChatServer.with({ _ in StubReply(steps: [.send(SSE.chunk("Half")), .pause(seconds: 0.05), .closeAbruptly]) }) { server in
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server)).stream(.question()))
            #expect(reply.text == "Half")
            guard case .connection = try #require(reply.providerError) else {
                Issue.record("expected a connection error, got \(String(describing: reply.error))")
                return
            }
        }
    }

    @Test func anErrorReplySurfacesTheServiceMessageAndRetryAfter() async throws {
        // Ten minutes ahead, so that even a slow, loaded run reads it as minutes away.
        let inTenMinutes = Date().addingTimeInterval(600)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let replies: [StubReply] = [
            .error(status: 429, message: "Rate limit reached for gpt-test", headers: [("retry-after", "7")]),
            .error(status: 503, message: "The engine is currently overloaded", headers: [("Retry-After", formatter.string(from: inTenMinutes))]),
            StubReply(status: 502, headers: [("content-type", "text/plain")], steps: [.send(Array("upstream connect error".utf8))]),
            StubReply(status: 401, headers: [("content-type", "application/json")], steps: [.send(SSE.json(["error": ["message": "Incorrect API key provided"]]))]),
        ]
        try await StubChatServer.with({ replies[$0] }) { server in
            let provider = OpenAICompatibleProvider(configuration: .stub(server))
            let limited = await ReceivedReply.of(provider.stream(.question()))
            #expect(limited.providerError == .status(code: 429, message: "Rate limit reached for gpt-test", retryAfterSeconds: 7))

            let overloaded = try #require(await ReceivedReply.of(provider.stream(.question())).providerError)
            guard case .status(503, "The engine is currently overloaded", let wait?) = overloaded else {
                Issue.record("unexpected \(overloaded)")
                return
            }
            #expect(wait > 480 && wait <= 600)

            let plain = await ReceivedReply.of(provider.stream(.question()))
            #expect(plain.providerError == .status(code: 502, message: "upstream connect error", retryAfterSeconds: nil))

            let unauthorised = try #require(await ReceivedReply.of(provider.stream(.question())).providerError)
            #expect(unauthorised.description == "The AI service answered with HTTP 401: Incorrect API key provided Check the API key (OPENAI_API_KEY or AZURE_OPENAI_API_KEY).")
            #expect(!unauthorised.isRetryable)
        }
    }

    @Test func anErrorObjectInsideTheStreamIsAnError() async throws {
        let steps: [StubReply.Step] = [
            .send(SSE.chunk("Once")),
            .send(SSE.event(["error": ["message": "The server had an error while processing your request.", "type": "server_error"]])),
            .send(SSE.done),
        ]
        try await StubChatServer.with({ [steps] _ in StubReply(steps: steps) }) { server in
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server)).stream(.question()))
            #expect(reply.text == "Once")
            #expect(reply.providerError == .upstream(message: "The server had an error while processing your request.", type: "server_error"))
        }
    }

    @Test func aDataLineThatIsNotAChunkIsAMalformedStream() async throws {
        try await StubChatServer.with({ _ in StubReply(steps: [.send(Array("data: <html>\n\n".utf8))]) }) { server in
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server)).stream(.question()))
            guard case .malformedStream = try #require(reply.providerError) else {
                Issue.record("expected a malformed stream, got \(String(describing: reply.error))")
                return
            }
        }
    }

    /// An endless line is not held until memory runs out: past 1 MiB the stream is malformed
    /// (not a connection failure, which would be retried for the same line again).
    @Test func aLineLongerThanTheCapIsAMalformedStream() async throws {
        let line = Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20) + Array("\n\n".utf8)
        try await StubChatServer.with({ _ in StubReply(steps: [.send(SSE.chunk("Once")), .pause(seconds: 0.05), .send(line), .send(SSE.done)]) }) { server in
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server)).stream(.question()))
            #expect(reply.text == "Once")
            #expect(reply.providerError == .malformedStream(
                "an event-stream line is longer than 1048576 bytes; the service is not sending a chat-completions stream, or not one Griot can hold"))
        }
    }

    @Test func aServerThatIgnoresStreamingIsToldApartFromAnError() async throws {
        let replies: [StubReply] = [
            StubReply(headers: [("content-type", "application/json")],
                      steps: [.send(SSE.json(["choices": [["message": ["role": "assistant", "content": "Whole reply"]]]]))]),
            StubReply(headers: [("content-type", "application/json; charset=utf-8")],
                      steps: [.send(SSE.json(["error": ["message": "Streaming is not enabled for this model"]]))]),
        ]
        try await StubChatServer.with({ replies[$0] }) { server in
            let provider = OpenAICompatibleProvider(configuration: .stub(server))
            let whole = await ReceivedReply.of(provider.stream(.question()))
            #expect(whole.providerError == .malformedStream("the service answered with JSON, not an event stream; does it support stream: true?"))
            let refused = await ReceivedReply.of(provider.stream(.question()))
            #expect(refused.providerError == .upstream(message: "Streaming is not enabled for this model", type: nil))
        }
    }

    @Test func headersThatDoNotArriveInTimeAreAConnectionError() async throws {
        try await StubChatServer.with({ _ in StubReply(steps: [.send(SSE.done)], headDelay: 30) }) { server in
            var configuration = OpenAICompatibleConfiguration.stub(server)
            configuration.connectTimeout = 0.3
            let started = ContinuousClock.now
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: configuration).stream(.question()))
            #expect(reply.providerError == .connection("no reply within 0.3 s"))
            #expect((ContinuousClock.now - started).seconds < 5)
        }
    }

    @Test func theAzureStyleCallsTheDeploymentWithItsAPIKeyHeader() async throws {
        try await StubChatServer.with({ _ in .stream(["Hi"]) }) { server in
            let configuration = OpenAICompatibleConfiguration(
                style: .azure, baseURL: "http://127.0.0.1:\(server.port)/", apiKey: "azure-key", model: "gpt-4o-mini",
                azureDeployment: "griot 4o", azureAPIVersion: "2024-10-21")
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: configuration).stream(.question()))
            #expect(reply.text == "Hi")
            let sent = try #require(server.requests.first)
            #expect(sent.uri == "/openai/deployments/griot%204o/chat/completions?api-version=2024-10-21")
            #expect(sent.headers.first(name: "api-key") == "azure-key")
            #expect(sent.headers.first(name: "authorization") == nil)
        }
    }

    @Test func cancellingTheConsumingTaskDisconnectsFromTheService() async throws {
        // Without the disconnect the stub would stream for 30 s more.
        let pieces = (0..<600).map { "word\($0) " }
        try await StubChatServer.with({ _ in .stream(pieces, pause: 0.05) }) { server in
            let provider = OpenAICompatibleProvider(configuration: .stub(server))
            let (threeWords, signal) = AsyncStream.makeStream(of: Void.self)
            let consumer = Task {
                var count = 0
                for try await event in provider.stream(.question()) {
                    if case .text = event { count += 1 }
                    if count == 3 { signal.yield() }
                }
            }
            for await _ in threeWords { break }
            let cancelled = ContinuousClock.now
            consumer.cancel()

            #expect(await server.waitUntil(timeout: 10) { $0.first?.clientDisconnected == true })
            let request = try #require(server.requests.first)
            guard case .clientDisconnected(let at) = request.ending else { return }
            #expect((at - cancelled).seconds < 1.5, "the stub saw the disconnect \((at - cancelled).seconds) s after the cancel")
        }
    }

    @Test func leavingTheLoopEarlyDisconnectsFromTheService() async throws {
        let pieces = (0..<600).map { "word\($0) " }
        try await StubChatServer.with({ _ in .stream(pieces, pause: 0.05) }) { server in
            let provider = OpenAICompatibleProvider(configuration: .stub(server))
            var count = 0
            for try await event in provider.stream(.question()) {
                if case .text = event { count += 1 }
                if count == 3 { break }
            }
            let left = ContinuousClock.now

            #expect(await server.waitUntil(timeout: 10) { $0.first?.clientDisconnected == true })
            guard case .clientDisconnected(let at) = try #require(server.requests.first).ending else { return }
            #expect((at - left).seconds < 1.5, "the stub saw the disconnect \((at - left).seconds) s after the loop ended")
        }
    }

    @Test func aSilentStreamIsGivenUpAfterTheReadTimeout() async throws {
        try await StubChatServer.with({ _ in StubReply(steps: [.send(SSE.chunk("Wait")), .pause(seconds: 30), .send(SSE.done)]) }) { server in
            let started = ContinuousClock.now
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server, readTimeout: 0.3)).stream(.question()))
            #expect(reply.text == "Wait")
            #expect(reply.providerError == .connection("the service sent nothing for 0.3 s"))
            #expect((ContinuousClock.now - started).seconds < 5)
            #expect(await server.waitUntil(timeout: 5) { $0.first?.clientDisconnected == true })
        }
    }

    @Test func keepAlivesKeepASlowStreamWithinTheReadTimeout() async throws {
        var steps: [StubReply.Step] = [.send(SSE.chunk(role: "assistant"))]
        for _ in 0..<6 { steps += [.pause(seconds: 0.1), .send(SSE.keepAlive)] }
        steps += [.send(SSE.chunk("Slow")), .send(SSE.finish("stop")), .send(SSE.done)]
        try await StubChatServer.with({ [steps] _ in StubReply(steps: steps) }) { server in
            let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: .stub(server, readTimeout: 0.4)).stream(.question()))
            #expect(reply.error == nil)
            #expect(reply.text == "Slow")
        }
    }

    @Test func anUnreachableServiceIsARetryableConnectionError() async throws {
        let server = try await StubChatServer.start { _ in .stream([]) }
        var configuration = OpenAICompatibleConfiguration.stub(server)
        // AsyncHTTPClient retries a refused connection until this deadline, then reports the refusal.
        configuration.connectTimeout = 0.5
        try await server.stop()
        let reply = await ReceivedReply.of(OpenAICompatibleProvider(configuration: configuration).stream(.question()))
        let error = try #require(reply.providerError)
        guard case .connection = error else {
            Issue.record("expected a connection error, got \(error)")
            return
        }
        #expect(error.isRetryable)
        #expect(error.description.hasSuffix("Check the base URL and that the service is running."))
    }
}
