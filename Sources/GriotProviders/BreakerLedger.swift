/// Where the circuit breakers of every node that calls the same provider share what they
/// know, so that the fleet acts as one: a breaker opened by one node is open on all, and when
/// its time is up exactly one call in the fleet probes the provider. A node's own failures are
/// still counted by its own breaker; only the transitions are shared.
///
/// ```swift
/// let breakers = CircuitBreakerRegistry(policy: policy, ledger: ledger)   // every node, one database
/// ```
///
/// Times are the breakers' clock seconds (the system clock: seconds since 1970). A ledger that
/// cannot be reached is ignored: each node's breaker then works on its own, as before.
public protocol BreakerLedger: Sendable {
    /// The fleet's view of a breaker; nil when none was recorded.
    func state(of breaker: String) async throws -> SharedBreakerState?
    /// The breaker opened at `since` (a later opening replaces an earlier one, never the reverse).
    func recordOpen(_ breaker: String, since: Double) async throws
    /// A probe succeeded: the breaker is closed for every node.
    func recordClosed(_ breaker: String) async throws
    /// Takes the one probe of a breaker whose open period is over, for `lease` seconds; false
    /// when another node holds it (or the breaker is not open any more).
    func claimProbe(_ breaker: String, now: Double, openSeconds: Double, lease: Double) async throws -> Bool
    /// Gives back a probe whose caller went away before an outcome.
    func releaseProbe(_ breaker: String) async throws
}

/// A breaker as the fleet shares it.
public struct SharedBreakerState: Sendable, Hashable {
    /// When it last opened; nil when closed.
    public var openSince: Double?
    /// Until when a node's probe holds the half-open slot.
    public var probeUntil: Double?

    public init(openSince: Double?, probeUntil: Double?) {
        self.openSince = openSince
        self.probeUntil = probeUntil
    }
}
