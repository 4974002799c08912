import Foundation
import GRDB

/// What an audit entry records. An open set: the safety stages and the HTTP layer add their own
/// (`AuditAction("export.create")`) without changing this file.
public struct AuditAction: RawRepresentable, Codable, Sendable, Hashable, ExpressibleByStringLiteral, DatabaseValueConvertible,
                           CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }

    public static let messageCreate: AuditAction = "message.create"
    /// A reply finished, or a user edited a message (`details.reason` says which).
    public static let messageUpdate: AuditAction = "message.update"
    public static let messageDelete: AuditAction = "message.delete"
    public static let messagePurge: AuditAction = "message.purge"
    /// One entry per run of the archive job, with the count.
    public static let messageArchive: AuditAction = "message.archive"
    public static let threadDelete: AuditAction = "thread.delete"
    public static let threadPurge: AuditAction = "thread.purge"
    public static let userPurge: AuditAction = "user.purge"
    public static let auditPurge: AuditAction = "audit.purge"
    /// A coach or admin exported a thread (`details.format`: json or pdf).
    public static let threadExport: AuditAction = "thread.export"
    /// The input moderation of a user's message (`moderation` holds the scores and decision).
    public static let messageModerate: AuditAction = "message.moderate"
    /// An operator replayed a turn or thread (`details`: turns, prompt version, index, cassette, model).
    public static let turnReplay: AuditAction = "turn.replay"
    /// The retention job removed safety verdicts older than two years.
    public static let verdictPurge: AuditAction = "verdict.purge"
}

/// One line of the audit log: who (`actorID`) did what (`action`) to whose data (`userID`),
/// which thread and message, when, and from where (`ipHash`, a salted hash made by the HTTP
/// layer; the store never sees an address). `moderation` is the safety stages' verdict as
/// JSON; `details` is JSON too (a status, a version, counts), and never a message's text.
public struct AuditEntry: Codable, Sendable, Hashable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "auditEntry"

    public var id: Int64?
    public var at: Date
    public var action: AuditAction
    /// Whose data this is (the thread's owner); nil for jobs that touch many users.
    public var userID: String?
    /// Who acted: the user, a coach or an admin; nil for the assistant and scheduled jobs.
    public var actorID: String?
    public var threadID: String?
    public var messageID: String?
    public var ipHash: String?
    public var moderation: String?
    public var details: String?

    public init(id: Int64? = nil, at: Date = Date(), action: AuditAction, userID: String? = nil, actorID: String? = nil, threadID: String? = nil,
                messageID: String? = nil, ipHash: String? = nil, moderation: String? = nil, details: String? = nil) {
        self.id = id
        self.at = at
        self.action = action
        self.userID = userID
        self.actorID = actorID
        self.threadID = threadID
        self.messageID = messageID
        self.ipHash = ipHash
        self.moderation = moderation
        self.details = details
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// A value in `details`: the log holds counts, statuses and versions, never free text.
    public enum DetailValue: Encodable, Sendable, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
        case int(Int), string(String)

        public init(integerLiteral value: Int) { self = .int(value) }
        public init(stringLiteral value: String) { self = .string(value) }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .int(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            }
        }
    }

    /// `details` as JSON with sorted keys.
    public static func details(_ values: [String: DetailValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(values) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
