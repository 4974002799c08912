import Foundation
import GRDB

/// The conversations' records as stored: their text sealed with their owner's data key on the
/// way in and opened on the way out, so that everything above the store sees plain text. Each
/// value is bound to its field and row (see `SealedField`), so it opens only where it was written.
extension ThreadRecord {
    func sealed(_ cipher: FieldCipher, _ db: Database) throws -> ThreadRecord {
        var thread = self
        thread.title = try cipher.seal(title, .threadTitle, row: id, scope: .user(userID), db: db)
        return thread
    }

    func opened(_ cipher: FieldCipher, _ db: Database) throws -> ThreadRecord {
        var thread = self
        thread.title = try cipher.open(title, .threadTitle, row: id, db: db)
        return thread
    }
}

extension MessageRecord {
    func opened(_ cipher: FieldCipher, _ db: Database) throws -> MessageRecord {
        var message = self
        message.content = try cipher.open(content, .messageContent, row: id, db: db)
        message.error = try cipher.open(error, .messageError, row: id, db: db)
        return message
    }
}

extension ArchivedMessageRecord {
    /// An archived message keeps its id and field names, so its ciphertext opens as it did in `message`.
    func opened(_ cipher: FieldCipher, _ db: Database) throws -> ArchivedMessageRecord {
        var message = self
        message.content = try cipher.open(content, .messageContent, row: id, db: db)
        message.error = try cipher.open(error, .messageError, row: id, db: db)
        return message
    }
}

extension TurnRecord {
    func sealed(_ cipher: FieldCipher, owner: String, _ db: Database) throws -> TurnRecord {
        var turn = self
        turn.snapshot = try cipher.seal(snapshot, .turnSnapshot, row: id, scope: .user(owner), db: db)
        return turn
    }

    func opened(_ cipher: FieldCipher, _ db: Database) throws -> TurnRecord {
        var turn = self
        turn.snapshot = try cipher.open(snapshot, .turnSnapshot, row: id, db: db)
        return turn
    }
}

extension AuditEntry {
    /// Whose key seals the entry: the user's whose data it is about, else the service's.
    var keyScope: KeyScope { userID.map(KeyScope.user) ?? .service }

    /// Inserts the entry with `details` and `moderation` sealed for the id the insert gives it:
    /// the row goes in with them empty, and the sealed values follow in the same transaction.
    /// The entry keeps its plain text in memory. `scope` overrides whose key seals it.
    mutating func insert(sealedBy cipher: FieldCipher, scope: KeyScope? = nil, _ db: Database) throws {
        guard cipher.isEnabled, !(details ?? "").isEmpty || !(moderation ?? "").isEmpty else { return try insert(db) }
        let plain = self
        details = details.map { _ in "" }
        moderation = moderation.map { _ in "" }
        try insert(db)
        guard let id else { return }
        let row = String(id), scope = scope ?? keyScope
        try db.execute(sql: "UPDATE auditEntry SET details = ?, moderation = ? WHERE id = ?",
                       arguments: [try cipher.seal(plain.details, .auditDetails, row: row, scope: scope, db: db),
                                   try cipher.seal(plain.moderation, .auditModeration, row: row, scope: scope, db: db), id])
        details = plain.details
        moderation = plain.moderation
    }

    func opened(_ cipher: FieldCipher, _ db: Database) throws -> AuditEntry {
        guard let id else { return self }
        var entry = self
        entry.details = try cipher.open(details, .auditDetails, row: String(id), db: db)
        entry.moderation = try cipher.open(moderation, .auditModeration, row: String(id), db: db)
        return entry
    }
}

extension RetainedText {
    /// Inserts the text sealed for the id the insert gives it (the row goes in with "" first).
    mutating func insert(sealedBy cipher: FieldCipher, _ db: Database) throws {
        guard cipher.isEnabled, !content.isEmpty else { return try insert(db) }
        let plain = content
        content = ""
        try insert(db)
        guard let id else { return }
        try db.execute(sql: "UPDATE retainedText SET content = ? WHERE id = ?",
                       arguments: [try cipher.seal(plain, .retainedText, row: String(id), scope: .user(userID), db: db), id])
        content = plain
    }

    func opened(_ cipher: FieldCipher, _ db: Database) throws -> RetainedText {
        guard let id else { return self }
        var retained = self
        retained.content = try cipher.open(content, .retainedText, row: String(id), db: db)
        return retained
    }
}

extension SafetyVerdictRecord {
    /// Inserts the verdict with `reason` and `details` sealed for the id the insert gives it.
    mutating func insert(sealedBy cipher: FieldCipher, _ db: Database) throws {
        guard cipher.isEnabled, !reason.isEmpty || !(details ?? "").isEmpty else { return try insert(db) }
        let plain = self
        reason = ""
        details = details.map { _ in "" }
        try insert(db)
        guard let id else { return }
        let row = String(id)
        try db.execute(sql: "UPDATE safetyVerdict SET reason = ?, details = ? WHERE id = ?",
                       arguments: [try cipher.seal(plain.reason, .safetyReason, row: row, scope: .user(userID), db: db),
                                   try cipher.seal(plain.details, .safetyDetails, row: row, scope: .user(userID), db: db), id])
        reason = plain.reason
        details = plain.details
    }

    func opened(_ cipher: FieldCipher, _ db: Database) throws -> SafetyVerdictRecord {
        guard let id else { return self }
        var verdict = self
        verdict.reason = try cipher.open(reason, .safetyReason, row: String(id), db: db)
        verdict.details = try cipher.open(details, .safetyDetails, row: String(id), db: db)
        return verdict
    }
}

extension ReviewTicket {
    func sealed(_ cipher: FieldCipher, _ db: Database) throws -> ReviewTicket {
        var ticket = self
        ticket.summary = try cipher.seal(summary, .reviewSummary, row: id, scope: .user(userID), db: db)
        ticket.note = try cipher.seal(note, .reviewNote, row: id, scope: .user(userID), db: db)
        ticket.resolution = try cipher.seal(resolution, .reviewResolution, row: id, scope: .user(userID), db: db)
        return ticket
    }

    func opened(_ cipher: FieldCipher, _ db: Database) throws -> ReviewTicket {
        var ticket = self
        ticket.summary = try cipher.open(summary, .reviewSummary, row: id, db: db)
        ticket.note = try cipher.open(note, .reviewNote, row: id, db: db)
        ticket.resolution = try cipher.open(resolution, .reviewResolution, row: id, db: db)
        return ticket
    }
}

extension FieldCipher {
    /// The row id of a stream event's sealed data.
    static func streamEventRow(turnID: String, number: Int) -> String { "\(turnID)#\(number)" }
}

extension SQLiteChatStore {
    /// The owners of the threads of these messages, by message id (one query for a batch).
    static func owners(ofMessages ids: [String], _ db: Database) throws -> [String: String] {
        let list = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
        var owners: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT message.id, thread.userID FROM message JOIN thread ON thread.id = message.threadID
            WHERE message.id IN (SELECT value FROM json_each(?))
            """, arguments: [list]) {
            owners[row["id"]] = row["userID"]
        }
        return owners
    }

    /// The owner of the thread of one message.
    static func owner(ofMessage id: String, _ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT thread.userID FROM message JOIN thread ON thread.id = message.threadID WHERE message.id = ?",
                            arguments: [id])
    }
}
