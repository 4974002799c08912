import Foundation
import GriotStore
import PostgresNIO

/// Deletion reaches every copy of a message's text. On a delete or an edit the old text moves
/// to `retainedtext` (the one place it is kept, for moderation review), the turn snapshots that
/// copy it lose it (the question of the turn it asked, or the reply's text, events and
/// recording), a thread title copied from it is cleared, and a deleted message's row keeps no
/// text. Reading a retained text is an admin's act and is audited; it is purged with the
/// message, or 30 days after an edit.
extension PostgresChatStore {
    /// Moves `message`'s current text to `retainedtext` and takes it out of the turn snapshots
    /// that copy it; called inside the delete or edit that makes the text old.
    /// `message` is as read and opened (its text plain).
    func retainOldText(of message: MessageRecord, owner: String, reason: RetainedText.Reason, now: Date,
                       on connection: PostgresConnection) async throws {
        if !message.content.isEmpty {
            // Its id first: the sealed text names its row.
            let id = try await Self.nextIDs(of: "retainedtext", count: 1, on: connection)[0]
            let sealed = try await keys.seal(message.content, .retainedText, row: String(id), scope: .user(owner))
            try await Self.rows("""
                INSERT INTO retainedtext (id, messageid, threadid, userid, role, reason, version, content, keptat, purgeafter)
                VALUES (\(id), \(message.id), \(message.threadID), \(owner), \(message.role.rawValue), \(reason.rawValue), \(message.version),
                        \(sealed), \(now.millisecondRounded), \(RetainedText.retention.after(now).millisecondRounded))
                """, on: connection)
        }
        try await redactTurnCopies(of: message.id, reason: reason, on: connection)
        // A thread is named after its first question: a title copied from this text goes too,
        // and the next question names the thread. The title is sealed, so it is compared here.
        if message.role == .user,
           let stored = try await Self.scalar(String.self, Self.rows("SELECT title FROM thread WHERE id = \(message.threadID)", on: connection)),
           !stored.isEmpty,
           try await keys.open(stored, .threadTitle, row: message.threadID) == String(message.content.prefix(ThreadRecord.titleLength)) {
            try await Self.rows("UPDATE thread SET title = '' WHERE id = \(message.threadID)", on: connection)
        }
    }

    /// Takes a message's text out of the snapshots of the turns that hold it: the question of
    /// the turn it asked, and a reply's text, sent events and model recording. The snapshot keeps
    /// why (`redacted_question` / `redacted_reply`), so an operator sees that text was removed.
    /// The snapshot is JSON in a text column, as in SQLite, sealed: it is opened, edited here and
    /// sealed again (its keys written back sorted, not as the pipeline wrote them).
    func redactTurnCopies(of messageID: String, reason: RetainedText.Reason, on connection: PostgresConnection) async throws {
        let turns = try await Self.rows("""
            SELECT turn.id, turn.usermessageid, turn.snapshot, thread.userid FROM turn JOIN thread ON thread.id = turn.threadid
            WHERE turn.usermessageid = \(messageID) OR turn.assistantmessageid = \(messageID) ORDER BY turn.id
            """, on: connection)
        for row in turns {
            let (id, question, stored, owner) = try row.decode((String, String, String, String).self)
            guard let data = try await keys.open(stored, .turnSnapshot, row: id).data(using: .utf8),
                  var snapshot = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { continue }
            if question == messageID {
                snapshot["question"] = nil
                snapshot["redacted_question"] = reason.rawValue
            } else {
                snapshot["events"] = nil
                snapshot["recording"] = nil
                snapshot["text"] = ""
                snapshot["citations"] = [Any]()
                snapshot["redacted_reply"] = reason.rawValue
            }
            let text = String(decoding: try JSONSerialization.data(withJSONObject: snapshot, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
            let sealed = try await keys.seal(text, .turnSnapshot, row: id, scope: .user(owner))
            try await Self.rows("UPDATE turn SET snapshot = \(sealed) WHERE id = \(id)", on: connection)
        }
    }

    /// The retained texts of a message, oldest first, for an admin's moderation review. Every
    /// read leaves a `retained_text.read` audit entry (who read whose text), even an empty one.
    public func readRetainedTexts(messageID: String, by actorID: String, now: Date = Date()) async throws -> [RetainedTextItem] {
        let context = AuditContext.current
        try await prepareKeys(ofMessages: [messageID])
        return try await transaction { connection in
            let records = try await opened(Self.rows("SELECT * FROM retainedtext WHERE messageid = \(messageID) ORDER BY id", on: connection)
                .map { try RetainedText($0) }, opened)
            // Whose text it is: as kept, or (none kept) from the message and its thread.
            let threadID = try await records.isEmpty
                ? Self.scalar(String.self, Self.rows("SELECT threadid FROM message WHERE id = \(messageID)", on: connection))
                : records.first?.threadID
            let owner = try await records.isEmpty ? threadID.asyncFlatMap { try await Self.owner(of: $0, on: connection) } : records.first?.userID
            try await insert(AuditEntry(at: now, action: AuditAction.retainedTextRead, userID: owner, actorID: actorID, threadID: threadID,
                                             messageID: messageID, ipHash: context?.ipHash, details: AuditEntry.details(["texts": .int(records.count)])),
                                  on: connection)
            return records.map {
                RetainedTextItem(messageID: $0.messageID, reason: $0.reason.rawValue, version: $0.version, role: $0.role.rawValue,
                                 content: $0.content, keptAt: $0.keptAt, purgeAfter: $0.purgeAfter)
            }
        }
    }

    /// Removes retained texts whose time is up (those of edits; a deleted message's go with its
    /// purge); returns how many went.
    static func purgeRetainedTexts(now: Date, on connection: PostgresConnection) async throws -> Int {
        try await rows("DELETE FROM retainedtext WHERE purgeafter <= \(now.millisecondRounded) RETURNING id", on: connection).count
    }
}
