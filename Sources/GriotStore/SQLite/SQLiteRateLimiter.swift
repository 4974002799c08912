import Foundation
import GRDB

/// Per-user message limits over rolling windows, counted in the shared database so that every
/// service node using it agrees.
///
/// `admit` reads the user's recent messages and records the new one in one IMMEDIATE
/// transaction: SQLite lets one writer in at a time across every connection and process, so
/// two requests can never both see room for the last place. Refused attempts are not
/// recorded: retrying does not push the wait further out.
///
/// ```swift
/// let limiter = try RateLimiter(writer: store.writer)
/// if case .refused(let refusal) = try limiter.admit(userID: user.id) {
///     throw HTTPError(.tooManyRequests, headers: [.retryAfter: "\(refusal.retryAfterSeconds)"], message: refusal.message)
/// }
/// ```
public final class SQLiteRateLimiter: RateLimiter {
    public let writer: any DatabaseWriter
    public let limits: [RateLimit]
    /// A user's messages are counted under their pseudonym, so the count outlives an erasure.
    public let pseudonyms: UserPseudonyms
    private let longestWindow: TimeInterval

    public init(writer: any DatabaseWriter, limits: [RateLimit] = RateLimit.defaults, pseudonyms: UserPseudonyms? = nil) throws {
        precondition(!limits.isEmpty && limits.allSatisfy { $0.count > 0 && $0.window > 0 }, "rate limits need a positive count and window")
        self.writer = writer
        self.limits = limits
        self.pseudonyms = try pseudonyms ?? .forDatabase(writer)
        self.longestWindow = limits.map(\.window).max()!
        try SQLiteSchema.migrator.migrate(writer)
    }

    /// Admits and counts one message of `userID` at `now`, or refuses it with the limit that is
    /// full and the exact wait.
    public func admit(userID: String, now: Date = Date()) async throws -> RateDecision {
        let at = now.timeIntervalSince1970
        let userKey = pseudonyms.key(for: userID)
        let (limits, longestWindow) = (self.limits, self.longestWindow)
        return try await writer.commitWithoutTransaction { db in
            var decision = RateDecision.allowed(remaining: 0)
            try db.inTransaction(.immediate) {
                // Cached statements: compiling the SQL again would cost more than running it.
                // The user's rows older than every window count for nothing: drop them on the way.
                try db.cachedStatement(sql: "DELETE FROM rateEvent WHERE userKey = ? AND at <= ?").execute(arguments: [userKey, at - longestWindow])
                let times = try Double.fetchAll(db.cachedStatement(sql: "SELECT at FROM rateEvent WHERE userKey = ? ORDER BY at"), arguments: [userKey])
                decision = RateDecision.decide(times: times, now: at, limits: limits)
                if decision.isAllowed {
                    try db.cachedStatement(sql: "INSERT INTO rateEvent (userKey, at) VALUES (?, ?)").execute(arguments: [userKey, at])
                }
                return .commit
            }
            return decision
        }
    }

    /// Removes every user's rows older than the longest window (users who stopped writing),
    /// for a scheduled job. Returns how many went.
    @discardableResult
    public func prune(now: Date = Date()) async throws -> Int {
        let longestWindow = self.longestWindow
        return try await writer.commit { db in
            try db.execute(sql: "DELETE FROM rateEvent WHERE at <= ?", arguments: [now.timeIntervalSince1970 - longestWindow])
            return db.changesCount
        }
    }
}
