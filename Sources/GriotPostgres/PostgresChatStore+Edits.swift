import Foundation
import GriotStore
import PostgresNIO

/// Editing a message, made safe against lost updates by its ETag.
extension PostgresChatStore {
    /// As `SQLiteChatStore.editMessage` (see `MessageStore`). The message's row, and its thread's
    /// (whose title the edit may clear), is locked while the version is compared, so of two
    /// edits sent with the same ETag only the first succeeds.
    @discardableResult
    public func editMessage(id: String, content: String, ifMatch: String, by actorID: String, now: Date = Date(),
                            moderation: String? = nil, decision: String? = nil) async throws -> MessageRecord {
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ChatStoreError(.invalid, "A message needs some text; send the new text, or delete the message instead.")
        }
        if let reason = StorableText.unstorableReason(content, what: "message") { throw ChatStoreError(.invalid, reason) }
        let context = AuditContext.current
        try await prepareKeys(ofMessages: [id])
        return try await transaction { connection in
            try await Self.lockThread(ofMessage: id, on: connection)
            guard var message = try await Self.rows("SELECT * FROM message WHERE id = \(id) AND deletedat IS NULL FOR UPDATE", on: connection)
                    .first.asyncFlatMap({ try await opened(MessageRecord($0)) }),
                  let owner = try await Self.scalar(String.self, Self.rows("""
                      SELECT userid FROM thread WHERE id = \(message.threadID) AND deletedat IS NULL
                      """, on: connection))
            else { throw ChatStoreError.messageNotFound(id) }
            guard MessageETag.matches(ifMatch, id: id, version: message.version) else { throw ChatStoreError.stale(message, sent: ifMatch) }
            guard message.status != .streaming else {
                throw ChatStoreError(.conflict, "Message \(id) is a reply still being written; wait for it to finish, then edit it.",
                                     currentETag: message.etag)
            }
            // The text before the edit is kept only for moderation review, and leaves every copy.
            try await retainOldText(of: message, owner: owner, reason: .edited, now: now, on: connection)
            message.content = content
            message.updatedAt = now
            message.version += 1
            let sealed = try await keys.seal(content, .messageContent, row: id, scope: .user(owner))
            try await Self.rows("""
                UPDATE message SET content = \(sealed), updatedat = \(now.millisecondRounded), version = \(message.version) WHERE id = \(id)
                """, on: connection)
            try await insert(AuditEntry(at: now, action: .messageUpdate, userID: owner, actorID: actorID, threadID: message.threadID, messageID: id,
                                             ipHash: context?.ipHash, moderation: moderation,
                                             details: AuditEntry.details(["reason": "edit", "version": .int(message.version)])), on: connection)
            if let moderation, let decision {
                try await insert(AuditEntry(at: now, action: .messageModerate, userID: owner, actorID: actorID, threadID: message.threadID,
                                                 messageID: id, ipHash: context?.ipHash, moderation: moderation,
                                                 details: AuditEntry.details(["decision": .string(decision), "input": "text", "write": "edit"])),
                                      on: connection)
            }
            return message
        }
    }

    /// Locks the row of the thread a message is in, first: a delete or an edit of the message
    /// then takes its locks in the order every other write does (thread, then messages).
    static func lockThread(ofMessage id: String, on connection: PostgresConnection) async throws {
        try await rows("""
            SELECT 1 FROM thread WHERE id = (SELECT threadid FROM message WHERE id = \(id)) FOR NO KEY UPDATE
            """, on: connection)
    }
}
