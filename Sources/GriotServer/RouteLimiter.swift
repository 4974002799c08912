import Foundation
import Hummingbird
import Synchronization

/// Enforces `RouteLimits` in memory: a token bucket per (cost class, caller) and a count of each
/// user's search and heavy requests in flight. Nothing is written to the database, so the
/// anonymous read-only routes write nothing.
///
/// Memory is bounded by traffic, not by time: a bucket that has refilled is the same as no
/// bucket, so a sweep (at most every `sweepInterval`, on the next request) drops those, and a
/// user's count in flight goes when it returns to zero. What remains is the callers seen within
/// one refill period.
///
/// ```swift
/// let limiter = RouteLimiter(limits: .defaults)
/// let ticket = try limiter.admit(.search, key: .user("u-maya"))   // 429 APIError past the limit
/// defer { limiter.release(ticket) }
/// ```
public final class RouteLimiter: Sendable {
    /// Whose budget a request spends: a signed-in user's, or a client address's on the routes without a token.
    enum Key: Hashable, Sendable {
        case user(String)
        case address(String)

        var scope: String {
            switch self {
            case .user: "user"
            case .address: "address"
            }
        }
    }

    /// An admitted request that holds a place in flight until released (nil: none held).
    struct Ticket: Sendable {
        var held: Key?
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    private struct State {
        var buckets: [CostClass: [Key: Bucket]] = [:]
        var inFlight: [Key: Int] = [:]
        var lastSweep: Double = 0
    }

    let limits: RouteLimits
    private let state = Mutex(State())
    private let sweepInterval: Double
    private let clock: @Sendable () -> Double
    /// Told of each refusal (the dashboard counts them).
    private let refused: (@Sendable () -> Void)?

    /// `refused`: called for each request refused (the service counts them on its dashboard).
    public convenience init(limits: RouteLimits, refused: (@Sendable () -> Void)? = nil) {
        self.init(limits: limits, sweepInterval: 10, refused: refused) { ProcessInfo.processInfo.systemUptime }
    }

    init(limits: RouteLimits, sweepInterval: Double, refused: (@Sendable () -> Void)? = nil, clock: @escaping @Sendable () -> Double) {
        self.limits = limits
        self.sweepInterval = sweepInterval
        self.refused = refused
        self.clock = clock
    }

    /// Spends one request of `cost` from `key`'s budget and, for search and heavy, takes one of the
    /// user's places in flight; or throws 429 `rate_limited` with `Retry-After`, spending nothing.
    func admit(_ cost: CostClass, key: Key) throws -> Ticket {
        guard let budget = limits[cost] else { return Ticket() }
        let now = clock()
        let capped = cost.isCapped
        let inFlight = limits.inFlight
        /// Why a request is refused: the user's places in flight are taken, or the budget is spent for `wait` seconds.
        enum Refusal { case inFlight, budget(wait: Double) }
        let refusal: Refusal? = state.withLock { state in
            if now - state.lastSweep >= sweepInterval { Self.sweep(&state, now: now, limits: limits) }
            if capped, state.inFlight[key, default: 0] >= inFlight { return .inFlight }
            var bucket = state.buckets[cost]?[key] ?? Bucket(tokens: Double(budget.requests), updated: now)
            bucket.tokens = min(Double(budget.requests), bucket.tokens + (now - bucket.updated) * budget.refillRate)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                state.buckets[cost, default: [:]][key] = bucket
                return .budget(wait: (1 - bucket.tokens) / budget.refillRate)
            }
            bucket.tokens -= 1
            state.buckets[cost, default: [:]][key] = bucket
            if capped { state.inFlight[key, default: 0] += 1 }
            return nil
        }
        let seconds: Int, message: String, limit: String
        switch refusal {
        case nil:
            return Ticket(held: capped ? key : nil)
        case .inFlight:
            (seconds, limit) = (1, "\(cost.rawValue)_in_flight")
            message = "You have \(inFlight) \(cost.plural) running already; wait for one to finish, then try again."
        case .budget(let wait):
            (seconds, limit) = (max(1, Int(wait.rounded(.up))), cost.rawValue)
            message = "Too many \(cost.plural): this server takes \(budget.requests) in \(Self.phrase(budget.seconds)) from one \(key.scope); try again in \(seconds) s."
        }
        refused?()
        throw APIError(.tooManyRequests, code: "rate_limited", message,
                       details: ["limit": limit, "scope": key.scope, "retry_after_seconds": String(seconds)],
                       headers: [.retryAfter: String(seconds)])
    }

    /// Gives back the place in flight an admitted request held.
    func release(_ ticket: Ticket) {
        guard let key = ticket.held else { return }
        state.withLock { state in
            let left = state.inFlight[key, default: 1] - 1
            state.inFlight[key] = left > 0 ? left : nil
        }
    }

    /// Callers and classes with a bucket now (for tests of the sweep).
    var bucketCount: Int { state.withLock { $0.buckets.values.reduce(0) { $0 + $1.count } } }

    /// Drops the buckets that have refilled: the next request would find them full anyway.
    private static func sweep(_ state: inout State, now: Double, limits: RouteLimits) {
        state.lastSweep = now
        for (cost, buckets) in state.buckets {
            guard let budget = limits[cost] else { continue }
            state.buckets[cost] = buckets.filter { _, bucket in
                bucket.tokens + (now - bucket.updated) * budget.refillRate < Double(budget.requests)
            }
        }
    }

    /// "a minute", "10 s".
    private static func phrase(_ seconds: Double) -> String {
        switch seconds {
        case 60: "a minute"
        case 3_600: "an hour"
        default: "\(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)) s"
        }
    }
}
