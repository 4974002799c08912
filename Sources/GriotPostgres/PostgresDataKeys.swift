import Foundation
import GriotStore
import PostgresNIO

/// The PostgreSQL side of envelope encryption: data keys read from and written to `dataKey`,
/// shared by every node (a key one node makes, the others read when they meet its id).
struct PostgresDataKeys: Sendable {
    let database: PostgresDatabase
    let cipher: FieldCipher

    /// Seals `text` with the scope's data key (made when the scope has none). The identity when
    /// no master key is configured.
    func seal(_ text: String, _ field: SealedField, row: String, scope: KeyScope) async throws -> String {
        guard cipher.isEnabled, !text.isEmpty else { return text }
        return try cipher.seal(text, field, row: row, keyID: await keyID(scope: scope))
    }

    @_disfavoredOverload
    func seal(_ text: String?, _ field: SealedField, row: String, scope: KeyScope) async throws -> String? {
        guard let text else { return nil }
        let sealed: String = try await seal(text, field, row: row, scope: scope)
        return sealed
    }

    /// The text of a stored value, reading its data key when this node has not met it yet.
    func open(_ stored: String, _ field: SealedField, row: String) async throws -> String {
        do {
            return try cipher.open(stored, field, row: row)
        } catch CipherError.missingDataKey(let id) {
            guard let record = try await dataKey(id: id) else { throw CipherError.unknownDataKey(id, field: field, row: row) }
            try cipher.load(record)
            return try cipher.open(stored, field, row: row)
        }
    }

    @_disfavoredOverload
    func open(_ stored: String?, _ field: SealedField, row: String) async throws -> String? {
        guard let stored else { return nil }
        let text: String = try await open(stored, field, row: row)
        return text
    }

    /// The id of the scope's data key: as read in the last `FieldCipher.scopeTrust`, the
    /// database's, or a new one (two writers making one at once: the unique scope keeps the
    /// first, and both use it; the loser's key was never the scope's, so nothing is sealed with it).
    func keyID(scope: KeyScope) async throws -> String {
        if let id = cipher.cachedKeyID(scope: scope) { return id }
        if let record = try await dataKey(scope: scope) {
            try cipher.remember(record)
            return record.id
        }
        let made = try cipher.newDataKey(scope: scope)
        try await query("""
            INSERT INTO dataKey (id, scope, masterKeyID, wrapped, createdAt)
            VALUES (\(made.id), \(made.scope), \(made.masterKeyID), \(made.wrapped), \(made.createdAt)) ON CONFLICT (scope) DO NOTHING
            """)
        guard let stored = try await dataKey(scope: scope) else {
            throw PostgresDatabase.Failure("The data key of \(scope.name) was not stored; check that dataKey exists (migration v16).")
        }
        if stored.id != made.id { cipher.forget(scope: scope, keyIDs: [made.id]) }
        try cipher.remember(stored)
        return stored.id
    }

    /// Deletes a scope's data keys inside a transaction (an erasure): any copy of its
    /// ciphertext left in WAL, a dump or a backup can no longer be opened.
    func shred(scope: KeyScope, on connection: PostgresConnection) async throws {
        let rows = try await connection.query("DELETE FROM dataKey WHERE scope = \(scope.name) RETURNING id", logger: database.logger).collect()
        cipher.forget(scope: scope, keyIDs: try rows.map { try $0.decode(String.self) })
    }

    /// Fails before anything is served when the keyring cannot open this database's keys.
    func checkOpens() async throws {
        let rows = try await query("SELECT DISTINCT ON (masterKeyID) * FROM dataKey ORDER BY masterKeyID, id")
        try cipher.checkOpens(try rows.map(Self.record))
        if cipher.isEnabled, rows.isEmpty,
           try await query(PostgresQuery(unsafeSQL: FieldCipher.writtenInPlainText)).first?.decode(Bool.self) == true {
            throw CipherError.writtenInPlainText
        }
    }

    func dataKey(id: String) async throws -> DataKeyRecord? {
        try await query("SELECT * FROM dataKey WHERE id = \(id)").first.map(Self.record)
    }

    func dataKey(scope: KeyScope) async throws -> DataKeyRecord? {
        try await query("SELECT * FROM dataKey WHERE scope = \(scope.name)").first.map(Self.record)
    }

    @discardableResult
    func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await PostgresDatabase.carriedThrough { [database] in try await database.client.query(query, logger: database.logger).collect() }
    }

    static func record(_ row: PostgresRow) throws -> DataKeyRecord {
        let (id, scope, master, wrapped, created) = try row.decode((String, String, String, String, Date).self)
        return DataKeyRecord(id: id, scope: scope, masterKeyID: master, wrapped: wrapped, createdAt: created)
    }
}

extension PostgresChatStore {
    public func dataKeyCounts() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await rows("SELECT masterKeyID, COUNT(*) FROM dataKey GROUP BY masterKeyID") {
            let (id, count) = try row.decode((String, Int).self)
            counts[id] = count
        }
        return counts
    }

    public func dataKeys(notWrappedBy masterKeyID: String, after: String?, limit: Int) async throws -> [DataKeyRecord] {
        try await rows("SELECT * FROM dataKey WHERE masterKeyID <> \(masterKeyID) AND id > \(after ?? "") ORDER BY id LIMIT \(limit)")
            .map(PostgresDataKeys.record)
    }

    public func replaceWrapping(_ record: DataKeyRecord, previous: DataKeyRecord) async throws -> Bool {
        let rows = try await rows("""
            UPDATE dataKey SET masterKeyID = \(record.masterKeyID), wrapped = \(record.wrapped)
            WHERE id = \(record.id) AND masterKeyID = \(previous.masterKeyID) AND wrapped = \(previous.wrapped) RETURNING id
            """)
        return !rows.isEmpty
    }
}
