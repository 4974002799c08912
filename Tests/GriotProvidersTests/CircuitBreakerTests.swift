import GriotProviders
import Testing

@Suite struct CircuitBreakerTests {
    let clock = ManualResilienceClock()

    func breaker() -> CircuitBreaker { CircuitBreaker(name: "openai", clock: clock) }

    func fail(_ breaker: CircuitBreaker, times: Int) async throws {
        for _ in 0..<times {
            let permit = try await breaker.admit()
            await breaker.record(.serverFailure, for: permit)
        }
    }

    func isOpenError(_ error: any Error, retryAfter expected: Double) -> Bool {
        guard case .circuitOpen("openai", let seconds) = error as? ProviderError else { return false }
        return abs(seconds - expected) < 1e-9
    }

    @Test func threeConsecutiveServerFailuresOpenItAndASuccessResetsTheCount() async throws {
        let breaker = breaker()
        try await fail(breaker, times: 2)
        await breaker.record(.success, for: try await breaker.admit())
        try await fail(breaker, times: 2)
        #expect(await breaker.snapshot().state == .closed)
        #expect(await breaker.snapshot().consecutiveFailures == 2)
        try await fail(breaker, times: 1)
        #expect(await breaker.snapshot() == CircuitBreaker.Snapshot(
            name: "openai", state: .open, consecutiveFailures: 3, openedAt: clock.now(), retryAt: clock.now() + 120, probeInFlight: false))
    }

    @Test func refusalsNeitherCountNorReset() async throws {
        let breaker = breaker()
        try await fail(breaker, times: 2)
        await breaker.record(CircuitBreaker.Outcome(ProviderError.status(code: 429, message: "slow down", retryAfterSeconds: 1)), for: try await breaker.admit())
        await breaker.record(CircuitBreaker.Outcome(ProviderError.status(code: 400, message: "bad", retryAfterSeconds: nil)), for: try await breaker.admit())
        #expect(await breaker.snapshot().consecutiveFailures == 2)
        await breaker.record(CircuitBreaker.Outcome(ProviderError.status(code: 502, message: "bad gateway", retryAfterSeconds: nil)), for: try await breaker.admit())
        #expect(await breaker.snapshot().state == .open)
    }

    @Test func openItFailsFastUntilThePeriodEnds() async throws {
        let breaker = breaker()
        try await fail(breaker, times: 3)
        clock.advance(by: 100)
        await #expect { try await breaker.admit() } throws: { isOpenError($0, retryAfter: 20) }
        #expect("\(ProviderError.circuitOpen(provider: "openai", retryAfterSeconds: 20))".hasPrefix("AI temporarily unavailable"))
        clock.advance(by: 19.9)
        await #expect(throws: ProviderError.self) { try await breaker.admit() }
        clock.advance(by: 0.1)
        #expect(await breaker.snapshot().state == .halfOpen)
        #expect(try await breaker.admit().isProbe)
    }

    @Test func halfOpenItLetsExactlyOneProbeThrough() async throws {
        let breaker = breaker()
        try await fail(breaker, times: 3)
        clock.advance(by: 120)
        let probe = try await breaker.admit()
        #expect(probe.isProbe)
        #expect(await breaker.snapshot().probeInFlight)
        for _ in 0..<5 {
            await #expect { try await breaker.admit() } throws: { isOpenError($0, retryAfter: 0) }
        }
        await breaker.record(.success, for: probe)
        #expect(await breaker.snapshot() == CircuitBreaker.Snapshot(
            name: "openai", state: .closed, consecutiveFailures: 0, openedAt: nil, retryAt: nil, probeInFlight: false))
        #expect(try await !breaker.admit().isProbe)
    }

    @Test func aFailedProbeReopensItForAnotherPeriod() async throws {
        let breaker = breaker()
        try await fail(breaker, times: 3)
        clock.advance(by: 120)
        let probe = try await breaker.admit()
        clock.advance(by: 2)
        await breaker.record(.serverFailure, for: probe)
        let snapshot = await breaker.snapshot()
        #expect(snapshot.state == .open)
        #expect(snapshot.openedAt == clock.now())
        #expect(snapshot.retryAt == clock.now() + 120)
        await #expect { try await breaker.admit() } throws: { isOpenError($0, retryAfter: 120) }
    }

    @Test func aProbeThatAnsweredWithARefusalClosesIt() async throws {
        let breaker = breaker()
        try await fail(breaker, times: 3)
        clock.advance(by: 120)
        await breaker.record(.refused, for: try await breaker.admit())
        #expect(await breaker.snapshot().state == .closed)
    }

    @Test func anAbandonedProbeFreesTheSlotForTheNextCall() async throws {
        let breaker = breaker()
        try await fail(breaker, times: 3)
        clock.advance(by: 120)
        await breaker.record(.abandoned, for: try await breaker.admit())
        let snapshot = await breaker.snapshot()
        #expect(snapshot.state == .halfOpen && !snapshot.probeInFlight)
        #expect(try await breaker.admit().isProbe)
    }

    @Test func anOutcomeFromBeforeTheBreakerMovedOnChangesNothing() async throws {
        let breaker = breaker()
        let slow = try await breaker.admit()
        try await fail(breaker, times: 3)
        clock.advance(by: 120)
        let probe = try await breaker.admit()
        // The slow call from before the breaker opened succeeds now: it says nothing about the probe.
        await breaker.record(.success, for: slow)
        #expect(await breaker.snapshot().probeInFlight)
        await breaker.record(.serverFailure, for: probe)
        #expect(await breaker.snapshot().state == .open)
    }

    @Test func theRegistryHasOneBreakerPerProviderAndListsThem() async throws {
        let registry = CircuitBreakerRegistry(clock: clock)
        let openAI = await registry.breaker(named: "openai")
        #expect(await registry.breaker(named: "openai") === openAI)
        _ = await registry.breaker(named: "azure-openai")
        try await fail(openAI, times: 3)
        let snapshots = await registry.snapshots()
        #expect(snapshots.map(\.name) == ["azure-openai", "openai"])
        #expect(snapshots.map(\.state) == [.closed, .open])
    }
}
