/// Stops calling a provider that keeps failing, so that users get an answer at once ("AI
/// temporarily unavailable") instead of waiting through timeouts and retries, and the service
/// gets room to recover.
///
/// Closed, it lets every call through and counts consecutive server failures (5xx, connection
/// failures, a server error inside the stream). Each *attempt* counts, retries included: one
/// chat turn that meets a persistent 503 makes three attempts and so opens the breaker on its
/// own, which is the point (the service is down), and a success resets the count. A 429 or
/// another 4xx neither counts nor resets: the service answered, it refused this request.
///
/// At `failureThreshold` failures the breaker opens for `openSeconds`: calls fail fast with
/// `ProviderError.circuitOpen`, touching nothing. Then it is half-open: exactly one call (the
/// probe) goes through while others still fail fast. The probe's success closes it; its failure
/// opens it for another period; a probe abandoned by its caller frees the slot for the next call.
///
/// ```swift
/// let permit = try await breaker.admit()      // throws ProviderError.circuitOpen
/// … call the provider …
/// await breaker.record(.success, for: permit)
/// ```
public actor CircuitBreaker {
    public struct Policy: Sendable, Hashable {
        public var failureThreshold: Int
        public var openSeconds: Double

        public init(failureThreshold: Int = 3, openSeconds: Double = 120) {
            self.failureThreshold = failureThreshold
            self.openSeconds = openSeconds
        }
    }

    public enum State: String, Sendable, Hashable, Codable {
        case closed, open
        case halfOpen = "half-open"
    }

    /// The breaker as health checks and metrics see it.
    public struct Snapshot: Sendable, Hashable, Codable {
        public var name: String
        /// `.halfOpen` once the open period is over, whether or not a probe has started.
        public var state: State
        public var consecutiveFailures: Int
        /// When the breaker last opened (clock seconds; with the system clock, since 1970); nil when closed.
        public var openedAt: Double?
        /// When calls may be tried again; nil when closed. In the past when half-open.
        public var retryAt: Double?
        /// Half-open with its one probe call under way.
        public var probeInFlight: Bool

        public init(name: String, state: State, consecutiveFailures: Int, openedAt: Double?, retryAt: Double?, probeInFlight: Bool) {
            self.name = name
            self.state = state
            self.consecutiveFailures = consecutiveFailures
            self.openedAt = openedAt
            self.retryAt = retryAt
            self.probeInFlight = probeInFlight
        }
    }

    /// What a call did, as the breaker counts it.
    public enum Outcome: Sendable, Hashable {
        /// The reply came through.
        case success
        /// A failure that says the service is unwell (`ProviderError.isServerFailure`).
        case serverFailure
        /// The service answered but refused (4xx, 429, a malformed reply): neither counted nor
        /// reset, but it ends a probe as a success, since the service is evidently up.
        case refused
        /// The caller went away before an outcome; a probe's slot is freed.
        case abandoned

        public init(_ error: any Error) {
            if let error = error as? ProviderError {
                self = error.isServerFailure ? .serverFailure : .refused
            } else if error is CancellationError {
                self = .abandoned
            } else {
                self = .serverFailure
            }
        }
    }

    /// Leave to make one call, from `admit()`, handed back with its outcome.
    public struct Permit: Sendable {
        public let isProbe: Bool
        /// The breaker's transition count when this permit was issued: an outcome that arrives
        /// after the breaker moved on (a slow call from before it opened) changes nothing.
        let generation: Int
    }

    private enum Phase {
        case closed
        case open(since: Double)
        case halfOpen(since: Double, probing: Bool)
    }

    public nonisolated let name: String
    public nonisolated let policy: Policy
    public nonisolated let clock: any ResilienceClock
    /// Shared with the other nodes calling the same provider, when there are any.
    public nonisolated let ledger: (any BreakerLedger)?
    private var phase = Phase.closed
    private var consecutiveFailures = 0
    private var generation = 0

    public init(name: String, policy: Policy = Policy(), clock: any ResilienceClock = SystemResilienceClock(),
                ledger: (any BreakerLedger)? = nil) {
        self.name = name
        self.policy = policy
        self.clock = clock
        self.ledger = ledger
    }

    /// How long a node's probe holds the fleet's half-open slot before another node may probe
    /// (a node that died mid-probe frees it this way).
    static let probeLease: Double = 60

    /// Leave to call the provider, or `ProviderError.circuitOpen` when it must not be called now.
    /// With a ledger, the fleet's state is read first, and the half-open probe is claimed
    /// fleet-wide: one call in the whole fleet tries the provider.
    public func admit() async throws(ProviderError) -> Permit {
        await adoptShared()
        if let ledger, case .open(let since) = phase, clock.now() >= since + policy.openSeconds {
            // Suspends: the phase is read again after the claim.
            let claimed = (try? await ledger.claimProbe(name, now: clock.now(), openSeconds: policy.openSeconds, lease: Self.probeLease)) ?? true
            guard claimed else { throw ProviderError.circuitOpen(provider: name, retryAfterSeconds: 0) }
            if case .open(let now) = phase, now == since {
                move(to: .halfOpen(since: since, probing: true))
                return Permit(isProbe: true, generation: generation)
            }
        }
        switch phase {
        case .closed:
            return Permit(isProbe: false, generation: generation)
        case .open(let since):
            let retryAt = since + policy.openSeconds
            let now = clock.now()
            guard now >= retryAt else {
                throw ProviderError.circuitOpen(provider: name, retryAfterSeconds: retryAt - now)
            }
            move(to: .halfOpen(since: since, probing: true))
            return Permit(isProbe: true, generation: generation)
        case .halfOpen(let since, let probing):
            guard !probing else { throw ProviderError.circuitOpen(provider: name, retryAfterSeconds: 0) }
            phase = .halfOpen(since: since, probing: true)
            return Permit(isProbe: true, generation: generation)
        }
    }

    /// Records how the call made with `permit` ended; returns the breaker's state afterwards.
    /// With a ledger, an opening and a probe's end are told to the other nodes.
    @discardableResult
    public func record(_ outcome: Outcome, for permit: Permit) async -> Snapshot {
        let before = phase
        let after = recordLocally(outcome, for: permit)
        guard let ledger else { return after }
        switch (before, phase) {
        case (_, .open(let since)) where !Self.isOpen(before, since: since):
            try? await ledger.recordOpen(name, since: since)
        case (.halfOpen, .closed):
            try? await ledger.recordClosed(name)
        case (.halfOpen(_, true), .halfOpen(_, false)):
            try? await ledger.releaseProbe(name)
        default:
            break
        }
        return after
    }

    /// The fleet's state and this node's, made one: a breaker another node opened (or opened
    /// again after a failed probe) is open here; one another node's probe closed is closed here.
    private func adoptShared() async {
        guard let ledger, let shared = try? await ledger.state(of: name) else { return }
        switch (phase, shared.openSince) {
        case (.closed, let since?):
            move(to: .open(since: since))
        case (.open(let mine), let since?) where since > mine:
            move(to: .open(since: since))
        case (.halfOpen(let mine, _), let since?) where since > mine:
            move(to: .open(since: since))
        case (.open, nil), (.halfOpen, nil):
            consecutiveFailures = 0
            move(to: .closed)
        default:
            break
        }
    }

    private static func isOpen(_ phase: Phase, since: Double) -> Bool {
        if case .open(let earlier) = phase { return earlier == since }
        return false
    }

    /// The snapshot after the fleet's state is read (for health checks and metrics).
    public func sharedSnapshot() async -> Snapshot {
        await adoptShared()
        return snapshot()
    }

    private func recordLocally(_ outcome: Outcome, for permit: Permit) -> Snapshot {
        guard permit.generation == generation else { return snapshot() }
        switch (phase, outcome) {
        case (.closed, .success):
            consecutiveFailures = 0
        case (.closed, .serverFailure):
            consecutiveFailures += 1
            if consecutiveFailures >= policy.failureThreshold { move(to: .open(since: clock.now())) }
        case (.closed, .refused), (.closed, .abandoned):
            break
        case (.halfOpen, .success), (.halfOpen, .refused):
            consecutiveFailures = 0
            move(to: .closed)
        case (.halfOpen, .serverFailure):
            consecutiveFailures += 1
            move(to: .open(since: clock.now()))
        case (.halfOpen(let since, _), .abandoned):
            phase = .halfOpen(since: since, probing: false)
        case (.open, _):
            // Only a probe's permit can carry the current generation past `open`; nothing to do.
            break
        }
        return snapshot()
    }

    public func snapshot() -> Snapshot {
        switch phase {
        case .closed:
            return Snapshot(name: name, state: .closed, consecutiveFailures: consecutiveFailures,
                            openedAt: nil, retryAt: nil, probeInFlight: false)
        case .open(let since):
            let retryAt = since + policy.openSeconds
            return Snapshot(name: name, state: clock.now() >= retryAt ? .halfOpen : .open,
                            consecutiveFailures: consecutiveFailures, openedAt: since, retryAt: retryAt, probeInFlight: false)
        case .halfOpen(let since, let probing):
            return Snapshot(name: name, state: .halfOpen, consecutiveFailures: consecutiveFailures,
                            openedAt: since, retryAt: since + policy.openSeconds, probeInFlight: probing)
        }
    }

    private func move(to next: Phase) {
        phase = next
        generation += 1
    }
}
