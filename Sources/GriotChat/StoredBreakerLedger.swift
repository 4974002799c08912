import GriotProviders
import GriotStore

/// The breakers' ledger kept in the service's database (`BreakerStore`), so that every node on
/// a shared database acts on what one node learned of a provider.
///
/// ```swift
/// let breakers = CircuitBreakerRegistry(policy: policy, ledger: StoredBreakerLedger(store: chats))
/// ```
public struct StoredBreakerLedger: BreakerLedger {
    public let store: any BreakerStore

    public init(store: any BreakerStore) {
        self.store = store
    }

    public func state(of breaker: String) async throws -> SharedBreakerState? {
        try await store.breakerState(breaker).map { SharedBreakerState(openSince: $0.openSince, probeUntil: $0.probeUntil) }
    }

    public func recordOpen(_ breaker: String, since: Double) async throws {
        try await store.openBreaker(breaker, since: since)
    }

    public func recordClosed(_ breaker: String) async throws {
        try await store.closeBreaker(breaker)
    }

    public func claimProbe(_ breaker: String, now: Double, openSeconds: Double, lease: Double) async throws -> Bool {
        try await store.claimBreakerProbe(breaker, now: now, openSeconds: openSeconds, lease: lease)
    }

    public func releaseProbe(_ breaker: String) async throws {
        try await store.releaseBreakerProbe(breaker)
    }
}
