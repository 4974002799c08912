import Foundation

/// One limit on how many messages a user may send in a rolling window.
public struct RateLimit: Sendable, Hashable, Codable {
    /// The name a client sees: `per_minute`, `per_day`.
    public var name: String
    public var count: Int
    /// The window's length in seconds.
    public var window: TimeInterval

    public init(name: String, count: Int, window: TimeInterval) {
        self.name = name
        self.count = count
        self.window = window
    }

    public static func perMinute(_ count: Int) -> RateLimit { RateLimit(name: "per_minute", count: count, window: 60) }
    public static func perDay(_ count: Int) -> RateLimit { RateLimit(name: "per_day", count: count, window: 86_400) }

    /// 30 user messages a minute and 300 a day.
    public static let defaults: [RateLimit] = [.perMinute(30), .perDay(300)]

    /// "the last minute", "the last day", "the last 10 minutes".
    var windowPhrase: String {
        switch window {
        case 60: "the last minute"
        case 3_600: "the last hour"
        case 86_400: "the last day"
        default: "the last \(RateRefusal.duration(window))"
        }
    }
}

/// Whether a user may send a message now.
public enum RateDecision: Sendable, Hashable {
    /// Admitted and counted; `remaining` more fit in the tightest window.
    case allowed(remaining: Int)
    case refused(RateRefusal)

    public var isAllowed: Bool {
        if case .allowed = self { true } else { false }
    }
}

/// Why a message was refused and when the user may send again.
public struct RateRefusal: Sendable, Hashable {
    /// The limit that decides when the user may send again (the later one, when several are full).
    public var limit: RateLimit
    /// Messages counted in that limit's window now.
    public var sent: Int
    /// Seconds until the counted message that frees a place leaves the window: exact, not rounded.
    public var retryAfter: TimeInterval

    /// Whole seconds for a `Retry-After` header, rounded up so a client waiting that long is admitted.
    public var retryAfterSeconds: Int { max(1, Int(retryAfter.rounded(.up))) }

    /// "You have sent 30 messages in the last minute; try again in 23 s."
    public var message: String {
        "You have sent \(sent) messages in \(limit.windowPhrase); try again in \(Self.duration(TimeInterval(retryAfterSeconds)))."
    }

    /// "23 s", "12 min", "3 h 5 min": as precise as a person waiting needs.
    static func duration(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 120 { return "\(whole) s" }
        let minutes = (whole + 59) / 60
        if minutes < 120 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}

extension RateDecision {
    /// The decision for a user whose counted messages were sent at `times` (ascending, all
    /// inside the longest window). A message counts while it is less than `window` old, so the
    /// place it holds frees exactly `window` seconds after it was sent.
    public static func decide(times: [Double], now: Double, limits: [RateLimit]) -> RateDecision {
        var refusal: RateRefusal?
        var remaining = Int.max
        for limit in limits {
            let start = now - limit.window
            let firstInside = times.partitionPoint { $0 <= start }
            let sent = times.count - firstInside
            if sent < limit.count {
                remaining = min(remaining, limit.count - sent - 1)
                continue
            }
            // Room comes back when enough of the oldest leave that fewer than `count` remain.
            let freeing = times[firstInside + sent - limit.count]
            let wait = freeing + limit.window - now
            if refusal == nil || wait > refusal!.retryAfter {
                refusal = RateRefusal(limit: limit, sent: sent, retryAfter: wait)
            }
        }
        if let refusal { return .refused(refusal) }
        return .allowed(remaining: remaining)
    }
}

extension Array where Element == Double {
    /// The index of the first element for which `belongs` is false, in an array where it is
    /// true for a prefix.
    func partitionPoint(_ belongs: (Double) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
