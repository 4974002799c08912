import Foundation
import GriotArchive

/// How many requests of each `CostClass` one caller may make on one node: a token bucket per
/// user (per client address on the routes without a token) and class, holding `requests` and
/// refilling them evenly over `seconds`, so a client may burst up to the whole budget and then
/// goes at the refill rate. Search and heavy requests are also capped at `inFlight` running at
/// once per user. Past either, 429 `rate_limited` with `Retry-After`.
///
/// These limits are kept in memory, per node: behind a load balancer a caller gets them on each
/// node. The chat message limit (`RateLimit`, 30 a minute and 300 a day) is the one that is
/// shared, in the database.
///
/// Defaults are written here once; `GRIOT_ROUTE_LIMITS` overrides any of them, e.g.
/// `GRIOT_ROUTE_LIMITS="search=120/60 heavy=30/60 in_flight=1"` (requests/seconds).
///
/// ```swift
/// let limits = try RouteLimits(environment: ProcessInfo.processInfo.environment)
/// let service = try GriotService(engine: engine, verifier: verifier, routeLimits: limits)
/// ```
public struct RouteLimits: Sendable, Hashable {
    /// `requests` in any `seconds`, refilled evenly.
    public struct Budget: Sendable, Hashable, CustomStringConvertible {
        public var requests: Int
        public var seconds: Double

        public init(requests: Int, seconds: Double) {
            self.requests = requests
            self.seconds = seconds
        }

        /// Requests a second that come back.
        var refillRate: Double { Double(requests) / seconds }

        public var description: String { "\(requests)/\(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds))" }
    }

    /// Per client address: a load balancer polling `/readyz` every second and a Prometheus
    /// scrape fit many times over; a loop hammering `/metrics` does not.
    public var probe = Budget(requests: 600, seconds: 60)
    /// Per user: an app that polls a thread's page every second, with room for bursts.
    public var read = Budget(requests: 600, seconds: 60)
    /// Per user: two searches a second on average; a person types far fewer.
    public var search = Budget(requests: 120, seconds: 60)
    /// Per user: one every two seconds on average (an admin's ingest batch, an operator's replays).
    public var heavy = Budget(requests: 30, seconds: 60)
    /// Search and heavy requests one user may have running at once: half the node's cores (at
    /// least one), so one user's searches leave the other half to everyone else; the rest get
    /// 429 at once. (A search runs on a core until it is done: with 2 cores and a cap of 2, one
    /// user's eight connections held both and another user's search p95 was 7.4x its quiet
    /// time; with 1, 1.3x. docs/BENCHMARKS.md, "Fairness".)
    public var inFlight = RouteLimits.halfTheCores

    /// Half the cores this process may use, at least one.
    public static let halfTheCores = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)

    public init() {}

    public static let defaults = RouteLimits()

    /// No practical limit: for tests that make thousands of requests as one user (and for
    /// `scripts/schemathesis.sh`, through `GRIOT_ROUTE_LIMITS`).
    public static let generous: RouteLimits = {
        var limits = RouteLimits()
        for cost in [CostClass.probe, .read, .search, .heavy] { limits[cost] = Budget(requests: 1_000_000, seconds: 60) }
        limits.inFlight = 1_000
        return limits
    }()

    /// The budget of a class; nil for `.chat` (counted by the database-backed `RateLimiter`).
    public subscript(cost: CostClass) -> Budget? {
        get {
            switch cost {
            case .probe: probe
            case .read: read
            case .search: search
            case .heavy: heavy
            case .chat: nil
            }
        }
        set {
            guard let newValue else { return }
            switch cost {
            case .probe: probe = newValue
            case .read: read = newValue
            case .search: search = newValue
            case .heavy: heavy = newValue
            case .chat: break
            }
        }
    }

    /// The defaults with `GRIOT_ROUTE_LIMITS` applied: items `class=requests/seconds` (class one
    /// of probe, read, search, heavy) or `in_flight=N`, separated by spaces or commas.
    public init(environment: [String: String]) throws {
        self.init()
        guard let text = environment["GRIOT_ROUTE_LIMITS"] else { return }
        let example = "e.g. GRIOT_ROUTE_LIMITS=\"search=120/60 heavy=30/60 in_flight=1\", or unset it"
        for item in text.split(whereSeparator: { $0 == " " || $0 == "," }) {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ConfigurationError("GRIOT_ROUTE_LIMITS: \(item) is not name=value; \(example)") }
            if parts[0] == "in_flight" {
                guard let count = Int(parts[1]), count >= 1 else {
                    throw ConfigurationError("GRIOT_ROUTE_LIMITS: in_flight=\(parts[1]) must be a whole number of at least 1; \(example)")
                }
                inFlight = count
                continue
            }
            guard let cost = CostClass(rawValue: parts[0]), cost != .chat else {
                throw ConfigurationError("GRIOT_ROUTE_LIMITS: \(parts[0]) is not a cost class; use probe, read, search, heavy or in_flight (chat messages have their own limit, shared in the database); \(example)")
            }
            let fraction = parts[1].split(separator: "/", maxSplits: 1)
            guard fraction.count == 2, let requests = Int(fraction[0]), requests >= 1,
                  let seconds = Double(fraction[1]), seconds > 0, seconds.isFinite else {
                throw ConfigurationError("GRIOT_ROUTE_LIMITS: \(item) needs requests/seconds, both positive (\(parts[0])=120/60); \(example)")
            }
            self[cost] = Budget(requests: requests, seconds: seconds)
        }
    }
}
