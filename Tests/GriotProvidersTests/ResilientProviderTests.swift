import GriotTestSupport
import GriotProviders
import Testing

@Suite struct ResilientProviderTests {
    let clock = ManualResilienceClock()

    /// The stub's OpenAI provider with retries and a fresh breaker, on the manual clock.
    func resilient(_ server: StubChatServer, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) -> ResilientProvider {
        ResilientProvider(wrapping: OpenAICompatibleProvider(configuration: .stub(server)),
                          breaker: CircuitBreaker(name: "openai", clock: clock),
                          retryPolicy: RetryPolicy(random: random))
    }

    @Test func aPersistent503IsTriedThreeTimesWithBackoffWithinBounds() async throws {
        try await StubChatServer.with({ _ in .error(status: 503, message: "The engine is currently overloaded") }) { server in
            let reply = await ReceivedReply.of(resilient(server).stream(.question()))
            #expect(reply.providerError == .status(code: 503, message: "The engine is currently overloaded", retryAfterSeconds: nil))
            #expect(server.requests.count == 3)
            let sleeps = clock.sleeps
            #expect(sleeps.count == 2)
            #expect(sleeps.count == 2 && (0.25...0.5).contains(sleeps[0]) && (0.5...1.0).contains(sleeps[1]), "\(sleeps)")
        }
    }

    @Test func retryAfterIsHonouredAndCappedAtEightSeconds() async throws {
        let replies: [StubReply] = [
            .error(status: 503, message: "busy", headers: [("retry-after", "3")]),
            .error(status: 429, message: "Rate limit reached", headers: [("retry-after", "120")]),
            .stream(["Third ", "time"]),
        ]
        try await StubChatServer.with({ replies[$0] }) { server in
            let reply = await ReceivedReply.of(resilient(server).stream(.question()))
            #expect(reply.error == nil)
            #expect(reply.events == [.model("stub-model"), .text("Third "), .text("time"), .finished(reason: "stop", usage: nil)])
            #expect(server.requests.count == 3)
            #expect(clock.sleeps == [3, 8])
        }
    }

    @Test func aConnectionDroppedBeforeAnyTextIsRetried() async throws {
        let replies: [StubReply] = [StubReply(steps: [.send(SSE.chunk(role: "assistant")), .closeAbruptly]), .stream(["Recovered"])]
        try await StubChatServer.with({ replies[$0] }) { server in
            let reply = await ReceivedReply.of(resilient(server, random: { 0 }).stream(.question()))
            #expect(reply.error == nil)
            // The first attempt named the model too; the consumer hears it once.
            #expect(reply.events == [.model("stub-model"), .text("Recovered"), .finished(reason: "stop", usage: nil)])
            #expect(clock.sleeps == [0.25])
        }
    }

    @Test func noRetryOnceTextHasBeenStreamed() async throws {
        let replies: [StubReply] = [
            StubReply(steps: [.send(SSE.chunk("Once upon")), .pause(seconds: 0.05), .closeAbruptly]),
            .stream(["a different reply"]),
        ]
        try await StubChatServer.with({ replies[min($0, 1)] }) { server in
            let reply = await ReceivedReply.of(resilient(server).stream(.question()))
            #expect(reply.text == "Once upon")
            guard case .connection = try #require(reply.providerError) else {
                Issue.record("expected the connection error, got \(String(describing: reply.error))")
                return
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requests.count == 1)
            #expect(clock.sleeps.isEmpty)
        }
    }

    @Test func aClientErrorIsNotRetried() async throws {
        try await StubChatServer.with({ _ in .error(status: 400, message: "max_tokens is too large") }) { server in
            let reply = await ReceivedReply.of(resilient(server).stream(.question()))
            #expect(reply.providerError == .status(code: 400, message: "max_tokens is too large", retryAfterSeconds: nil))
            #expect(server.requests.count == 1)
        }
    }

    @Test func theBreakerOpensAfterThreeServerFailuresFailsFastAndAProbeClosesIt() async throws {
        // Three 503s, then the service is back.
        try await StubChatServer.with({ $0 < 3 ? .error(status: 503, message: "down") : .stream(["Back"]) }) { server in
            let provider = resilient(server)
            _ = await ReceivedReply.of(provider.stream(.question()))
            #expect(server.requests.count == 3)
            let opened = await provider.breaker.snapshot()
            #expect(opened.state == .open && opened.consecutiveFailures == 3)
            #expect(opened.retryAt == clock.now() + 120)

            // Open: the call fails at once and the stub sees nothing.
            let refused = await ReceivedReply.of(provider.stream(.question()))
            #expect(refused.providerError == .circuitOpen(provider: "openai", retryAfterSeconds: 120))
            #expect("\(try #require(refused.error))".hasPrefix("AI temporarily unavailable"))
            clock.advance(by: 119)
            #expect(await ReceivedReply.of(provider.stream(.question())).providerError == .circuitOpen(provider: "openai", retryAfterSeconds: 1))
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.requests.count == 3)

            // 120 s on: half-open, and the probe goes through and closes it.
            clock.advance(by: 1)
            #expect(await provider.breaker.snapshot().state == .halfOpen)
            let probe = await ReceivedReply.of(provider.stream(.question()))
            #expect(probe.text == "Back")
            #expect(server.requests.count == 4)
            #expect(await provider.breaker.snapshot() == CircuitBreaker.Snapshot(
                name: "openai", state: .closed, consecutiveFailures: 0, openedAt: nil, retryAt: nil, probeInFlight: false))
        }
    }

    @Test func aFailedProbeReopensTheBreakerWithoutRetrying() async throws {
        try await StubChatServer.with({ _ in .error(status: 503, message: "still down") }) { server in
            let provider = resilient(server)
            _ = await ReceivedReply.of(provider.stream(.question()))
            #expect(server.requests.count == 3)
            clock.advance(by: 120)

            let probe = await ReceivedReply.of(provider.stream(.question()))
            #expect(server.requests.count == 4)
            #expect(probe.providerError == .circuitOpen(provider: "openai", retryAfterSeconds: 120))
            let reopened = await provider.breaker.snapshot()
            #expect(reopened.state == .open && reopened.openedAt == clock.now() && reopened.consecutiveFailures == 4)
            _ = await ReceivedReply.of(provider.stream(.question()))
            #expect(server.requests.count == 4)
        }
    }

    @Test func whileTheProbeIsUnderWayOtherCallsStillFailFast() async throws {
        let slowRecovery = StubReply.stream(["still ", "here"], pause: 0.2)
        try await StubChatServer.with({ $0 < 3 ? .error(status: 500, message: "down") : slowRecovery }) { server in
            let provider = resilient(server)
            _ = await ReceivedReply.of(provider.stream(.question()))
            clock.advance(by: 120)

            let probe = Task { await ReceivedReply.of(provider.stream(.question())) }
            #expect(await server.waitUntil { $0.count == 4 })
            let other = await ReceivedReply.of(provider.stream(.question()))
            guard case .circuitOpen = try #require(other.providerError) else {
                Issue.record("expected the breaker to refuse, got \(String(describing: other.error))")
                return
            }
            #expect(server.requests.count == 4)

            #expect(await probe.value.text == "still here")
            #expect(await provider.breaker.snapshot().state == .closed)
            #expect(await ReceivedReply.of(provider.stream(.question())).text == "still here")
            #expect(server.requests.count == 5)
        }
    }

    @Test func cancellingThroughTheWrapperDisconnectsAndCountsNoFailure() async throws {
        let pieces = (0..<600).map { "word\($0) " }
        try await StubChatServer.with({ _ in .stream(pieces, pause: 0.05) }) { server in
            let provider = resilient(server)
            let (firstWord, signal) = AsyncStream.makeStream(of: Void.self)
            let consumer = Task {
                for try await event in provider.stream(.question()) {
                    if case .text = event { signal.yield() }
                }
            }
            for await _ in firstWord { break }
            let cancelled = ContinuousClock.now
            consumer.cancel()

            #expect(await server.waitUntil(timeout: 10) { $0.first?.clientDisconnected == true })
            guard case .clientDisconnected(let at) = try #require(server.requests.first).ending else { return }
            #expect((at - cancelled).seconds < 1.5, "the stub saw the disconnect \((at - cancelled).seconds) s after the cancel")
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requests.count == 1)
            #expect(await provider.breaker.snapshot().consecutiveFailures == 0)
        }
    }
}
