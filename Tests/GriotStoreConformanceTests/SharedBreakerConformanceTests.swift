import Foundation
import GriotChat
import GriotProviders
import GriotStore
import Testing

/// The circuit breakers of several nodes on one database act as one: three server failures seen
/// by node A open the breaker on B and C, and when the open period is over exactly one call in
/// the fleet probes the provider; its success closes the breaker everywhere.
@Suite struct SharedBreakerConformanceTests {
    let policy = CircuitBreaker.Policy(failureThreshold: 3, openSeconds: 120)

    @Test("A breaker opened by one node is open on the others; one probe in the fleet; its success closes it for all",
          arguments: StoreBackend.allCases)
    func theFleetSharesOneBreaker(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let clock = ManualResilienceClock()
            let ledger = StoredBreakerLedger(store: storage.chats)
            let nodes = (0..<3).map { _ in CircuitBreaker(name: "openai", policy: policy, clock: clock, ledger: ledger) }

            for _ in 0..<3 {
                let permit = try await nodes[0].admit()
                await nodes[0].record(.serverFailure, for: permit)
            }
            for node in nodes {
                await #expect(throws: ProviderError.self) { try await node.admit() }
            }
            #expect(await nodes[2].sharedSnapshot().state == .open)

            clock.advance(by: 121)
            // Every node asks at once: one gets the probe, the others fail fast.
            var probes: [(node: Int, permit: CircuitBreaker.Permit)] = []
            for (index, node) in nodes.enumerated() {
                if let permit = try? await node.admit() { probes.append((index, permit)) }
            }
            #expect(probes.count == 1 && probes[0].permit.isProbe)
            let (prober, permit) = try #require(probes.first)
            await nodes[prober].record(.success, for: permit)
            for node in nodes {
                let admitted = try await node.admit()
                #expect(!admitted.isProbe, "closed on every node")
            }
        }
    }

    @Test("A failed probe opens the breaker again for every node", arguments: StoreBackend.allCases)
    func aFailedProbeReopensForAll(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let clock = ManualResilienceClock()
            let ledger = StoredBreakerLedger(store: storage.chats)
            let a = CircuitBreaker(name: "openai", policy: policy, clock: clock, ledger: ledger)
            let b = CircuitBreaker(name: "openai", policy: policy, clock: clock, ledger: ledger)
            for _ in 0..<3 { await a.record(.serverFailure, for: try await a.admit()) }
            clock.advance(by: 121)
            let probe = try await b.admit()
            #expect(probe.isProbe)
            await b.record(.serverFailure, for: probe)
            clock.advance(by: 60)
            await #expect(throws: ProviderError.self) { try await a.admit() }
            let state = try #require(try await storage.chats.breakerState("openai"))
            #expect(state.openSince == clock.now() - 60)
        }
    }
}
