/// The circuit breakers of the service, one per provider name, for wrapping providers and for
/// listing in health checks and metrics.
///
/// ```swift
/// let breakers = CircuitBreakerRegistry()
/// let provider = await ResilientProvider(wrapping: openAI, registry: breakers)
/// for breaker in await breakers.snapshots() { print(breaker.name, breaker.state) }
/// ```
public actor CircuitBreakerRegistry {
    public nonisolated let policy: CircuitBreaker.Policy
    public nonisolated let clock: any ResilienceClock
    /// Where the breakers share their state with the other nodes (nil: this node alone).
    public nonisolated let ledger: (any BreakerLedger)?
    private var breakers: [String: CircuitBreaker] = [:]

    public init(policy: CircuitBreaker.Policy = CircuitBreaker.Policy(), clock: any ResilienceClock = SystemResilienceClock(),
                ledger: (any BreakerLedger)? = nil) {
        self.policy = policy
        self.clock = clock
        self.ledger = ledger
    }

    /// The breaker for a provider name, made on first use; every wrapper of that provider shares it.
    public func breaker(named name: String) -> CircuitBreaker {
        if let breaker = breakers[name] { return breaker }
        let breaker = CircuitBreaker(name: name, policy: policy, clock: clock, ledger: ledger)
        breakers[name] = breaker
        return breaker
    }

    /// Every breaker's state, by name.
    public func snapshots() async -> [CircuitBreaker.Snapshot] {
        var snapshots: [CircuitBreaker.Snapshot] = []
        for name in breakers.keys.sorted() {
            snapshots.append(await breakers[name]!.sharedSnapshot())
        }
        return snapshots
    }
}
