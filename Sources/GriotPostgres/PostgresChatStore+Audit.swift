import Foundation
import GriotStore
import PostgresNIO

/// The audit log: the store writes an entry with every change to a message; admins read it
/// through `auditEntries`, and a scheduled job trims it with `purgeAudit`.
extension PostgresChatStore {
    /// Adds an entry the store does not write itself (a login, an export, a moderation block).
    /// When the entry has no actor or IP hash, the request's `AuditContext.current` fills them.
    @discardableResult
    public func recordAudit(_ entry: AuditEntry) async throws -> AuditEntry {
        var entry = entry
        if let context = AuditContext.current {
            entry.actorID = entry.actorID ?? context.actorID
            entry.ipHash = entry.ipHash ?? context.ipHash
        }
        try await prepareKeys([entry.userID.map { .user($0) } ?? .service])
        return try await transaction { connection in try await insert(entry, on: connection) }
    }

    /// The entries matching `filter`, newest first.
    public func auditEntries(_ filter: AuditFilter = AuditFilter()) async throws -> [AuditEntry] {
        let actions = filter.actions.map(\.rawValue)
        return try await opened(rows("""
            SELECT * FROM auditentry
            WHERE (\(filter.userID)::text IS NULL OR userid = \(filter.userID))
              AND (\(filter.actorID)::text IS NULL OR actorid = \(filter.actorID))
              AND (\(filter.threadID)::text IS NULL OR threadid = \(filter.threadID))
              AND (\(filter.messageID)::text IS NULL OR messageid = \(filter.messageID))
              AND (cardinality(\(actions)::text[]) = 0 OR action = ANY(\(actions)))
              AND (\(filter.since.map(\.millisecondRounded))::timestamptz IS NULL OR at >= \(filter.since.map(\.millisecondRounded)))
              AND (\(filter.until.map(\.millisecondRounded))::timestamptz IS NULL OR at < \(filter.until.map(\.millisecondRounded)))
            ORDER BY at DESC, id DESC LIMIT \(max(0, filter.limit)) OFFSET \(max(0, filter.offset))
            """).map { try AuditEntry($0) }, opened)
    }

    /// Deletes the entries older than `age` (e.g. `DateComponents(month: 13)`) and logs that it
    /// did, with the count. Returns how many went.
    @discardableResult
    public func purgeAudit(olderThan age: DateComponents, now: Date = Date()) async throws -> Int {
        let cutoff = age.before(now)
        let context = AuditContext.current
        try await prepareKeys([.service])
        return try await transaction { connection in
            let count = try await Self.rows("DELETE FROM auditentry WHERE at < \(cutoff.millisecondRounded) RETURNING id", on: connection).count
            try await insert(AuditEntry(at: now, action: .auditPurge, actorID: context?.actorID, ipHash: context?.ipHash,
                                             details: AuditEntry.details(["entries": .int(count), "before": .string(cutoff.ISO8601Format())])),
                                  on: connection)
            return count
        }
    }

    /// Writes an entry as it is (its actor and IP hash already filled) and returns it with its id.
    /// Its details and moderation are sealed with the data key of the user it is about (the
    /// service's when it names none, or `scope` when given), for its id, which is taken first.
    @discardableResult
    func insert(_ entry: AuditEntry, scope: KeyScope? = nil, on connection: PostgresConnection) async throws -> AuditEntry {
        var entry = entry
        let named = entry.id
        if entry.id == nil, cipher.isEnabled, !(entry.details ?? "").isEmpty || !(entry.moderation ?? "").isEmpty {
            entry.id = try await Self.nextIDs(of: "auditentry", count: 1, on: connection).first
        }
        var moderation = entry.moderation
        var details = entry.details
        if let id = entry.id {
            let scope = scope ?? entry.userID.map { KeyScope.user($0) } ?? .service
            moderation = try await keys.seal(moderation, .auditModeration, row: String(id), scope: scope)
            details = try await keys.seal(details, .auditDetails, row: String(id), scope: scope)
        }
        // An entry that names its id keeps it, as GRDB's insert does.
        let inserted = try await Self.rows("""
            INSERT INTO auditentry (id, at, action, userid, actorid, threadid, messageid, iphash, moderation, details)
            VALUES (COALESCE(\(entry.id), nextval(pg_get_serial_sequence('auditentry', 'id')::regclass)), \(entry.at.millisecondRounded),
                    \(entry.action.rawValue), \(entry.userID), \(entry.actorID), \(entry.threadID), \(entry.messageID), \(entry.ipHash),
                    \(moderation), \(details))
            RETURNING id
            """, on: connection)
        if let id = named { try await Self.advanceIdentity(of: "auditentry", past: id, on: connection) }
        entry.id = try Self.scalar(Int64.self, inserted)
        return entry
    }

    /// After a row was inserted with an id of its own: moves the table's identity past that id,
    /// as SQLite's AUTOINCREMENT does, so that the rows after it, numbered by the database, do
    /// not take an id already used (a unique-key error on every later write). Only ever forward.
    static func advanceIdentity(of table: String, past id: Int64, on connection: PostgresConnection) async throws {
        try await rows("""
            SELECT setval(identity.sequence, \(id)) FROM (SELECT pg_get_serial_sequence(\(table), 'id')::regclass AS sequence) AS identity
            WHERE \(id) > COALESCE(pg_sequence_last_value(identity.sequence), 0)
            """, on: connection)
    }
}
