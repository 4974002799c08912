import Foundation
import GriotStore
import PostgresNIO

/// What a chat screen needs: pages of older messages as the user scrolls up, and how many
/// replies are unread. Deleted messages never appear; archived ones are left to the export.
extension PostgresChatStore {
    /// Up to `limit` messages before sequence `before` (the newest when nil), oldest first.
    /// The page's `earlier` is the `before` for the next, older page.
    public func messages(threadID: String, before: Int? = nil, limit: Int = 50) async throws -> MessagePage {
        let limit = max(1, limit)
        var newestFirst = try await opened(rows("""
            SELECT * FROM message WHERE threadid = \(threadID) AND deletedat IS NULL AND (\(before)::bigint IS NULL OR sequence < \(before))
            ORDER BY sequence DESC LIMIT \(limit + 1)
            """).map { try MessageRecord($0) }, opened)
        let more = newestFirst.count > limit
        if more { newestFirst.removeLast() }
        return MessagePage(messages: newestFirst.reversed(), earlier: more ? newestFirst.last?.sequence : nil)
    }

    /// How many replies (assistant messages) came after the thread's read marker; all of them
    /// when the user has read nothing. The user's own messages are never unread.
    public func unreadCount(threadID: String) async throws -> Int {
        let counted = try await rows("""
            SELECT (SELECT COUNT(*) FROM message
                    WHERE message.threadid = thread.id AND message.deletedat IS NULL AND message.role = \(MessageRecord.Role.assistant.rawValue)
                      AND message.sequence > COALESCE((\(unescaped: Self.sequenceOfReadMarker)), 0))
            FROM thread WHERE thread.id = \(threadID) AND thread.deletedat IS NULL
            """)
        guard let count = try Self.scalar(Int.self, counted) else { throw ChatStoreError.threadNotFound(threadID) }
        return count
    }

    /// Marks the thread read up to and including `messageID`. The marker only moves forward, so
    /// a second device reporting an older message does not bring back read replies. The thread's
    /// row is locked while the marker is compared, so two devices cannot move it back together.
    public func markRead(threadID: String, messageID: String) async throws {
        try await transaction { connection in
            guard let current = try await Self.rows("""
                SELECT COALESCE((\(unescaped: Self.sequenceOfReadMarker)), 0) FROM thread WHERE thread.id = \(threadID) AND thread.deletedat IS NULL
                FOR NO KEY UPDATE
                """, on: connection).first
            else { throw ChatStoreError.threadNotFound(threadID) }
            guard let sequence = try await Self.scalar(Int.self, Self.rows("""
                SELECT sequence FROM message WHERE id = \(messageID) AND threadid = \(threadID) AND deletedat IS NULL
                """, on: connection))
            else { throw ChatStoreError.messageNotFound(messageID) }
            guard sequence > (try current.makeRandomAccess()[0].decode(Int.self)) else { return }
            try await Self.rows("UPDATE thread SET lastreadmessageid = \(messageID) WHERE id = \(threadID)", on: connection)
        }
    }

    /// The place in `threadID` of a message, whether live, deleted (not yet purged) or archived:
    /// a paging cursor, which must outlive a delete of the message it names. Nil when the
    /// message is not of that thread or was purged.
    public func sequence(ofMessage messageID: String, inThread threadID: String) async throws -> Int? {
        try Self.scalar(Int.self, await rows("""
            SELECT sequence FROM message WHERE id = \(messageID) AND threadid = \(threadID)
            UNION ALL SELECT sequence FROM archivedmessage WHERE id = \(messageID) AND threadid = \(threadID) LIMIT 1
            """))
    }

    /// The text of every message the user wrote in the thread that is not deleted, live or
    /// archived, oldest first: the values the user shared, which a reply may show unmasked.
    public func userTexts(threadID: String) async throws -> [String] {
        var texts: [String] = []
        for row in try await rows("""
            SELECT id, content FROM (SELECT id, sequence, content FROM message WHERE threadid = \(threadID) AND role = 'user' AND deletedat IS NULL
                                     UNION ALL SELECT id, sequence, content FROM archivedmessage WHERE threadid = \(threadID) AND role = 'user') AS texts
            ORDER BY sequence
            """) {
            let (id, content) = try row.decode((String, String).self)
            texts.append(try await keys.open(content, .messageContent, row: id))
        }
        return texts
    }

    /// The place of the message a thread's read marker names, live or archived (a subquery on
    /// `thread`; a fixed fragment, no values).
    private static let sequenceOfReadMarker = """
        SELECT marked.sequence FROM (SELECT id, sequence FROM message UNION ALL SELECT id, sequence FROM archivedmessage) AS marked
        WHERE marked.id = thread.lastreadmessageid LIMIT 1
        """
}
