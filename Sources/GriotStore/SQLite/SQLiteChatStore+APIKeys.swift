import Foundation
import GRDB

extension SQLiteChatStore {
    @discardableResult
    public func createAPIKey(_ key: APIKey) async throws -> APIKey {
        try await writer.commit { db in try key.insert(db) }
        return key
    }

    /// Every key, newest first (revoked and expired ones included, for the admins' list).
    public func apiKeys() async throws -> [APIKey] {
        try await writer.read { db in try APIKey.order(Column("createdAt").desc, Column("id")).fetchAll(db) }
    }

    public func apiKey(id: String) async throws -> APIKey? {
        try await writer.read { db in try APIKey.fetchOne(db, key: id) }
    }

    /// Ends a key now (a revoked key stays listed, with when).
    @discardableResult
    public func revokeAPIKey(id: String, at now: Date = Date()) async throws -> APIKey? {
        try await writer.commit { db in
            guard var key = try APIKey.fetchOne(db, key: id) else { return nil }
            if key.revokedAt == nil {
                key.revokedAt = now
                try key.update(db)
            }
            return key
        }
    }

    /// One conditional update: a use recorded less than `interval` ago wins, so two requests of
    /// a busy key write once.
    @discardableResult
    public func recordAPIKeyUse(id: String, at now: Date = Date(), interval: TimeInterval = APIKey.lastUseInterval) async throws -> Bool {
        try await writer.commit { db in
            try db.execute(sql: "UPDATE apiKey SET lastUsedAt = ? WHERE id = ? AND (lastUsedAt IS NULL OR lastUsedAt <= ?)",
                           arguments: [now, id, now.addingTimeInterval(-interval)])
            return db.changesCount > 0
        }
    }
}
