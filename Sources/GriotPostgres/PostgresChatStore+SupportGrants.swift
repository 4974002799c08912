import Foundation
import GriotStore
import PostgresNIO

extension PostgresChatStore {
    @discardableResult
    public func createSupportGrant(_ grant: SupportGrant) async throws -> SupportGrant {
        // `storyIDs` (the JSON list as stored) is internal to GriotStore: it is `stories` encoded
        // again, as `SupportGrant.init` encodes it, which gives back the same text.
        try await rows("""
            INSERT INTO supportgrant (id, owneruserid, storyids, createdat, expiresat, revokedat)
            VALUES (\(grant.id), \(grant.ownerUserID), \(Self.storyIDs(of: grant)), \(grant.createdAt.millisecondRounded),
                    \(grant.expiresAt.millisecondRounded), \(grant.revokedAt.map(\.millisecondRounded)))
            """)
        return grant
    }

    /// An owner's grants, newest first (expired and revoked ones included, for the owner to see).
    public func supportGrants(ownerUserID: String) async throws -> [SupportGrant] {
        // Ids compare byte by byte, as in SQLite.
        try await rows("""
            SELECT * FROM supportgrant WHERE owneruserid = \(ownerUserID) ORDER BY createdat DESC, id COLLATE "C"
            """).map { try SupportGrant($0) }
    }

    public func supportGrant(id: String) async throws -> SupportGrant? {
        try await rows("SELECT * FROM supportgrant WHERE id = \(id)").first.map { try SupportGrant($0) }
    }

    /// The grants in force at `now` from any of `owners`.
    public func activeSupportGrants(owners: Set<String>, at now: Date = Date()) async throws -> [SupportGrant] {
        guard !owners.isEmpty else { return [] }
        return try await rows("""
            SELECT * FROM supportgrant WHERE owneruserid = ANY(\(Array(owners))) AND revokedat IS NULL AND expiresat > \(now.millisecondRounded)
            ORDER BY createdat DESC
            """).map { try SupportGrant($0) }
    }

    /// Ends a grant now (a revoked grant stays listed, with when).
    @discardableResult
    public func revokeSupportGrant(id: String, at now: Date = Date()) async throws -> SupportGrant? {
        try await transaction { connection in
            guard var grant = try await Self.rows("SELECT * FROM supportgrant WHERE id = \(id) FOR UPDATE", on: connection)
                    .first.map({ try SupportGrant($0) })
            else { return nil }
            if grant.revokedAt == nil {
                grant.revokedAt = now
                try await Self.rows("UPDATE supportgrant SET revokedat = \(now.millisecondRounded) WHERE id = \(id)", on: connection)
            }
            return grant
        }
    }

    /// The grant's story list as `SupportGrant` stores it: a JSON array, or nil for all stories.
    private static func storyIDs(of grant: SupportGrant) -> String? {
        grant.stories.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
    }
}
