import Foundation
import GRDB

/// A story owner's permission for operators to read the full text of their private and
/// family-only stories, for a while. Without one, operators see such stories only as masked
/// excerpts (see the README, "What operators may read"). The owner creates, lists and revokes
/// their grants; each read made under one is in the audit log on the owner.
public struct SupportGrant: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "supportGrant"
    /// The longest a grant may last.
    public static let longest: TimeInterval = 7 * 24 * 3600

    public var id: String
    public var ownerUserID: String
    /// JSON array of story ids; nil: all the owner's stories.
    var storyIDs: String?
    public var createdAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?

    public init(id: String = "sg_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20), ownerUserID: String,
                stories: [String]?, createdAt: Date, expiresAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.ownerUserID = ownerUserID
        // Ids are plain strings: encoding them cannot fail.
        self.storyIDs = stories.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }

    /// The stories it covers; nil: every story of the owner.
    public var stories: [String]? {
        storyIDs.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
    }

    public func isActive(at now: Date) -> Bool { revokedAt == nil && expiresAt > now }

    public func covers(storyID: String, owner: String?, at now: Date) -> Bool {
        isActive(at: now) && owner == ownerUserID && (stories?.contains(storyID) ?? true)
    }
}

extension AuditAction {
    /// An operator read a private or family-only story in a turn they reviewed (`details`:
    /// story, turn, `access` masked or granted, and the grant).
    public static let storyRead: AuditAction = "story.read"
    /// A story owner created or revoked a support grant.
    public static let supportGrantCreate: AuditAction = "support_grant.create"
    public static let supportGrantRevoke: AuditAction = "support_grant.revoke"
    /// An admin read the retained texts of a message (moderation review).
    public static let retainedTextRead: AuditAction = "retained_text.read"
}
