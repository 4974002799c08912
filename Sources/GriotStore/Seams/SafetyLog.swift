import Foundation

/// The safety stages' records: verdicts per turn (kept two years) and the per-user warning
/// count of blocked messages (kept under the user's pseudonym).
public protocol SafetyLog: Sendable {
    /// Stores a turn's verdicts in one transaction.
    func recordVerdicts(_ verdicts: [SafetyVerdictRecord]) async throws
    func verdicts(turnID: String) async throws -> [SafetyVerdictRecord]
    /// Counts one more blocked message for the user; returns the count in force.
    func addModerationWarning(userID: String, now: Date) async throws -> Int
    func moderationWarnings(userID: String, now: Date) async throws -> Int
    /// Drops warning counts whose time is up; returns how many went.
    func expireWarnings(now: Date) async throws -> Int
    func purgeVerdicts(olderThan age: DateComponents, now: Date) async throws -> Int
}

extension SafetyLog {
    @discardableResult
    public func addModerationWarning(userID: String, now: Date = Date()) async throws -> Int {
        try await addModerationWarning(userID: userID, now: now)
    }

    public func moderationWarnings(userID: String, now: Date = Date()) async throws -> Int {
        try await moderationWarnings(userID: userID, now: now)
    }

    @discardableResult
    public func expireWarnings(now: Date = Date()) async throws -> Int {
        try await expireWarnings(now: now)
    }

    @discardableResult
    public func purgeVerdicts(olderThan age: DateComponents = SafetyVerdictRecord.retention, now: Date = Date()) async throws -> Int {
        try await purgeVerdicts(olderThan: age, now: now)
    }
}
