import Foundation
import GRDB

/// The text of a deleted message, or a message's text before an edit, kept for moderation
/// review (the coaching standards' 30 days) in one place: the `retainedText` table. Nothing
/// else keeps it: the message row, the turn snapshots and everything made from them (operator
/// views, replays, exports) lose the text when the message is deleted or edited.
public struct RetainedText: Codable, Sendable, Hashable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "retainedText"

    /// Why the text was kept: the message was deleted, or edited (this was its text before).
    public enum Reason: String, Codable, Sendable, Hashable, DatabaseValueConvertible { case deleted, edited }

    public var id: Int64?
    public var messageID: String
    public var threadID: String
    /// The thread's owner (whose words these are, for a user's message).
    public var userID: String
    public var role: MessageRecord.Role
    public var reason: Reason
    /// The message's version whose text this was.
    public var version: Int
    public var content: String
    public var keptAt: Date
    /// When the retention job removes it (a deleted message's text goes with its purge).
    public var purgeAfter: Date

    /// How long a retained text is kept: 30 days, as long as a deleted message waits for its purge.
    public static let retention = DateComponents(day: 30)

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    public init(id: Int64? = nil, messageID: String, threadID: String, userID: String, role: MessageRecord.Role, reason: Reason, version: Int, content: String, keptAt: Date, purgeAfter: Date) {
        self.id = id
        self.messageID = messageID
        self.threadID = threadID
        self.userID = userID
        self.role = role
        self.reason = reason
        self.version = version
        self.content = content
        self.keptAt = keptAt
        self.purgeAfter = purgeAfter
    }
}

public struct RetainedTextItem: Encodable, Sendable {
    public var messageID: String
    public var reason: String
    public var version: Int
    public var role: String
    public var content: String
    public var keptAt: Date
    public var purgeAfter: Date

    public init(messageID: String, reason: String, version: Int, role: String, content: String, keptAt: Date, purgeAfter: Date) {
        self.messageID = messageID
        self.reason = reason
        self.version = version
        self.role = role
        self.content = content
        self.keptAt = keptAt
        self.purgeAfter = purgeAfter
    }
}

extension AuditAction {
    /// One entry per run of the retention job that removed retained texts, with the count.
    public static let retainedTextPurge: AuditAction = "retained.purge"
}
