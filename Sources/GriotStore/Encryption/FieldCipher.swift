import Crypto
import Foundation

/// A data key as the database keeps it: its id (written beside every ciphertext it seals),
/// whose data it seals, and the key itself wrapped (AES-256-GCM) by a master key named here.
public struct DataKeyRecord: Sendable, Equatable {
    public let id: String
    public let scope: String
    public let masterKeyID: String
    /// base64 of nonce, ciphertext and tag.
    public let wrapped: String
    public let createdAt: Date

    public init(id: String, scope: String, masterKeyID: String, wrapped: String, createdAt: Date) {
        self.id = id
        self.scope = scope
        self.masterKeyID = masterKeyID
        self.wrapped = wrapped
        self.createdAt = createdAt
    }
}

/// Envelope encryption of the stored text: AES-256-GCM under a data key per user (and per
/// non-public story), each data key wrapped by a master key (`MasterKeyring`). A sealed value
/// is text, `gx1:<data key id>:<base64 of nonce, ciphertext and tag>`, so it fits the columns
/// both databases already have; its authenticated data is the field's name and the row's id.
/// With no keyring the cipher is the identity (`FieldCipher.plaintext`), and a sealed value it
/// meets is an error, never returned as it is.
///
/// The stores keep the data keys (`dataKey` table) and call `remember` for the ones they
/// read; the cipher keeps the unwrapped keys in memory. Nothing decrypted is written back.
///
/// ```swift
/// let cipher = FieldCipher(keyring: try MasterKeyring.configured())
/// let key = try cipher.newDataKey(scope: .user("u-ruth"))      // insert `key` into dataKey
/// let stored = try cipher.seal("Who was Aunt Lil?", .messageContent, row: messageID, keyID: key.id)
/// let text = try cipher.open(stored, .messageContent, row: messageID)
/// ```
public final class FieldCipher: @unchecked Sendable {
    public static let prefix = "gx1:"

    public let keyring: MasterKeyring?
    private let lock = NSLock()
    private var keys: [String: SymmetricKey] = [:]
    /// The data key id of a scope as last read from the database, and when.
    private var scopes: [String: (id: String, readAt: ContinuousClock.Instant)] = [:]
    /// How long a scope's key id is trusted without reading the database again: another node
    /// may have shredded it (an erasure) or made it first.
    public static let scopeTrust: Duration = .seconds(30)

    public init(keyring: MasterKeyring?) {
        self.keyring = keyring
    }

    /// The identity: text stored as it is (no master key configured).
    public static var plaintext: FieldCipher { FieldCipher(keyring: nil) }

    public var isEnabled: Bool { keyring != nil }

    // MARK: Data keys

    /// The id of a scope's data key as read from the database in the last `scopeTrust`.
    public func cachedKeyID(scope: KeyScope) -> String? {
        lock.withLock {
            guard let cached = scopes[scope.name], ContinuousClock.now - cached.readAt < Self.scopeTrust else { return nil }
            return cached.id
        }
    }

    public func hasKey(id: String) -> Bool {
        lock.withLock { keys[id] != nil }
    }

    /// A new data key for a scope, wrapped by the active master key. The cipher holds the key
    /// but does not take it as the scope's: the caller stores the record and reads the scope's
    /// key back (`remember`), since another writer may have stored one first, or the
    /// transaction that inserts it may roll back.
    public func newDataKey(scope: KeyScope, now: Date = Date()) throws -> DataKeyRecord {
        guard let keyring else { throw CipherError.noKeyring }
        let key = SymmetricKey(size: .bits256)
        let id = "dk-" + (0..<10).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let record = try Self.wrap(key, id: id, scope: scope.name, under: keyring.active, now: now)
        lock.withLock { keys[id] = key }
        return record
    }

    /// Unwraps a stored data key and keeps it, failing with the master key's id when the
    /// keyring does not hold that key or holds a different key under that id.
    /// The record is the scope's key as the database holds it now (committed).
    public func remember(_ record: DataKeyRecord) throws {
        let key = try lock.withLock({ keys[record.id] }) ?? unwrap(record)
        lock.withLock {
            keys[record.id] = key
            scopes[record.scope] = (record.id, ContinuousClock.now)
        }
    }

    /// Unwraps a stored data key and keeps it by id only (a key read inside a transaction that
    /// may yet roll back, or a value's key met while reading).
    public func load(_ record: DataKeyRecord) throws {
        guard !hasKey(id: record.id) else { return }
        let key = try unwrap(record)
        lock.withLock { keys[record.id] = key }
    }

    /// Drops a scope's keys from memory (its data keys were deleted: an erasure).
    public func forget(scope: KeyScope, keyIDs: [String]) {
        lock.withLock {
            scopes[scope.name] = nil
            for id in keyIDs { keys[id] = nil }
        }
    }

    /// The data key under the keyring's active master key (rotation), the same key inside.
    public func rewrap(_ record: DataKeyRecord) throws -> DataKeyRecord {
        guard let keyring else { throw CipherError.noKeyring }
        let key = try unwrap(record)
        return try Self.wrap(key, id: record.id, scope: record.scope, under: keyring.active, now: record.createdAt)
    }

    func unwrap(_ record: DataKeyRecord) throws -> SymmetricKey {
        guard let keyring else { throw CipherError.encryptedWithoutKeyring(masterKeyIDs: [record.masterKeyID]) }
        guard let master = keyring.key(id: record.masterKeyID) else {
            throw CipherError.missingMasterKey(record.masterKeyID, source: keyring.source)
        }
        guard let combined = Data(base64Encoded: record.wrapped),
              let box = try? AES.GCM.SealedBox(combined: combined),
              let bytes = try? AES.GCM.open(box, using: master.key, authenticating: Self.wrapAAD(id: record.id, scope: record.scope))
        else { throw CipherError.wrongMasterKey(record.masterKeyID, source: keyring.source) }
        return SymmetricKey(data: bytes)
    }

    static func wrap(_ key: SymmetricKey, id: String, scope: String, under master: MasterKeyring.Key, now: Date) throws -> DataKeyRecord {
        let box = try key.withUnsafeBytes { bytes in
            try AES.GCM.seal(Data(bytes), using: master.key, authenticating: wrapAAD(id: id, scope: scope))
        }
        return DataKeyRecord(id: id, scope: scope, masterKeyID: master.id, wrapped: box.combined!.base64EncodedString(), createdAt: now)
    }

    static func wrapAAD(id: String, scope: String) -> Data { Data("griot-data-key:\(id):\(scope)".utf8) }

    // MARK: Values

    /// The text sealed with the data key `keyID` (which the cipher must hold). Empty text stays
    /// empty (it says nothing), and so does everything when no keyring is configured.
    public func seal(_ text: String, _ field: SealedField, row: String, keyID: String) throws -> String {
        guard isEnabled, !text.isEmpty else { return text }
        guard let key = lock.withLock({ keys[keyID] }) else { throw CipherError.missingDataKey(keyID) }
        let box = try AES.GCM.seal(Data(text.utf8), using: key, authenticating: Self.aad(field, row: row))
        return Self.prefix + keyID + ":" + box.combined!.base64EncodedString()
    }

    @_disfavoredOverload
    public func seal(_ text: String?, _ field: SealedField, row: String, keyID: String) throws -> String? {
        try text.map { try seal($0, field, row: row, keyID: keyID) }
    }

    /// The text of a stored value. Throws `CipherError.missingDataKey` when the value's data
    /// key is not in memory yet (the store reads it and calls `remember`, then asks again).
    public func open(_ stored: String, _ field: SealedField, row: String) throws -> String {
        guard stored.hasPrefix(Self.prefix) else {
            if stored.isEmpty || !isEnabled { return stored }
            throw CipherError.notSealed(field: field, row: row)
        }
        guard isEnabled else { throw CipherError.encryptedWithoutKeyring(masterKeyIDs: []) }
        guard let (id, payload) = Self.split(stored) else { throw CipherError.tampered(field: field, row: row, keyID: "?") }
        let keyID = String(id)
        guard let key = lock.withLock({ keys[keyID] }) else { throw CipherError.missingDataKey(keyID) }
        guard let combined = Data(base64Encoded: String(payload)),
              let box = try? AES.GCM.SealedBox(combined: combined),
              let bytes = try? AES.GCM.open(box, using: key, authenticating: Self.aad(field, row: row)),
              let text = String(data: bytes, encoding: .utf8)
        else { throw CipherError.tampered(field: field, row: row, keyID: keyID) }
        return text
    }

    @_disfavoredOverload
    public func open(_ stored: String?, _ field: SealedField, row: String) throws -> String? {
        try stored.map { try open($0, field, row: row) }
    }

    /// The data key id a stored value names (nil for text stored as it is).
    public static func dataKeyID(in stored: String) -> String? {
        split(stored).map { String($0.0) }
    }

    static func split(_ stored: String) -> (Substring, Substring)? {
        guard stored.hasPrefix(prefix) else { return nil }
        let rest = stored.dropFirst(prefix.count)
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        return (rest[..<colon], rest[rest.index(after: colon)...])
    }

    static func aad(_ field: SealedField, row: String) -> Data { Data("griot:\(field.rawValue):\(row)".utf8) }

    // MARK: Opening a database

    /// Checks, before a node serves, that the keyring opens the database's data keys: every
    /// master key they name is present and is the key it was (one data key each is unwrapped).
    /// `inUse` is one data key per master key id in use.
    public func checkOpens(_ inUse: [DataKeyRecord]) throws {
        guard let keyring else {
            if !inUse.isEmpty { throw CipherError.encryptedWithoutKeyring(masterKeyIDs: inUse.map(\.masterKeyID).sorted()) }
            return
        }
        for record in inUse {
            guard keyring.key(id: record.masterKeyID) != nil else { throw CipherError.missingMasterKey(record.masterKeyID, source: keyring.source) }
            try load(record)
        }
    }
}

/// Why a value or a database could not be opened, naming the key in question.
public enum CipherError: Error, CustomStringConvertible, LocalizedError, Equatable {
    case noKeyring
    case missingDataKey(String)
    case unknownDataKey(String, field: SealedField, row: String)
    case tampered(field: SealedField, row: String, keyID: String)
    case notSealed(field: SealedField, row: String)
    case encryptedWithoutKeyring(masterKeyIDs: [String])
    case missingMasterKey(String, source: String)
    case wrongMasterKey(String, source: String)
    case writtenInPlainText

    public var description: String {
        switch self {
        case .noKeyring:
            return "no master key is configured; set GRIOT_MASTER_KEY_FILE (or GRIOT_MASTER_KEY_COMMAND)"
        case .missingDataKey(let id):
            return "the data key \(id) is not loaded"
        case .unknownDataKey(let id, let field, let row):
            return "\(field.rawValue) of row \(row) is sealed with the data key \(id), which this database does not hold (it was erased with its user, or the row was copied from another database)"
        case .tampered(let field, let row, let keyID):
            return "\(field.rawValue) of row \(row) does not open with its data key \(keyID): the ciphertext was changed, or moved from another row or column"
        case .notSealed(let field, let row):
            return "\(field.rawValue) of row \(row) holds plain text in an encrypted database: it was written around Griot; refusing to read it as text"
        case .encryptedWithoutKeyring(let ids):
            let named = ids.isEmpty ? "a master key" : "master key " + ids.joined(separator: ", ")
            return "this database is encrypted (its data keys are wrapped by \(named)) and no master key is configured; set GRIOT_MASTER_KEY_FILE to a file holding that key"
        case .missingMasterKey(let id, let source):
            return "this database's data keys are wrapped by master key \(id), which \(source) does not hold; add that key's line to the key file (after the active key) and start again"
        case .writtenInPlainText:
            return "a master key is configured, but this database already holds conversations or non-public stories written without encryption, which Griot does not encrypt in place; start the encrypted service on a new database (and ingest the stories again), or unset GRIOT_MASTER_KEY_FILE to keep this one as it is"
        case .wrongMasterKey(let id, let source):
            return "the master key \(id) in \(source) does not open this database's data keys: it is a different key under the same id; restore the key that was used"
        }
    }

    public var errorDescription: String? { description }
}
