import Foundation
import GRDB

/// The safety stages' records: verdicts per turn (kept two years), the per-user warning count
/// of blocked messages, and how a message arrived (typed or voice).
extension SQLiteChatStore {
    /// Stores a turn's verdicts in one transaction; the IP hash comes from the request's
    /// `AuditContext` when the verdicts do not carry one. A verdict that needs a person (a
    /// crisis, a block, a copyright or groundedness flag) opens its review ticket and outbox row
    /// in the same transaction (`ReviewQueue`).
    public func recordVerdicts(_ verdicts: [SafetyVerdictRecord]) async throws {
        guard !verdicts.isEmpty else { return }
        let context = AuditContext.current
        try await writer.commit { db in
            for var verdict in verdicts {
                verdict.ipHash = verdict.ipHash ?? context?.ipHash
                try verdict.insert(sealedBy: self.cipher, db)
            }
            try self.openTickets(for: verdicts, db)
        }
    }

    public func verdicts(turnID: String) async throws -> [SafetyVerdictRecord] {
        try await writer.read { db in
            try SafetyVerdictRecord.filter(Column("turnID") == turnID).order(Column("id")).fetchAll(db).map { try $0.opened(cipher, db) }
        }
    }

    /// How long a warning count lasts after the user's last blocked message: kept under the
    /// user's pseudonym, it survives an erasure for this long, then lapses.
    public static let warningWindow = DateComponents(day: 90)

    /// Counts one more blocked message for the user and returns the new count (a count whose
    /// window has passed starts again at one).
    @discardableResult
    public func addModerationWarning(userID: String, now: Date = Date()) async throws -> Int {
        let key = pseudonyms.key(for: userID)
        let lapsed = Self.warningWindow.before(now)
        return try await writer.commit { db in
            try db.execute(sql: """
                INSERT INTO moderationWarning (userKey, count, lastAt) VALUES (?1, 1, ?2)
                ON CONFLICT(userKey) DO UPDATE SET count = CASE WHEN lastAt < ?3 THEN 1 ELSE count + 1 END, lastAt = excluded.lastAt
                """, arguments: [key, now, lapsed])
            return try Int.fetchOne(db, sql: "SELECT count FROM moderationWarning WHERE userKey = ?", arguments: [key]) ?? 1
        }
    }

    /// The user's warning count: blocked messages since the count last lapsed (see `warningWindow`).
    public func moderationWarnings(userID: String, now: Date = Date()) async throws -> Int {
        let key = pseudonyms.key(for: userID)
        return try await writer.read { db in
            try Int.fetchOne(db, sql: "SELECT count FROM moderationWarning WHERE userKey = ? AND lastAt >= ?",
                             arguments: [key, Self.warningWindow.before(now)]) ?? 0
        }
    }

    /// Deletes warning counts whose window has passed (a scheduled job) and, when some went,
    /// logs one `warning.expire` entry with the count; returns how many went.
    @discardableResult
    public func expireWarnings(now: Date = Date()) async throws -> Int {
        let cutoff = Self.warningWindow.before(now)
        return try await writer.commit { db in
            try db.execute(sql: "DELETE FROM moderationWarning WHERE lastAt < ?", arguments: [cutoff])
            let count = db.changesCount
            if count > 0 {
                var entry = AuditEntry(at: now, action: .warningExpire,
                                       details: AuditEntry.details(["count": .int(count), "before": .string(cutoff.ISO8601Format())]))
                try entry.insert(sealedBy: self.cipher, db)
            }
            return count
        }
    }

    /// How a message arrived: `text`, or `voice` for a transcript.
    public func inputMode(messageID: String) async throws -> String? {
        try await writer.read { db in
            try String.fetchOne(db, sql: "SELECT inputMode FROM message WHERE id = ?", arguments: [messageID])
        }
    }

    /// Deletes verdicts older than `age` (two years by default) and logs the count.
    @discardableResult
    public func purgeVerdicts(olderThan age: DateComponents = SafetyVerdictRecord.retention, now: Date = Date()) async throws -> Int {
        let cutoff = age.before(now)
        let cipher = self.cipher
        return try await writer.commit { db in
            try db.execute(sql: "DELETE FROM safetyVerdict WHERE at < ?", arguments: [cutoff])
            let count = db.changesCount
            if count > 0 {
                var entry = AuditEntry(at: now, action: .verdictPurge,
                                       details: AuditEntry.details(["verdicts": .int(count), "before": .string(cutoff.ISO8601Format())]))
                try entry.insert(sealedBy: cipher, db)
            }
            return count
        }
    }
}

extension SQLiteChatStore {
    /// Logs the input moderation of a user's message (`message.moderate`, with the scores as
    /// JSON in `moderation`) and, when it was blocked, marks the message `blocked` so it is never
    /// offered to a model as history. `write` says which write was moderated: `send`, or `edit`
    /// for an edit that was refused (the message keeps its text and status; an edit that passes
    /// is logged by `editMessage`).
    public func recordModeration(messageID: String, moderation: String, decision: String, blocked: Bool, write: String = "send",
                                 now: Date = Date()) async throws {
        let context = AuditContext.current
        let cipher = self.cipher
        try await writer.commit { db in
            if blocked {
                try db.execute(sql: "UPDATE message SET status = ?, updatedAt = ?, version = version + 1 WHERE id = ?",
                               arguments: [MessageStatus.blocked, now, messageID])
            }
            let row = try Row.fetchOne(db, sql: """
                SELECT message.threadID, message.inputMode, thread.userID FROM message JOIN thread ON thread.id = message.threadID
                WHERE message.id = ?
                """, arguments: [messageID])
            var entry = AuditEntry(at: now, action: .messageModerate, userID: row?["userID"], actorID: context?.actorID,
                                   threadID: row?["threadID"], messageID: messageID, ipHash: context?.ipHash, moderation: moderation,
                                   details: AuditEntry.details(["decision": .string(decision), "input": .string(write == "edit" ? "text" : row?["inputMode"] ?? "text"),
                                                                "write": .string(write)]))
            try entry.insert(sealedBy: cipher, db)
        }
    }
}
