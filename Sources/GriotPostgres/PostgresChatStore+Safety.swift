import Foundation
import GriotStore
import PostgresNIO

/// The safety stages' records: verdicts per turn (kept two years), the per-user warning count
/// of blocked messages, and how a message arrived (typed or voice).
extension PostgresChatStore {
    /// How long a warning count lasts after the user's last blocked message (the same window
    /// as the SQLite store's, written once there).
    public static var warningWindow: DateComponents { SQLiteChatStore.warningWindow }

    /// Stores a turn's verdicts in one transaction; the IP hash comes from the request's
    /// `AuditContext` when the verdicts do not carry one. A verdict that needs a person opens its
    /// review ticket and outbox row in the same transaction (`ReviewQueue`).
    public func recordVerdicts(_ verdicts: [SafetyVerdictRecord]) async throws {
        guard !verdicts.isEmpty else { return }
        let context = AuditContext.current
        try await prepareKeys(verdicts.map { .user($0.userID) })
        try await transaction { connection in
            var fresh: ArraySlice<Int64> = []
            for (index, verdict) in verdicts.enumerated() {
                // A verdict naming no id takes one first (the sealed reason and details name their
                // row), after any named before it, as the database would number them: one
                // statement for each run of such verdicts.
                if verdict.id == nil, fresh.isEmpty, cipher.isEnabled {
                    let run = verdicts[index...].prefix { $0.id == nil }.count
                    fresh = try await Self.nextIDs(of: "safetyverdict", count: run, on: connection)[...]
                }
                let id = verdict.id ?? fresh.popFirst()
                var reason = verdict.reason
                var details = verdict.details
                if let id {
                    reason = try await keys.seal(reason, .safetyReason, row: String(id), scope: .user(verdict.userID))
                    details = try await keys.seal(details, .safetyDetails, row: String(id), scope: .user(verdict.userID))
                }
                // A verdict that names its id keeps it, as GRDB's insert does.
                try await Self.rows("""
                    INSERT INTO safetyverdict (id, at, turnid, threadid, messageid, userid, iphash, stage, score, decision, reason, details)
                    VALUES (COALESCE(\(id), nextval(pg_get_serial_sequence('safetyverdict', 'id')::regclass)), \(verdict.at.millisecondRounded),
                            \(verdict.turnID), \(verdict.threadID), \(verdict.messageID), \(verdict.userID), \(verdict.ipHash ?? context?.ipHash),
                            \(verdict.stage), \(verdict.score), \(verdict.decision), \(reason), \(details))
                    """, on: connection)
                if let id = verdict.id { try await Self.advanceIdentity(of: "safetyverdict", past: id, on: connection) }
            }
            try await openTickets(for: verdicts, on: connection)
        }
    }

    public func verdicts(turnID: String) async throws -> [SafetyVerdictRecord] {
        try await opened(rows("SELECT * FROM safetyverdict WHERE turnid = \(turnID) ORDER BY id").map { try SafetyVerdictRecord($0) }, opened)
    }

    /// Counts one more blocked message for the user and returns the new count (a count whose
    /// window has passed starts again at one).
    @discardableResult
    public func addModerationWarning(userID: String, now: Date = Date()) async throws -> Int {
        let key = pseudonyms.key(for: userID)
        let lapsed = Self.warningWindow.before(now)
        let counted = try await rows("""
            INSERT INTO moderationwarning (userkey, count, lastat) VALUES (\(key), 1, \(now.millisecondRounded))
            ON CONFLICT (userkey) DO UPDATE
            SET count = CASE WHEN moderationwarning.lastat < \(lapsed.millisecondRounded) THEN 1 ELSE moderationwarning.count + 1 END,
                lastat = excluded.lastat
            RETURNING count
            """)
        return try Self.scalar(Int.self, counted) ?? 1
    }

    /// The user's warning count: blocked messages since the count last lapsed (see `warningWindow`).
    public func moderationWarnings(userID: String, now: Date = Date()) async throws -> Int {
        let key = pseudonyms.key(for: userID)
        return try Self.scalar(Int.self, await rows("""
            SELECT count FROM moderationwarning WHERE userkey = \(key) AND lastat >= \(Self.warningWindow.before(now).millisecondRounded)
            """)) ?? 0
    }

    /// Deletes warning counts whose window has passed (a scheduled job); returns how many went.
    @discardableResult
    public func expireWarnings(now: Date = Date()) async throws -> Int {
        try await rows("DELETE FROM moderationwarning WHERE lastat < \(Self.warningWindow.before(now).millisecondRounded) RETURNING userkey").count
    }

    /// How a message arrived: `text`, or `voice` for a transcript.
    public func inputMode(messageID: String) async throws -> String? {
        try Self.scalar(String.self, await rows("SELECT inputmode FROM message WHERE id = \(messageID)"))
    }

    /// Deletes verdicts older than `age` (two years by default) and logs the count.
    @discardableResult
    public func purgeVerdicts(olderThan age: DateComponents = SafetyVerdictRecord.retention, now: Date = Date()) async throws -> Int {
        let cutoff = age.before(now)
        try await prepareKeys([.service])
        return try await transaction { connection in
            let count = try await Self.rows("DELETE FROM safetyverdict WHERE at < \(cutoff.millisecondRounded) RETURNING id", on: connection).count
            if count > 0 {
                try await insert(AuditEntry(at: now, action: .verdictPurge,
                                                 details: AuditEntry.details(["verdicts": .int(count), "before": .string(cutoff.ISO8601Format())])),
                                      on: connection)
            }
            return count
        }
    }

    /// Logs the input moderation of a user's message (`message.moderate`, with the scores as
    /// JSON in `moderation`) and, when it was blocked, marks the message `blocked` so it is never
    /// offered to a model as history. `write` says which write was moderated: `send`, or `edit`
    /// for an edit that was refused (the message keeps its text and status; an edit that passes
    /// is logged by `editMessage`).
    public func recordModeration(messageID: String, moderation: String, decision: String, blocked: Bool, write: String = "send",
                                 now: Date = Date()) async throws {
        let context = AuditContext.current
        try await prepareKeys(ofMessages: [messageID])
        try await prepareKeys([.service])
        try await transaction { connection in
            if blocked {
                try await Self.rows("""
                    UPDATE message SET status = \(MessageStatus.blocked.rawValue), updatedat = \(now.millisecondRounded), version = version + 1
                    WHERE id = \(messageID)
                    """, on: connection)
            }
            let row = try await Self.rows("""
                SELECT message.threadid, message.inputmode, thread.userid FROM message JOIN thread ON thread.id = message.threadid
                WHERE message.id = \(messageID)
                """, on: connection).first?.makeRandomAccess()
            let inputMode = try row?["inputmode"].decode(String.self) ?? "text"
            try await insert(AuditEntry(at: now, action: .messageModerate, userID: row?["userid"].decode(String.self), actorID: context?.actorID,
                                             threadID: row?["threadid"].decode(String.self), messageID: messageID, ipHash: context?.ipHash,
                                             moderation: moderation,
                                             details: AuditEntry.details(["decision": .string(decision), "input": .string(write == "edit" ? "text" : inputMode),
                                                                          "write": .string(write)])), on: connection)
        }
    }
}
