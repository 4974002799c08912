import Foundation
import GRDB

/// Deleting, purging and archiving messages and threads. A delete hides at once (every chat
/// read leaves out rows with `deletedAt`); the text stays 30 days so a mistake can be undone
/// by an admin, then `purgeDeleted` removes the rows. `archiveMessages` moves messages older
/// than 18 months out of the hot table. The jobs return counts for their logs.
extension SQLiteChatStore {
    /// Hides a message at once and logs `message.delete`. Returns false when it was already
    /// deleted (a repeated DELETE is not an error); throws `notFound` when there is no such
    /// message, and `conflict` when `ifMatch` is given and stale.
    @discardableResult
    public func softDeleteMessage(id: String, by actorID: String, ifMatch: String? = nil, now: Date = Date()) async throws -> Bool {
        let context = AuditContext.current
        let cipher = self.cipher
        return try await writer.commit { db in
            guard let message = try MessageRecord.fetchOne(db, key: id) else { throw ChatStoreError.messageNotFound(id) }
            if message.deletedAt != nil { return false }
            if let ifMatch, !MessageETag.matches(ifMatch, id: id, version: message.version) { throw ChatStoreError.stale(message, sent: ifMatch) }
            let owner = try Self.owner(of: message.threadID, db)
            // The text moves to the one place it is kept for review; the row keeps none.
            try self.retainOldText(of: message.opened(cipher, db), owner: owner ?? "", reason: .deleted, now: now, db)
            try db.execute(sql: "UPDATE message SET deletedAt = ?, content = '' WHERE id = ?", arguments: [now, id])
            var entry = AuditEntry(at: now, action: .messageDelete, userID: owner, actorID: actorID,
                                   threadID: message.threadID, messageID: id, ipHash: context?.ipHash,
                                   details: AuditEntry.details(["role": .string(message.role.rawValue), "version": .int(message.version)]))
            try entry.insert(sealedBy: cipher, db)
            return true
        }
    }

    /// Hides a thread and all its messages at once (the mobile app's "delete session") and logs
    /// `thread.delete`; `purgeDeleted` removes it 30 days later. Returns false when it was
    /// already deleted.
    @discardableResult
    public func softDeleteThread(id: String, by actorID: String, now: Date = Date()) async throws -> Bool {
        let context = AuditContext.current
        let cipher = self.cipher
        return try await writer.commit { db in
            guard let thread = try ThreadRecord.fetchOne(db, key: id) else { throw ChatStoreError.threadNotFound(id) }
            if thread.deletedAt != nil { return false }
            try db.execute(sql: "UPDATE thread SET deletedAt = ? WHERE id = ?", arguments: [now, id])
            for message in try MessageRecord.filter(Column("threadID") == id && Column("deletedAt") == nil).fetchAll(db) {
                try self.retainOldText(of: message.opened(cipher, db), owner: thread.userID, reason: .deleted, now: now, db)
            }
            try db.execute(sql: "UPDATE message SET deletedAt = ?, content = '' WHERE threadID = ? AND deletedAt IS NULL", arguments: [now, id])
            var entry = AuditEntry(at: now, action: .threadDelete, userID: thread.userID, actorID: actorID, threadID: id, ipHash: context?.ipHash,
                                   details: AuditEntry.details(["messages": .int(db.changesCount)]))
            try entry.insert(sealedBy: cipher, db)
            return true
        }
    }

    /// Removes threads and messages deleted longer than `age` ago, with the turn snapshots that
    /// copy a purged reply's text, and logs `thread.purge` / `message.purge` for each. Nothing
    /// deleted more recently is touched.
    @discardableResult
    public func purgeDeleted(olderThan age: DateComponents = DateComponents(day: 30), now: Date = Date()) async throws -> RetentionCounts {
        let cutoff = age.before(now)
        let cipher = self.cipher
        return try await writer.commit { db in
            var counts = RetentionCounts()
            let threads = try ThreadRecord.filter(Column("deletedAt") != nil && Column("deletedAt") <= cutoff).fetchAll(db)
            for thread in threads {
                let removed = try Self.removeThread(thread.id, db)
                counts.add(removed)
                var entry = AuditEntry(at: now, action: .threadPurge, userID: thread.userID, threadID: thread.id,
                                       details: AuditEntry.details(["messages": .int(removed.messages + removed.archivedMessages),
                                                                    "turns": .int(removed.turns)]))
                try entry.insert(sealedBy: cipher, db)
            }

            let rows = try Row.fetchAll(db, sql: """
                SELECT message.id, message.threadID, message.sequence, thread.userID FROM message JOIN thread ON thread.id = message.threadID
                WHERE message.deletedAt IS NOT NULL AND message.deletedAt <= ?
                """, arguments: [cutoff])
            for row in rows {
                let id: String = row["id"]
                let threadID: String = row["threadID"]
                // A turn's snapshot holds the reply's text, so it goes with the reply.
                try db.execute(sql: "DELETE FROM turn WHERE assistantMessageID = ?", arguments: [id])
                counts.turns += db.changesCount
                try db.execute(sql: "DELETE FROM message WHERE id = ?", arguments: [id])
                counts.messages += db.changesCount
                try db.execute(sql: "DELETE FROM retainedText WHERE messageID = ?", arguments: [id])
                try Self.moveReadMarker(offPurged: id, sequence: row["sequence"], threadID: threadID, db)
                var entry = AuditEntry(at: now, action: .messagePurge, userID: row["userID"], threadID: threadID, messageID: id)
                try entry.insert(sealedBy: cipher, db)
            }
            // The texts kept from edits leave 30 days after the edit.
            _ = try self.purgeRetainedTexts(now: now, db)
            return counts
        }
    }

    /// Moves messages written longer than `age` ago into `archivedMessage`, `batchSize` to a
    /// transaction so that chat writes are never held up for long, and logs one
    /// `message.archive` entry with the count. Deleted messages are left for `purgeDeleted`.
    @discardableResult
    public func archiveMessages(olderThan age: DateComponents = DateComponents(month: 18), now: Date = Date(), batchSize: Int = 5_000) async throws -> Int {
        let cutoff = age.before(now)
        var total = 0
        while true {
            let moved = try await writer.commit { db -> Int in
                let ids = try String.fetchAll(db, sql: "SELECT id FROM message WHERE createdAt < ? AND deletedAt IS NULL LIMIT ?",
                                              arguments: [cutoff, max(1, batchSize)])
                guard !ids.isEmpty else { return 0 }
                let list = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
                try db.execute(sql: """
                    INSERT INTO archivedMessage (id, threadID, sequence, role, content, status, turnID, error, createdAt, updatedAt, version, archivedAt)
                    SELECT id, threadID, sequence, role, content, status, turnID, error, createdAt, updatedAt, version, ?
                    FROM message WHERE id IN (SELECT value FROM json_each(?))
                    """, arguments: [now, list])
                try db.execute(sql: "DELETE FROM message WHERE id IN (SELECT value FROM json_each(?))", arguments: [list])
                return ids.count
            }
            total += moved
            if moved < max(1, batchSize) { break }
        }
        if total > 0 {
            try await recordAudit(AuditEntry(at: now, action: .messageArchive,
                                       details: AuditEntry.details(["messages": .int(total), "before": .string(cutoff.ISO8601Format())])))
        }
        return total
    }

    /// A thread's archived messages, oldest first, for the user's export.
    public func archivedMessages(threadID: String) async throws -> [ArchivedMessageRecord] {
        try await writer.read { db in
            try ArchivedMessageRecord.filter(Column("threadID") == threadID).order(Column("sequence")).fetchAll(db).map { try $0.opened(cipher, db) }
        }
    }

    // MARK: Shared with the erasure

    static func owner(of threadID: String, _ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT userID FROM thread WHERE id = ?", arguments: [threadID])
    }

    /// Deletes a thread with its messages (live and archived) and turns, one table at a time
    /// rather than by cascade, so it holds on a connection opened without foreign keys.
    static func removeThread(_ id: String, _ db: Database) throws -> RetentionCounts {
        var counts = RetentionCounts()
        try db.execute(sql: "DELETE FROM turn WHERE threadID = ?", arguments: [id])
        counts.turns = db.changesCount
        try db.execute(sql: "DELETE FROM message WHERE threadID = ?", arguments: [id])
        counts.messages = db.changesCount
        try db.execute(sql: "DELETE FROM archivedMessage WHERE threadID = ?", arguments: [id])
        counts.archivedMessages = db.changesCount
        try db.execute(sql: "DELETE FROM retainedText WHERE threadID = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM thread WHERE id = ?", arguments: [id])
        counts.threads = db.changesCount
        return counts
    }

    /// A thread whose read marker named a purged message points at the message before it
    /// instead, so the unread count still starts in the right place.
    private static func moveReadMarker(offPurged id: String, sequence: Int, threadID: String, _ db: Database) throws {
        try db.execute(sql: """
            UPDATE thread SET lastReadMessageID = (
                SELECT id FROM (SELECT id, sequence FROM message WHERE threadID = ?1
                                UNION ALL SELECT id, sequence FROM archivedMessage WHERE threadID = ?1)
                WHERE sequence < ?2 ORDER BY sequence DESC LIMIT 1)
            WHERE id = ?1 AND lastReadMessageID = ?3
            """, arguments: [threadID, sequence, id])
    }
}

extension SQLiteChatStore {
    /// What the retention jobs have still to do at `now`, counted with the limits the jobs use
    /// (`purgeDeleted`'s 30 days, `archiveMessages`' 18 months, `SafetyVerdictRecord.retention`,
    /// each retained text's `purgeAfter`).
    public func retentionDue(now: Date) async throws -> RetentionDue {
        let deletedBefore = DateComponents(day: 30).before(now)
        let archiveBefore = DateComponents(month: 18).before(now)
        let verdictsBefore = SafetyVerdictRecord.retention.before(now)
        return try await writer.read { db in
            var due = RetentionDue()
            due.deletedThreads = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM thread WHERE deletedAt IS NOT NULL AND deletedAt <= ?",
                                                  arguments: [deletedBefore]) ?? 0
            due.deletedMessages = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE deletedAt IS NOT NULL AND deletedAt <= ?",
                                                   arguments: [deletedBefore]) ?? 0
            due.messagesToArchive = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE createdAt < ? AND deletedAt IS NULL",
                                                     arguments: [archiveBefore]) ?? 0
            due.verdicts = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM safetyVerdict WHERE at < ?", arguments: [verdictsBefore]) ?? 0
            due.retainedTexts = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM retainedText WHERE purgeAfter <= ?", arguments: [now]) ?? 0
            due.oldestDeletedAt = try Date.fetchOne(db, sql: """
                SELECT MIN(deletedAt) FROM (SELECT deletedAt FROM thread WHERE deletedAt IS NOT NULL AND deletedAt <= ?1
                                            UNION ALL SELECT deletedAt FROM message WHERE deletedAt IS NOT NULL AND deletedAt <= ?1)
                """, arguments: [deletedBefore])
            return due
        }
    }
}
