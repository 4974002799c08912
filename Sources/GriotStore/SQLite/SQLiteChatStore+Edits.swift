import Foundation
import GRDB

/// Editing a message, made safe against lost updates by its ETag.
extension SQLiteChatStore {
    /// Replaces a message's text when `ifMatch` names its current version (`*` for any), and
    /// logs `message.update`. Returns the message as stored; its `etag` is the new ETag.
    ///
    /// Throws `notFound` for a missing, deleted or archived message (or one in a deleted
    /// thread), `conflict` (with the current ETag) when `ifMatch` is stale or the reply is still
    /// being written, and `invalid` for empty text.
    ///
    /// `moderation` is the input moderation's verdict on the new text (JSON) and `decision` what
    /// it decided (`allow`, `route`): the `message.update` entry carries them, and a
    /// `message.moderate` entry is written in the same transaction, as for a sent message. The
    /// HTTP service reaches this only through `ChatEngine.editMessage`, which moderates first.
    @discardableResult
    public func editMessage(id: String, content: String, ifMatch: String, by actorID: String, now: Date = Date(),
                            moderation: String? = nil, decision: String? = nil) async throws -> MessageRecord {
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ChatStoreError(.invalid, "A message needs some text; send the new text, or delete the message instead.")
        }
        if let reason = StorableText.unstorableReason(content, what: "message") { throw ChatStoreError(.invalid, reason) }
        let context = AuditContext.current
        let cipher = self.cipher
        return try await writer.commit { db in
            guard var message = try MessageRecord.filter(key: id).filter(Column("deletedAt") == nil).fetchOne(db)?.opened(cipher, db),
                  let owner = try String.fetchOne(db, sql: "SELECT userID FROM thread WHERE id = ? AND deletedAt IS NULL", arguments: [message.threadID])
            else { throw ChatStoreError.messageNotFound(id) }
            guard MessageETag.matches(ifMatch, id: id, version: message.version) else { throw ChatStoreError.stale(message, sent: ifMatch) }
            guard message.status != .streaming else {
                throw ChatStoreError(.conflict, "Message \(id) is a reply still being written; wait for it to finish, then edit it.",
                                     currentETag: message.etag)
            }
            // The text before the edit is kept only for moderation review, and leaves every copy.
            try self.retainOldText(of: message, owner: owner, reason: .edited, now: now, db)
            message.content = content
            message.updatedAt = now
            message.version += 1
            var stored = message
            stored.content = try cipher.seal(content, .messageContent, row: id, scope: .user(owner), db: db)
            try stored.update(db, columns: ["content", "updatedAt", "version"])
            var entry = AuditEntry(at: now, action: .messageUpdate, userID: owner, actorID: actorID, threadID: message.threadID, messageID: id,
                                   ipHash: context?.ipHash, moderation: moderation,
                                   details: AuditEntry.details(["reason": "edit", "version": .int(message.version)]))
            try entry.insert(sealedBy: cipher, db)
            if let moderation, let decision {
                var moderated = AuditEntry(at: now, action: .messageModerate, userID: owner, actorID: actorID, threadID: message.threadID,
                                           messageID: id, ipHash: context?.ipHash, moderation: moderation,
                                           details: AuditEntry.details(["decision": .string(decision), "input": "text", "write": "edit"]))
                try moderated.insert(sealedBy: cipher, db)
            }
            return message
        }
    }
}
