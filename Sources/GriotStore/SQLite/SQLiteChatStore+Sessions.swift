import Foundation
import GRDB

extension SQLiteChatStore {
    /// The user's threads with one assistant, most recently active first, with message counts.
    public func threadSummaries(userID: String, assistant: String) async throws -> [ThreadSummary] {
        try await writer.read { db in
            let threads = try ThreadRecord.filter(Column("userID") == userID && Column("assistant") == assistant && Column("deletedAt") == nil)
                .order(Column("updatedAt").desc).fetchAll(db)
            return try threads.map { thread in
                let thread = try thread.opened(cipher, db)
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE threadID = ? AND deletedAt IS NULL", arguments: [thread.id]) ?? 0
                return ThreadSummary(thread: thread, messageCount: count)
            }
        }
    }

    /// Whether any thread, deleted or not, has this id (a client may name a new session itself).
    public func threadExists(id: String) async throws -> Bool {
        try await writer.read { db in try ThreadRecord.filter(key: id).fetchCount(db) > 0 }
    }

    /// Hides a thread and its messages at once; returns false when there is no such thread.
    public func deleteThread(id: String, now: Date = Date()) async throws -> Bool {
        try await writer.commit { db in
            try db.execute(sql: "UPDATE message SET deletedAt = ? WHERE threadID = ? AND deletedAt IS NULL", arguments: [now, id])
            try db.execute(sql: "UPDATE thread SET deletedAt = ? WHERE id = ? AND deletedAt IS NULL", arguments: [now, id])
            return db.changesCount > 0
        }
    }

    /// Marks replies left `streaming` by a service that stopped (killed, crashed) as
    /// `interrupted`, with their turns. Only replies untouched for `staleAfter` seconds count, so
    /// that another node's live replies (rewritten every half second) are left alone.
    @discardableResult
    public func markInterruptedReplies(staleAfter: Double, now: Date = Date()) async throws -> Int {
        let cutoff = now.addingTimeInterval(-staleAfter)
        return try await writer.commit { db in
            try db.execute(sql: """
                UPDATE turn SET status = 'interrupted', finishedAt = ? WHERE status = 'streaming'
                AND assistantMessageID IN (SELECT id FROM message WHERE status = 'streaming' AND updatedAt <= ?)
                """, arguments: [now, cutoff])
            let replies = try Row.fetchAll(db, sql: """
                SELECT message.id, thread.userID FROM message JOIN thread ON thread.id = message.threadID
                WHERE message.status = 'streaming' AND message.updatedAt <= ?
                """, arguments: [cutoff])
            return try self.interrupt(replies, error: "The service stopped while this reply was being written; ask again to get a whole answer.",
                                      statuses: ["streaming"], now: now, db)
        }
    }

    /// Marks the given replies `interrupted` (with their turns) when they ended `stopped` or are
    /// still `streaming`: a service shutting down stopped them, not their user.
    @discardableResult
    public func markInterrupted(replyIDs: [String], now: Date = Date()) async throws -> Int {
        guard !replyIDs.isEmpty else { return 0 }
        let ids = String(decoding: try JSONEncoder().encode(replyIDs), as: UTF8.self)
        return try await writer.commit { db in
            try db.execute(sql: """
                UPDATE turn SET status = 'interrupted' WHERE status IN ('stopped', 'streaming')
                AND assistantMessageID IN (SELECT value FROM json_each(?))
                """, arguments: [ids])
            let replies = try Row.fetchAll(db, sql: """
                SELECT message.id, thread.userID FROM message JOIN thread ON thread.id = message.threadID
                WHERE message.status IN ('stopped', 'streaming') AND message.id IN (SELECT value FROM json_each(?))
                """, arguments: [ids])
            return try self.interrupt(replies, error: "The service restarted while this reply was being written; ask again to get a whole answer.",
                                      statuses: ["stopped", "streaming"], now: now, db)
        }
    }

    /// Marks each reply (rows of `id` and its owner's `userID`) `interrupted` with `error`, sealed
    /// for that reply, when its status is still one of `statuses`; returns how many changed.
    private func interrupt(_ replies: [Row], error: String, statuses: [String], now: Date, _ db: Database) throws -> Int {
        let statusList = String(decoding: try JSONEncoder().encode(statuses), as: UTF8.self)
        var changed = 0
        for reply in replies {
            let id: String = reply["id"]
            try db.execute(sql: """
                UPDATE message SET status = 'interrupted', updatedAt = ?, error = ?
                WHERE id = ? AND status IN (SELECT value FROM json_each(?))
                """, arguments: [now, try cipher.seal(error, .messageError, row: id, scope: .user(reply["userID"]), db: db), id, statusList])
            changed += db.changesCount
        }
        return changed
    }
}
