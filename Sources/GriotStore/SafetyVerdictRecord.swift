import Foundation
import GRDB

/// One safety stage's verdict on a turn, as stored: who asked, from where, and what the stage
/// decided (`stage`, `score`, `decision`, `reason`; `details` is JSON such as moderation scores).
public struct SafetyVerdictRecord: Codable, Sendable, Hashable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "safetyVerdict"

    public var id: Int64?
    public var at: Date
    public var turnID: String
    public var threadID: String
    public var messageID: String?
    public var userID: String
    public var ipHash: String?
    public var stage: String
    public var score: Double
    public var decision: String
    public var reason: String
    public var details: String?

    public init(id: Int64? = nil, at: Date, turnID: String, threadID: String, messageID: String?, userID: String, ipHash: String?,
                stage: String, score: Double, decision: String, reason: String, details: String? = nil) {
        self.id = id
        self.at = at
        self.turnID = turnID
        self.threadID = threadID
        self.messageID = messageID
        self.userID = userID
        self.ipHash = ipHash
        self.stage = stage
        self.score = score
        self.decision = decision
        self.reason = reason
        self.details = details
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

extension SafetyVerdictRecord {
    /// How long verdicts are kept: moderation results are held two years, then purged.
    public static let retention = DateComponents(year: 2)
}

extension AuditAction {
    /// One entry per run of the job that lets lapsed moderation warning counts go, with the count.
    public static let warningExpire: AuditAction = "warning.expire"
}
