import Foundation
import GriotStore
import PostgresNIO

/// Deleting, purging and archiving messages and threads. A delete hides at once (every chat
/// read leaves out rows with `deletedat`); the text stays 30 days so a mistake can be undone
/// by an admin, then `purgeDeleted` removes the rows. `archiveMessages` moves messages older
/// than 18 months out of the hot table. The jobs return counts for their logs.
extension PostgresChatStore {
    /// Hides a message at once and logs `message.delete`. Returns false when it was already
    /// deleted (a repeated DELETE is not an error); throws `notFound` when there is no such
    /// message, and `conflict` when `ifMatch` is given and stale.
    @discardableResult
    public func softDeleteMessage(id: String, by actorID: String, ifMatch: String? = nil, now: Date = Date()) async throws -> Bool {
        let context = AuditContext.current
        try await prepareKeys(ofMessages: [id])
        return try await transaction { connection in
            try await Self.lockThread(ofMessage: id, on: connection)
            guard let message = try await Self.rows("SELECT * FROM message WHERE id = \(id) FOR UPDATE", on: connection)
                    .first.asyncFlatMap({ try await opened(MessageRecord($0)) })
            else { throw ChatStoreError.messageNotFound(id) }
            if message.deletedAt != nil { return false }
            if let ifMatch, !MessageETag.matches(ifMatch, id: id, version: message.version) { throw ChatStoreError.stale(message, sent: ifMatch) }
            let owner = try await Self.owner(of: message.threadID, on: connection)
            // The text moves to the one place it is kept for review; the row keeps none.
            try await retainOldText(of: message, owner: owner ?? "", reason: .deleted, now: now, on: connection)
            try await Self.rows("UPDATE message SET deletedat = \(now.millisecondRounded), content = '' WHERE id = \(id)", on: connection)
            try await insert(AuditEntry(at: now, action: .messageDelete, userID: owner, actorID: actorID,
                                             threadID: message.threadID, messageID: id, ipHash: context?.ipHash,
                                             details: AuditEntry.details(["role": .string(message.role.rawValue), "version": .int(message.version)])),
                                  on: connection)
            return true
        }
    }

    /// Hides a thread and all its messages at once (the mobile app's "delete session") and logs
    /// `thread.delete`; `purgeDeleted` removes it 30 days later. Returns false when it was
    /// already deleted.
    @discardableResult
    public func softDeleteThread(id: String, by actorID: String, now: Date = Date()) async throws -> Bool {
        let context = AuditContext.current
        if let owner = try await owner(ofThread: id) { try await prepareKeys([.user(owner)]) }
        return try await transaction { connection in
            guard let thread = try await Self.rows("SELECT * FROM thread WHERE id = \(id) FOR NO KEY UPDATE", on: connection)
                    .first.map({ try ThreadRecord($0) })
            else { throw ChatStoreError.threadNotFound(id) }
            if thread.deletedAt != nil { return false }
            try await Self.rows("UPDATE thread SET deletedat = \(now.millisecondRounded) WHERE id = \(id)", on: connection)
            let messages = try await opened(Self.rows("""
                SELECT * FROM message WHERE threadid = \(id) AND deletedat IS NULL ORDER BY sequence FOR UPDATE
                """, on: connection).map { try MessageRecord($0) }, opened)
            for message in messages {
                try await retainOldText(of: message, owner: thread.userID, reason: .deleted, now: now, on: connection)
            }
            let hidden = try await Self.rows("""
                UPDATE message SET deletedat = \(now.millisecondRounded), content = '' WHERE threadid = \(id) AND deletedat IS NULL RETURNING id
                """, on: connection).count
            try await insert(AuditEntry(at: now, action: .threadDelete, userID: thread.userID, actorID: actorID, threadID: id, ipHash: context?.ipHash,
                                             details: AuditEntry.details(["messages": .int(hidden)])), on: connection)
            return true
        }
    }

    /// Removes threads and messages deleted longer than `age` ago, with the turn snapshots that
    /// copy a purged reply's text, and logs `thread.purge` / `message.purge` for each. Nothing
    /// deleted more recently is touched.
    @discardableResult
    public func purgeDeleted(olderThan age: DateComponents = DateComponents(day: 30), now: Date = Date()) async throws -> RetentionCounts {
        let cutoff = age.before(now).millisecondRounded
        return try await transaction { connection in
            var counts = RetentionCounts()
            let threads = try await Self.rows("""
                SELECT * FROM thread WHERE deletedat IS NOT NULL AND deletedat <= \(cutoff) ORDER BY deletedat, id FOR UPDATE
                """, on: connection).map { try ThreadRecord($0) }
            for thread in threads {
                let removed = try await Self.removeThread(thread.id, on: connection)
                counts.add(removed)
                try await insert(AuditEntry(at: now, action: .threadPurge, userID: thread.userID, threadID: thread.id,
                                                 details: AuditEntry.details(["messages": .int(removed.messages + removed.archivedMessages),
                                                                              "turns": .int(removed.turns)])), on: connection)
            }

            let purged = try await Self.rows("""
                SELECT message.id, message.threadid, message.sequence, thread.userid FROM message JOIN thread ON thread.id = message.threadid
                WHERE message.deletedat IS NOT NULL AND message.deletedat <= \(cutoff) ORDER BY message.deletedat, message.id
                FOR NO KEY UPDATE OF thread
                """, on: connection)
            for row in purged.map({ $0.makeRandomAccess() }) {
                let id = try row["id"].decode(String.self)
                let threadID = try row["threadid"].decode(String.self)
                // A turn's snapshot holds the reply's text, so it goes with the reply.
                counts.turns += try await Self.rows("DELETE FROM turn WHERE assistantmessageid = \(id) RETURNING id", on: connection).count
                counts.messages += try await Self.rows("DELETE FROM message WHERE id = \(id) RETURNING id", on: connection).count
                try await Self.rows("DELETE FROM retainedtext WHERE messageid = \(id)", on: connection)
                try await Self.moveReadMarker(offPurged: id, sequence: row["sequence"].decode(Int.self), threadID: threadID, on: connection)
                try await insert(AuditEntry(at: now, action: .messagePurge, userID: row["userid"].decode(String.self), threadID: threadID,
                                                 messageID: id), on: connection)
            }
            // The texts kept from edits leave 30 days after the edit.
            _ = try await Self.purgeRetainedTexts(now: now, on: connection)
            return counts
        }
    }

    /// Moves messages written longer than `age` ago into `archivedmessage`, `batchSize` to a
    /// transaction so that chat writes are never held up for long, and logs one
    /// `message.archive` entry with the count. Deleted messages are left for `purgeDeleted`.
    @discardableResult
    public func archiveMessages(olderThan age: DateComponents = DateComponents(month: 18), now: Date = Date(), batchSize: Int = 5_000) async throws -> Int {
        let cutoff = age.before(now)
        let batch = max(1, batchSize)
        var total = 0
        while true {
            let moved = try await transaction { connection -> Int in
                // Threads first, then their messages: the order an erasure (`purgeUser`) and a
                // thread delete lock them in, so the two never wait on each other in a cycle.
                // Locked, so that a delete or an edit in flight either lands before the move or
                // finds the message archived.
                let threads = try await Self.rows("""
                    SELECT id FROM thread WHERE id IN (
                        SELECT threadid FROM message WHERE createdat < \(cutoff.millisecondRounded) AND deletedat IS NULL LIMIT \(batch))
                    ORDER BY id FOR UPDATE
                    """, on: connection).map { try $0.makeRandomAccess()[0].decode(String.self) }
                guard !threads.isEmpty else { return 0 }
                let ids = try await Self.rows("""
                    SELECT id FROM message WHERE createdat < \(cutoff.millisecondRounded) AND deletedat IS NULL
                    AND threadid = ANY(\(threads)) LIMIT \(batch) FOR UPDATE
                    """, on: connection).map { try $0.makeRandomAccess()[0].decode(String.self) }
                guard !ids.isEmpty else { return 0 }
                try await Self.rows("""
                    INSERT INTO archivedmessage (id, threadid, sequence, role, content, status, turnid, error, createdat, updatedat, version, archivedat)
                    SELECT id, threadid, sequence, role, content, status, turnid, error, createdat, updatedat, version, \(now.millisecondRounded)
                    FROM message WHERE id = ANY(\(ids))
                    """, on: connection)
                try await Self.rows("DELETE FROM message WHERE id = ANY(\(ids))", on: connection)
                return ids.count
            }
            total += moved
            if moved < batch { break }
        }
        if total > 0 {
            try await recordAudit(AuditEntry(at: now, action: .messageArchive,
                                             details: AuditEntry.details(["messages": .int(total), "before": .string(cutoff.ISO8601Format())])))
        }
        return total
    }

    /// A thread's archived messages, oldest first, for the user's export.
    public func archivedMessages(threadID: String) async throws -> [ArchivedMessageRecord] {
        try await opened(rows("SELECT * FROM archivedmessage WHERE threadid = \(threadID) ORDER BY sequence")
            .map { try ArchivedMessageRecord($0) }, opened)
    }

    // MARK: Shared with the erasure

    static func owner(of threadID: String, on connection: PostgresConnection) async throws -> String? {
        try await scalar(String.self, rows("SELECT userid FROM thread WHERE id = \(threadID)", on: connection))
    }

    /// Deletes a thread with its messages (live and archived) and turns, one table at a time
    /// rather than by cascade, as the SQLite store does, so that the counts are the same.
    static func removeThread(_ id: String, on connection: PostgresConnection) async throws -> RetentionCounts {
        var counts = RetentionCounts()
        counts.turns = try await rows("DELETE FROM turn WHERE threadid = \(id) RETURNING id", on: connection).count
        counts.messages = try await rows("DELETE FROM message WHERE threadid = \(id) RETURNING id", on: connection).count
        counts.archivedMessages = try await rows("DELETE FROM archivedmessage WHERE threadid = \(id) RETURNING id", on: connection).count
        try await rows("DELETE FROM retainedtext WHERE threadid = \(id)", on: connection)
        counts.threads = try await rows("DELETE FROM thread WHERE id = \(id) RETURNING id", on: connection).count
        return counts
    }

    /// A thread whose read marker named a purged message points at the message before it
    /// instead, so the unread count still starts in the right place.
    private static func moveReadMarker(offPurged id: String, sequence: Int, threadID: String, on connection: PostgresConnection) async throws {
        try await rows("""
            UPDATE thread SET lastreadmessageid = (
                SELECT earlier.id FROM (SELECT id, sequence FROM message WHERE threadid = \(threadID)
                                        UNION ALL SELECT id, sequence FROM archivedmessage WHERE threadid = \(threadID)) AS earlier
                WHERE earlier.sequence < \(sequence) ORDER BY earlier.sequence DESC LIMIT 1)
            WHERE id = \(threadID) AND lastreadmessageid = \(id)
            """, on: connection)
    }
}

extension PostgresChatStore {
    /// What the jobs above would remove or move if they ran at `now`, with their limits: 30
    /// days after a soft delete (`purgeDeleted`), 18 months for live messages
    /// (`archiveMessages`), `SafetyVerdictRecord.retention` (`purgeVerdicts`), and a retained
    /// text's own `purgeAfter`. One statement, so the counts are of one moment.
    public func retentionDue(now: Date) async throws -> RetentionDue {
        let deletedBefore = DateComponents(day: 30).before(now).millisecondRounded
        let archiveBefore = DateComponents(month: 18).before(now).millisecondRounded
        let verdictsBefore = SafetyVerdictRecord.retention.before(now).millisecondRounded
        let counted = try await rows("""
            SELECT (SELECT COUNT(*) FROM message WHERE deletedat IS NOT NULL AND deletedat <= \(deletedBefore)),
                   (SELECT COUNT(*) FROM thread WHERE deletedat IS NOT NULL AND deletedat <= \(deletedBefore)),
                   (SELECT COUNT(*) FROM message WHERE createdat < \(archiveBefore) AND deletedat IS NULL),
                   (SELECT COUNT(*) FROM safetyverdict WHERE at < \(verdictsBefore)),
                   (SELECT COUNT(*) FROM retainedtext WHERE purgeafter <= \(now.millisecondRounded)),
                   LEAST((SELECT MIN(deletedat) FROM message WHERE deletedat <= \(deletedBefore)),
                         (SELECT MIN(deletedat) FROM thread WHERE deletedat <= \(deletedBefore)))
            """)
        guard let row = counted.first else { return RetentionDue() }
        let (messages, threads, toArchive, verdicts, retained, oldest) = try row.decode((Int, Int, Int, Int, Int, Date?).self)
        var due = RetentionDue()
        due.deletedMessages = messages
        due.deletedThreads = threads
        due.messagesToArchive = toArchive
        due.verdicts = verdicts
        due.retainedTexts = retained
        due.oldestDeletedAt = oldest?.millisecondRounded
        return due
    }
}
