import Foundation
import GRDB

extension SQLiteChatStore {
    @discardableResult
    public func createSupportGrant(_ grant: SupportGrant) async throws -> SupportGrant {
        try await writer.commit { db in try grant.insert(db) }
        return grant
    }

    /// An owner's grants, newest first (expired and revoked ones included, for the owner to see).
    public func supportGrants(ownerUserID: String) async throws -> [SupportGrant] {
        try await writer.read { db in
            try SupportGrant.filter(Column("ownerUserID") == ownerUserID).order(Column("createdAt").desc, Column("id")).fetchAll(db)
        }
    }

    public func supportGrant(id: String) async throws -> SupportGrant? {
        try await writer.read { db in try SupportGrant.fetchOne(db, key: id) }
    }

    /// The grants in force at `now` from any of `owners`.
    public func activeSupportGrants(owners: Set<String>, at now: Date = Date()) async throws -> [SupportGrant] {
        guard !owners.isEmpty else { return [] }
        return try await writer.read { db in
            try SupportGrant.filter(owners.contains(Column("ownerUserID")) && Column("revokedAt") == nil && Column("expiresAt") > now)
                .order(Column("createdAt").desc).fetchAll(db)
        }
    }

    /// Ends a grant now (a revoked grant stays listed, with when).
    @discardableResult
    public func revokeSupportGrant(id: String, at now: Date = Date()) async throws -> SupportGrant? {
        try await writer.commit { db in
            guard var grant = try SupportGrant.fetchOne(db, key: id) else { return nil }
            if grant.revokedAt == nil {
                grant.revokedAt = now
                try grant.update(db)
            }
            return grant
        }
    }
}
