import Foundation
import GRDB

/// The SQLite side of envelope encryption: data keys read from and written to `dataKey` in the
/// transaction that seals or opens a value.
extension FieldCipher {
    /// Seals `text` with the scope's data key, made and inserted in this (write) transaction
    /// when the scope has none yet. The identity when no master key is configured.
    func seal(_ text: String, _ field: SealedField, row: String, scope: KeyScope, db: Database) throws -> String {
        guard isEnabled, !text.isEmpty else { return text }
        return try seal(text, field, row: row, keyID: keyID(scope: scope, db: db))
    }

    @_disfavoredOverload
    func seal(_ text: String?, _ field: SealedField, row: String, scope: KeyScope, db: Database) throws -> String? {
        try text.map { try seal($0, field, row: row, scope: scope, db: db) }
    }

    /// The text of a stored value, reading its data key from `dataKey` when this process has
    /// not met it yet (another process wrote it).
    func open(_ stored: String, _ field: SealedField, row: String, db: Database) throws -> String {
        do {
            return try open(stored, field, row: row)
        } catch CipherError.missingDataKey(let id) {
            guard let record = try Self.dataKey(id: id, db: db) else { throw CipherError.unknownDataKey(id, field: field, row: row) }
            try load(record)
            return try open(stored, field, row: row)
        }
    }

    @_disfavoredOverload
    func open(_ stored: String?, _ field: SealedField, row: String, db: Database) throws -> String? {
        try stored.map { try open($0, field, row: row, db: db) }
    }

    /// The id of the scope's data key: the database's, or a new one inserted in this write
    /// transaction. Read each time (one lookup by a unique index): a key made in a transaction
    /// that rolls back, or shredded by another process, is never taken from memory.
    func keyID(scope: KeyScope, db: Database) throws -> String {
        if let row = try Row.fetchOne(db, sql: "SELECT * FROM dataKey WHERE scope = ?", arguments: [scope.name]) {
            let record = Self.record(row)
            try load(record)
            return record.id
        }
        let record = try newDataKey(scope: scope)
        try db.execute(sql: "INSERT INTO dataKey (id, scope, masterKeyID, wrapped, createdAt) VALUES (?, ?, ?, ?, ?)",
                       arguments: [record.id, record.scope, record.masterKeyID, record.wrapped, record.createdAt])
        return record.id
    }

    /// Deletes a scope's data keys (an erasure): whatever copy of its ciphertext is left, in a
    /// backup, a WAL frame or a free page, can no longer be opened.
    func shred(scope: KeyScope, db: Database) throws {
        let ids = try String.fetchAll(db, sql: "SELECT id FROM dataKey WHERE scope = ?", arguments: [scope.name])
        try db.execute(sql: "DELETE FROM dataKey WHERE scope = ?", arguments: [scope.name])
        forget(scope: scope, keyIDs: ids)
    }

    /// Fails before anything is served when the keyring cannot open this database's keys.
    func checkOpens(db: Database) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM dataKey WHERE id IN (SELECT MIN(id) FROM dataKey GROUP BY masterKeyID)")
        try checkOpens(rows.map(Self.record))
        if isEnabled, rows.isEmpty, try Bool.fetchOne(db, sql: Self.writtenInPlainText) == true {
            throw CipherError.writtenInPlainText
        }
    }

    /// Whether a database without data keys holds what a master key would have sealed.
    public static let writtenInPlainText = """
        SELECT EXISTS (SELECT 1 FROM thread) OR EXISTS (SELECT 1 FROM auditEntry) OR EXISTS (SELECT 1 FROM story WHERE privacy <> 'public') OR EXISTS (SELECT 1 FROM child)
        """

    static func dataKey(id: String, db: Database) throws -> DataKeyRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM dataKey WHERE id = ?", arguments: [id]).map(record)
    }

    static func record(_ row: Row) -> DataKeyRecord {
        DataKeyRecord(id: row["id"], scope: row["scope"], masterKeyID: row["masterKeyID"], wrapped: row["wrapped"], createdAt: row["createdAt"])
    }
}

extension SQLiteChatStore {
    public func dataKeyCounts() async throws -> [String: Int] {
        try await writer.read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT masterKeyID, COUNT(*) AS n FROM dataKey GROUP BY masterKeyID") {
                counts[row["masterKeyID"]] = row["n"]
            }
            return counts
        }
    }

    public func dataKeys(notWrappedBy masterKeyID: String, after: String?, limit: Int) async throws -> [DataKeyRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM dataKey WHERE masterKeyID <> ? AND id > ? ORDER BY id LIMIT ?",
                             arguments: [masterKeyID, after ?? "", limit]).map(FieldCipher.record)
        }
    }

    public func replaceWrapping(_ record: DataKeyRecord, previous: DataKeyRecord) async throws -> Bool {
        try await writer.commit { db in
            try db.execute(sql: "UPDATE dataKey SET masterKeyID = ?, wrapped = ? WHERE id = ? AND masterKeyID = ? AND wrapped = ?",
                           arguments: [record.masterKeyID, record.wrapped, record.id, previous.masterKeyID, previous.wrapped])
            return db.changesCount > 0
        }
    }
}
