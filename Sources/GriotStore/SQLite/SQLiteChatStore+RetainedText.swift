import Foundation
import GRDB

/// Deletion reaches every copy of a message's text. On a delete or an edit the old text moves
/// to `retainedText` (the one place it is kept, for moderation review), the turn snapshots that
/// copy it lose it (the question of the turn it asked, or the reply's text, events and
/// recording), a thread title copied from it is cleared, and a deleted message's row keeps no text. Reading a retained text is an admin's
/// act and is audited; it is purged with the message, or 30 days after an edit.
extension SQLiteChatStore {
    /// Moves `message`'s current text to `retainedText` and takes it out of the turn snapshots
    /// that copy it; called inside the delete or edit that makes the text old.
    /// `message` holds its text opened.
    func retainOldText(of message: MessageRecord, owner: String, reason: RetainedText.Reason, now: Date, _ db: Database) throws {
        if !message.content.isEmpty {
            var retained = RetainedText(messageID: message.id, threadID: message.threadID, userID: owner, role: message.role, reason: reason,
                                        version: message.version, content: message.content, keptAt: now,
                                        purgeAfter: RetainedText.retention.after(now))
            try retained.insert(sealedBy: cipher, db)
        }
        try redactTurnCopies(of: message.id, reason: reason, db)
        // A thread is named after its first question (`appendMessage`): a title copied from this
        // text goes too, and the next question names the thread. The title is sealed, so the
        // comparison is made on its opened text.
        if message.role == .user, let stored = try String.fetchOne(db, sql: "SELECT title FROM thread WHERE id = ?", arguments: [message.threadID]),
           !stored.isEmpty, try cipher.open(stored, .threadTitle, row: message.threadID, db: db) == String(message.content.prefix(80)) {
            try db.execute(sql: "UPDATE thread SET title = '' WHERE id = ?", arguments: [message.threadID])
        }
    }

    /// Takes a message's text out of the snapshots of the turns that hold it: the question of
    /// the turn it asked, and a reply's text, sent events and model recording. The snapshot keeps
    /// why (`redacted_question` / `redacted_reply`), so an operator sees that text was removed.
    ///
    /// The snapshot is sealed, so each is opened, changed by SQLite's JSON functions on the
    /// opened text (the same edit as on a plain database) and sealed again; nothing opened is
    /// written back.
    func redactTurnCopies(of messageID: String, reason: RetainedText.Reason, _ db: Database) throws {
        let questionEdit = "json_set(json_remove(?, '$.question'), '$.redacted_question', ?)"
        let replyEdit = "json_set(json_remove(?, '$.events', '$.recording'), '$.text', '', '$.citations', json('[]'), '$.redacted_reply', ?)"
        for (column, edit) in [("userMessageID", questionEdit), ("assistantMessageID", replyEdit)] {
            let rows = try Row.fetchAll(db, sql: """
                SELECT turn.id, turn.snapshot, thread.userID FROM turn JOIN thread ON thread.id = turn.threadID WHERE turn.\(column) = ?
                """, arguments: [messageID])
            for row in rows {
                let id: String = row["id"]
                let snapshot = try cipher.open(row["snapshot"] as String, .turnSnapshot, row: id, db: db)
                guard let redacted = try String.fetchOne(db, sql: "SELECT \(edit)", arguments: [snapshot, reason]) else { continue }
                try db.execute(sql: "UPDATE turn SET snapshot = ? WHERE id = ?",
                               arguments: [try cipher.seal(redacted, .turnSnapshot, row: id, scope: .user(row["userID"]), db: db), id])
            }
        }
    }

    /// The retained texts of a message, oldest first, for an admin's moderation review. Every
    /// read leaves a `retained_text.read` audit entry (who read whose text), even an empty one.
    public func readRetainedTexts(messageID: String, by actorID: String, now: Date = Date()) async throws -> [RetainedTextItem] {
        let context = AuditContext.current
        let cipher = self.cipher
        return try await writer.commit { db in
            let records = try RetainedText.filter(Column("messageID") == messageID).order(Column("id")).fetchAll(db).map { try $0.opened(cipher, db) }
            let threadID = try records.first?.threadID ?? String.fetchOne(db, sql: "SELECT threadID FROM message WHERE id = ?", arguments: [messageID])
            let owner = try records.first?.userID ?? threadID.flatMap { try Self.owner(of: $0, db) }
            var entry = AuditEntry(at: now, action: AuditAction.retainedTextRead, userID: owner, actorID: actorID, threadID: threadID, messageID: messageID,
                                   ipHash: context?.ipHash, details: AuditEntry.details(["texts": .int(records.count)]))
            try entry.insert(sealedBy: cipher, db)
            return records.map {
                RetainedTextItem(messageID: $0.messageID, reason: $0.reason.rawValue, version: $0.version, role: $0.role.rawValue,
                                 content: $0.content, keptAt: $0.keptAt, purgeAfter: $0.purgeAfter)
            }
        }
    }

    /// Removes retained texts whose time is up (those of edits; a deleted message's go with its
    /// purge) and, when some went, logs one `retained.purge` entry with the count; returns how many went.
    func purgeRetainedTexts(now: Date, _ db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM retainedText WHERE purgeAfter <= ?", arguments: [now])
        let count = db.changesCount
        if count > 0 {
            var entry = AuditEntry(at: now, action: .retainedTextPurge,
                                   details: AuditEntry.details(["count": .int(count), "before": .string(now.ISO8601Format())]))
            try entry.insert(sealedBy: cipher, db)
        }
        return count
    }
}
