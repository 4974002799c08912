import Foundation

/// Which audit entries an admin asks for: every field set narrows the result; entries come
/// newest first, `limit` at a time from `offset`.
///
/// ```swift
/// let page = try chats.auditEntries(AuditFilter(userID: "u-ruth", actions: [.messageDelete], limit: 50))
/// ```
public struct AuditFilter: Sendable, Hashable {
    public var userID: String?
    public var actorID: String?
    public var threadID: String?
    public var messageID: String?
    /// Any of these actions; empty means all.
    public var actions: [AuditAction]
    /// From this moment on (inclusive).
    public var since: Date?
    /// Before this moment (exclusive).
    public var until: Date?
    public var limit: Int
    public var offset: Int

    public init(userID: String? = nil, actorID: String? = nil, threadID: String? = nil, messageID: String? = nil, actions: [AuditAction] = [],
                since: Date? = nil, until: Date? = nil, limit: Int = 100, offset: Int = 0) {
        self.userID = userID
        self.actorID = actorID
        self.threadID = threadID
        self.messageID = messageID
        self.actions = actions
        self.since = since
        self.until = until
        self.limit = limit
        self.offset = offset
    }
}
