import Foundation
import GRDB

/// What a chat screen needs: pages of older messages as the user scrolls up, and how many
/// replies are unread. Deleted messages never appear; archived ones are left to the export.
extension SQLiteChatStore {
    /// Up to `limit` messages before sequence `before` (the newest when nil), oldest first.
    /// The page's `earlier` is the `before` for the next, older page.
    public func messages(threadID: String, before: Int? = nil, limit: Int = 50) async throws -> MessagePage {
        let limit = max(1, limit)
        return try await writer.read { db in
            var request = MessageRecord.filter(Column("threadID") == threadID && Column("deletedAt") == nil)
            if let before { request = request.filter(Column("sequence") < before) }
            var newestFirst = try request.order(Column("sequence").desc).limit(limit + 1).fetchAll(db).map { try $0.opened(cipher, db) }
            let more = newestFirst.count > limit
            if more { newestFirst.removeLast() }
            return MessagePage(messages: newestFirst.reversed(), earlier: more ? newestFirst.last?.sequence : nil)
        }
    }

    /// How many replies (assistant messages) came after the thread's read marker; all of them
    /// when the user has read nothing. The user's own messages are never unread.
    public func unreadCount(threadID: String) async throws -> Int {
        try await writer.read { db in
            guard let thread = try ThreadRecord.filter(key: threadID).filter(Column("deletedAt") == nil).fetchOne(db) else {
                throw ChatStoreError.threadNotFound(threadID)
            }
            let readUpTo = try thread.lastReadMessageID.flatMap { try Self.sequence(of: $0, db) } ?? 0
            return try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM message WHERE threadID = ? AND deletedAt IS NULL AND role = ? AND sequence > ?
                """, arguments: [threadID, MessageRecord.Role.assistant, readUpTo]) ?? 0
        }
    }

    /// Marks the thread read up to and including `messageID`. The marker only moves forward, so
    /// a second device reporting an older message does not bring back read replies.
    public func markRead(threadID: String, messageID: String) async throws {
        try await writer.commit { db in
            guard let thread = try ThreadRecord.filter(key: threadID).filter(Column("deletedAt") == nil).fetchOne(db) else {
                throw ChatStoreError.threadNotFound(threadID)
            }
            guard let sequence = try Int.fetchOne(db, sql: "SELECT sequence FROM message WHERE id = ? AND threadID = ? AND deletedAt IS NULL",
                                                  arguments: [messageID, threadID])
            else { throw ChatStoreError.messageNotFound(messageID) }
            let current = try thread.lastReadMessageID.flatMap { try Self.sequence(of: $0, db) } ?? 0
            guard sequence > current else { return }
            try db.execute(sql: "UPDATE thread SET lastReadMessageID = ? WHERE id = ?", arguments: [messageID, threadID])
        }
    }

    /// The place in `threadID` of a message, whether live, deleted (not yet purged) or archived:
    /// a paging cursor, which must outlive a delete of the message it names. Nil when the
    /// message is not of that thread or was purged.
    public func sequence(ofMessage messageID: String, inThread threadID: String) async throws -> Int? {
        try await writer.read { db in
            try Int.fetchOne(db, sql: """
                SELECT sequence FROM message WHERE id = ?1 AND threadID = ?2
                UNION ALL SELECT sequence FROM archivedMessage WHERE id = ?1 AND threadID = ?2 LIMIT 1
                """, arguments: [messageID, threadID])
        }
    }

    /// The text of every message the user wrote in the thread that is not deleted, live or
    /// archived, oldest first: the values the user shared, which a reply may show unmasked.
    public func userTexts(threadID: String) async throws -> [String] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, content FROM (SELECT id, sequence, content FROM message WHERE threadID = ?1 AND role = 'user' AND deletedAt IS NULL
                                         UNION ALL SELECT id, sequence, content FROM archivedMessage WHERE threadID = ?1 AND role = 'user')
                ORDER BY sequence
                """, arguments: [threadID]).map { try cipher.open($0["content"] as String, .messageContent, row: $0["id"], db: db) }
        }
    }

    /// A message's place in its thread, live or archived.
    private static func sequence(of messageID: String, _ db: Database) throws -> Int? {
        try Int.fetchOne(db, sql: """
            SELECT sequence FROM message WHERE id = ?1 UNION ALL SELECT sequence FROM archivedMessage WHERE id = ?1 LIMIT 1
            """, arguments: [messageID])
    }
}
