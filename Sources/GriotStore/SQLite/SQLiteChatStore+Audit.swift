import Foundation
import GRDB

/// The audit log: the store writes an entry with every change to a message; admins read it
/// through `auditEntries`, and a scheduled job trims it with `purgeAudit`.
extension SQLiteChatStore {
    /// Adds an entry the store does not write itself (a login, an export, a moderation block).
    /// When the entry has no actor or IP hash, the request's `AuditContext.current` fills them.
    @discardableResult
    public func recordAudit(_ entry: AuditEntry) async throws -> AuditEntry {
        var entry = entry
        if let context = AuditContext.current {
            entry.actorID = entry.actorID ?? context.actorID
            entry.ipHash = entry.ipHash ?? context.ipHash
        }
        let stored = entry
        let cipher = self.cipher
        return try await writer.commit { db in
            var entry = stored
            try entry.insert(sealedBy: cipher, db)
            return entry
        }
    }

    /// The entries matching `filter`, newest first.
    public func auditEntries(_ filter: AuditFilter = AuditFilter()) async throws -> [AuditEntry] {
        try await writer.read { db in
            var request = AuditEntry.all()
            if let userID = filter.userID { request = request.filter(Column("userID") == userID) }
            if let actorID = filter.actorID { request = request.filter(Column("actorID") == actorID) }
            if let threadID = filter.threadID { request = request.filter(Column("threadID") == threadID) }
            if let messageID = filter.messageID { request = request.filter(Column("messageID") == messageID) }
            if !filter.actions.isEmpty { request = request.filter(filter.actions.contains(Column("action"))) }
            if let since = filter.since { request = request.filter(Column("at") >= since) }
            if let until = filter.until { request = request.filter(Column("at") < until) }
            return try request.order(Column("at").desc, Column("id").desc)
                .limit(max(0, filter.limit), offset: max(0, filter.offset)).fetchAll(db).map { try $0.opened(cipher, db) }
        }
    }

    /// Deletes the entries older than `age` (e.g. `DateComponents(month: 13)`) and logs that it
    /// did, with the count. Returns how many went.
    @discardableResult
    public func purgeAudit(olderThan age: DateComponents, now: Date = Date()) async throws -> Int {
        let cutoff = age.before(now)
        let context = AuditContext.current
        let cipher = self.cipher
        return try await writer.commit { db in
            try db.execute(sql: "DELETE FROM auditEntry WHERE at < ?", arguments: [cutoff])
            let count = db.changesCount
            var entry = AuditEntry(at: now, action: .auditPurge, actorID: context?.actorID, ipHash: context?.ipHash,
                                   details: AuditEntry.details(["entries": .int(count), "before": .string(cutoff.ISO8601Format())]))
            try entry.insert(sealedBy: cipher, db)
            return count
        }
    }
}
