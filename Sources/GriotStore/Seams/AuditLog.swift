import Foundation

/// Who did what to which message, when and from where. The store writes an entry with every
/// change to a message; admins read it; a scheduled job trims it.
public protocol AuditLog: Sendable {
    /// Adds an entry; the request's `AuditContext.current` fills a missing actor or IP hash.
    @discardableResult
    func recordAudit(_ entry: AuditEntry) async throws -> AuditEntry
    /// The entries matching `filter`, newest first.
    func auditEntries(_ filter: AuditFilter) async throws -> [AuditEntry]
    /// Deletes the entries older than `age`, logs that it did, and says how many went.
    func purgeAudit(olderThan age: DateComponents, now: Date) async throws -> Int
}

extension AuditLog {
    public func auditEntries(_ filter: AuditFilter = AuditFilter()) async throws -> [AuditEntry] {
        try await auditEntries(filter)
    }

    @discardableResult
    public func purgeAudit(olderThan age: DateComponents, now: Date = Date()) async throws -> Int {
        try await purgeAudit(olderThan: age, now: now)
    }
}
