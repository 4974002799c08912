import Foundation

/// Story owners' time-limited permissions for operators to read their private stories in full.
public protocol SupportGrantStore: Sendable {
    @discardableResult
    func createSupportGrant(_ grant: SupportGrant) async throws -> SupportGrant
    /// An owner's grants, newest first (expired and revoked ones included).
    func supportGrants(ownerUserID: String) async throws -> [SupportGrant]
    func supportGrant(id: String) async throws -> SupportGrant?
    /// The grants in force at `now` from any of `owners`.
    func activeSupportGrants(owners: Set<String>, at now: Date) async throws -> [SupportGrant]
    /// Ends a grant now (a revoked grant stays listed, with when); nil when there is none.
    func revokeSupportGrant(id: String, at now: Date) async throws -> SupportGrant?
}

extension SupportGrantStore {
    public func activeSupportGrants(owners: Set<String>, at now: Date = Date()) async throws -> [SupportGrant] {
        try await activeSupportGrants(owners: owners, at: now)
    }

    @discardableResult
    public func revokeSupportGrant(id: String, at now: Date = Date()) async throws -> SupportGrant? {
        try await revokeSupportGrant(id: id, at: now)
    }
}
