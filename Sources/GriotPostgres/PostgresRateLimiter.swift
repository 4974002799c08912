import Foundation
import GriotStore
import GriotStories
import PostgresNIO

/// Per-user message limits over rolling windows, counted in the shared PostgreSQL database so
/// that every node agrees: 30 a minute is 30 across the fleet.
///
/// `admit` runs in one transaction that first takes an advisory lock on the user's key: two
/// requests of one user (on any nodes) queue there, so they can never both see room for the
/// last place, while different users never wait for each other. Refused attempts are not
/// recorded, so retrying does not push the wait further out. Rows are the same as SQLite's
/// (`rateEvent(userKey, at)`, `at` in seconds since 1970), and the decision is the same
/// function (`RateDecision.decide`).
///
/// ```swift
/// let limiter = PostgresRateLimiter(database: database, limits: [.perMinute(30)], pseudonyms: chats.pseudonyms)
/// if case .refused(let refusal) = try await limiter.admit(userID: "u-maya", now: Date()) { … }
/// ```
public final class PostgresRateLimiter: RateLimiter {
    public let database: PostgresDatabase
    public let limits: [RateLimit]
    /// A user's messages are counted under their pseudonym, so the count outlives an erasure.
    public let pseudonyms: UserPseudonyms
    private let longestWindow: TimeInterval

    public init(database: PostgresDatabase, limits: [RateLimit] = RateLimit.defaults, pseudonyms: UserPseudonyms) {
        precondition(!limits.isEmpty && limits.allSatisfy { $0.count > 0 && $0.window > 0 }, "rate limits need a positive count and window")
        self.database = database
        self.limits = limits
        self.pseudonyms = pseudonyms
        longestWindow = limits.map(\.window).max()!
    }

    /// Admits and counts one message of `userID` at `now`, or refuses it with the limit that is
    /// full and the exact wait.
    public func admit(userID: String, now: Date) async throws -> RateDecision {
        let at = now.timeIntervalSince1970
        let userKey = pseudonyms.key(for: userID)
        let lockKey = Self.lockKey(for: userKey)
        let (limits, longestWindow, logger) = (limits, longestWindow, database.logger)
        return try await database.transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            // The user's rows older than every window count for nothing: drop them on the way.
            try await connection.query("DELETE FROM rateEvent WHERE userKey = \(userKey) AND at <= \(at - longestWindow)", logger: logger)
            var times: [Double] = []
            for try await time in try await connection.query("SELECT at FROM rateEvent WHERE userKey = \(userKey) ORDER BY at",
                                                             logger: logger).decode(Double.self) {
                times.append(time)
            }
            let decision = RateDecision.decide(times: times, now: at, limits: limits)
            if decision.isAllowed {
                try await connection.query("INSERT INTO rateEvent (userKey, at) VALUES (\(userKey), \(at))", logger: logger)
            }
            return decision
        }
    }

    /// Removes every user's rows older than the longest window (users who stopped writing),
    /// for a scheduled job. Returns how many went.
    @discardableResult
    public func prune(now: Date) async throws -> Int {
        let cutoff = now.timeIntervalSince1970 - longestWindow
        return try await database.client.query("WITH gone AS (DELETE FROM rateEvent WHERE at <= \(cutoff) RETURNING 1) SELECT count(*) FROM gone",
                                               logger: database.logger).collect().first?.decode(Int.self) ?? 0
    }

    /// The 64-bit advisory lock of a user: the first 16 hex digits of their pseudonym (an HMAC,
    /// so evenly spread; a key that is not hex is hashed). Two users sharing a lock would only
    /// wait for each other.
    static func lockKey(for userKey: String) -> Int64 {
        Int64(bitPattern: UInt64(userKey.prefix(16), radix: 16) ?? StableHash.value(userKey))
    }
}
