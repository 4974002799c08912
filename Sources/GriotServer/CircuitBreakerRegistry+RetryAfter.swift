import GriotProviders

extension CircuitBreakerRegistry {
    /// Whole seconds until an open breaker lets a call through again, for `Retry-After` on 503
    /// `ai_unavailable`: the longest open period still to run, and at least 1 (a half-open breaker
    /// whose one probe is under way lets the next call through as soon as the probe ends).
    func retryAfterSeconds() async -> Int {
        let now = clock.now()
        let waits = await snapshots().compactMap { snapshot -> Double? in
            guard snapshot.state != .closed, let retryAt = snapshot.retryAt else { return nil }
            return retryAt - now
        }
        return max(1, Int((waits.max() ?? 1).rounded(.up)))
    }
}
