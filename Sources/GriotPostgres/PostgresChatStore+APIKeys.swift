import Foundation
import GriotStore
import PostgresNIO

extension PostgresChatStore {
    @discardableResult
    public func createAPIKey(_ key: APIKey) async throws -> APIKey {
        try await rows("""
            INSERT INTO apikey (id, name, role, familyids, courseids, secrethash, requestsperminute, createdat, expiresat, revokedat, lastusedat,
                                region)
            VALUES (\(key.id), \(key.name), \(key.role), \(Self.json(key.families)), \(Self.json(key.courses)), \(key.secretHash),
                    \(key.requestsPerMinute), \(key.createdAt.millisecondRounded), \(key.expiresAt.map(\.millisecondRounded)),
                    \(key.revokedAt.map(\.millisecondRounded)), \(key.lastUsedAt.map(\.millisecondRounded)), \(key.region))
            """)
        return key
    }

    /// Every key, newest first (revoked and expired ones included, for the admins' list).
    public func apiKeys() async throws -> [APIKey] {
        // Ids compare byte by byte, as in SQLite.
        try await rows(#"SELECT * FROM apikey ORDER BY createdat DESC, id COLLATE "C""#).map { try APIKey($0) }
    }

    public func apiKey(id: String) async throws -> APIKey? {
        try await rows("SELECT * FROM apikey WHERE id = \(id)").first.map { try APIKey($0) }
    }

    /// Ends a key now (a revoked key stays listed, with when).
    @discardableResult
    public func revokeAPIKey(id: String, at now: Date = Date()) async throws -> APIKey? {
        try await rows("""
            UPDATE apikey SET revokedat = COALESCE(revokedat, \(now.millisecondRounded)) WHERE id = \(id) RETURNING *
            """).first.map { try APIKey($0) }
    }

    /// One conditional update: a use recorded less than `interval` ago (by this node or
    /// another) wins, so two requests of a busy key write once.
    @discardableResult
    public func recordAPIKeyUse(id: String, at now: Date = Date(), interval: TimeInterval = APIKey.lastUseInterval) async throws -> Bool {
        let at = now.millisecondRounded
        return try await !rows("""
            UPDATE apikey SET lastusedat = \(at) WHERE id = \(id) AND (lastusedat IS NULL OR lastusedat <= \(at.addingTimeInterval(-interval)))
            RETURNING id
            """).isEmpty
    }

    /// A list of ids as `APIKey` stores it: a JSON array, the same text SQLite holds.
    private static func json(_ ids: [String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(ids)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
}

extension APIKey {
    /// An `apikey` row (`SELECT *`). A list that does not read back is an error, never a key
    /// without its families or courses.
    init(_ row: PostgresRow) throws {
        let columns = RowColumns(row)
        let decode = { (text: String) throws -> [String] in try JSONDecoder().decode([String].self, from: Data(text.utf8)) }
        let requestsPerMinute: Int? = try columns["requestsperminute"]
        let region: String? = try columns["region"]
        try self.init(id: columns["id"], name: columns["name"], role: columns["role"], families: decode(columns["familyids"]),
                      courses: decode(columns["courseids"]), secretHash: columns["secrethash"], requestsPerMinute: requestsPerMinute,
                      createdAt: columns.date("createdat"), expiresAt: columns.date("expiresat"), revokedAt: columns.date("revokedat"),
                      lastUsedAt: columns.date("lastusedat"), region: region)
    }
}
