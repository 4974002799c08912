import Foundation
import GriotStore
import PostgresNIO

extension PostgresChatStore {
    /// The user's threads with one assistant, most recently active first, with message counts.
    public func threadSummaries(userID: String, assistant: String) async throws -> [ThreadSummary] {
        var summaries: [ThreadSummary] = []
        for row in try await rows("""
            SELECT thread.*, (SELECT COUNT(*) FROM message WHERE message.threadid = thread.id AND message.deletedat IS NULL) AS messagecount
            FROM thread WHERE userid = \(userID) AND assistant = \(assistant) AND deletedat IS NULL ORDER BY updatedat DESC
            """) {
            summaries.append(ThreadSummary(thread: try await opened(ThreadRecord(row)), messageCount: try row.makeRandomAccess()["messagecount"].decode(Int.self)))
        }
        return summaries
    }

    /// Whether any thread, deleted or not, has this id (a client may name a new session itself).
    public func threadExists(id: String) async throws -> Bool {
        try await !rows("SELECT 1 FROM thread WHERE id = \(id)").isEmpty
    }

    /// Hides a thread and its messages at once; returns false when there is no such thread.
    public func deleteThread(id: String, now: Date = Date()) async throws -> Bool {
        try await transaction { connection in
            try await Self.rows("UPDATE message SET deletedat = \(now.millisecondRounded) WHERE threadid = \(id) AND deletedat IS NULL", on: connection)
            return try await !Self.rows("""
                UPDATE thread SET deletedat = \(now.millisecondRounded) WHERE id = \(id) AND deletedat IS NULL RETURNING id
                """, on: connection).isEmpty
        }
    }

    /// Marks replies left `streaming` by a service that stopped (killed, crashed) as
    /// `interrupted`, with their turns. Only replies untouched for `staleAfter` seconds count, so
    /// that another node's live replies (rewritten every half second) are left alone.
    @discardableResult
    public func markInterruptedReplies(staleAfter: Double, now: Date = Date()) async throws -> Int {
        let cutoff = now.addingTimeInterval(-staleAfter).millisecondRounded
        return try await transaction { connection in
            try await Self.rows("""
                UPDATE turn SET status = 'interrupted', finishedat = \(now.millisecondRounded) WHERE status = 'streaming'
                AND assistantmessageid IN (SELECT id FROM message WHERE status = 'streaming' AND updatedat <= \(cutoff))
                """, on: connection)
            let replies = try await Self.rows("""
                SELECT message.id, thread.userid FROM message JOIN thread ON thread.id = message.threadid
                WHERE message.status = 'streaming' AND message.updatedat <= \(cutoff) ORDER BY message.id FOR UPDATE OF message
                """, on: connection)
            return try await interrupt(replies, error: "The service stopped while this reply was being written; ask again to get a whole answer.",
                                       now: now, on: connection)
        }
    }

    /// Marks the given replies `interrupted` (with their turns) when they ended `stopped` or are
    /// still `streaming`: a service shutting down stopped them, not their user.
    @discardableResult
    public func markInterrupted(replyIDs: [String], now: Date = Date()) async throws -> Int {
        guard !replyIDs.isEmpty else { return 0 }
        return try await transaction { connection in
            try await Self.rows("""
                UPDATE turn SET status = 'interrupted' WHERE status IN ('stopped', 'streaming') AND assistantmessageid = ANY(\(replyIDs))
                """, on: connection)
            let replies = try await Self.rows("""
                SELECT message.id, thread.userid FROM message JOIN thread ON thread.id = message.threadid
                WHERE message.status IN ('stopped', 'streaming') AND message.id = ANY(\(replyIDs)) ORDER BY message.id FOR UPDATE OF message
                """, on: connection)
            return try await interrupt(replies, error: "The service restarted while this reply was being written; ask again to get a whole answer.",
                                       now: now, on: connection)
        }
    }

    /// Marks the replies (rows of id and owner, locked) `interrupted` with `error`, sealed for
    /// each reply, in one statement; returns how many changed.
    private func interrupt(_ replies: [PostgresRow], error: String, now: Date, on connection: PostgresConnection) async throws -> Int {
        guard !replies.isEmpty else { return 0 }
        var ids: [String] = []
        var errors: [String] = []
        for row in replies {
            let (id, owner) = try row.decode((String, String).self)
            ids.append(id)
            errors.append(try await keys.seal(error, .messageError, row: id, scope: .user(owner)))
        }
        return try await Self.rows("""
            UPDATE message SET status = 'interrupted', updatedat = \(now.millisecondRounded), error = sealed.error
            FROM unnest(\(ids)::text[], \(errors)::text[]) AS sealed(id, error) WHERE message.id = sealed.id RETURNING message.id
            """, on: connection).count
    }
}
