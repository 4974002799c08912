import Foundation
import GRDB

/// One conversation of one user with one assistant.
public struct ThreadRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    /// Characters of the first allowed message a thread's title keeps.
    public static let titleLength = 80

    public static let databaseTableName = "thread"
    public var id: String
    public var assistant: String
    public var userID: String
    public var courseID: String?
    public var title: String
    public var createdAt: Date
    public var updatedAt: Date
    public var lastReadMessageID: String?
    public var deletedAt: Date?

    public init(id: String, assistant: String, userID: String, courseID: String?, title: String, createdAt: Date, updatedAt: Date, lastReadMessageID: String?, deletedAt: Date?) {
        self.id = id
        self.assistant = assistant
        self.userID = userID
        self.courseID = courseID
        self.title = title
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastReadMessageID = lastReadMessageID
        self.deletedAt = deletedAt
    }
}

/// Where a message stands. A reply is written as `streaming` before the model is called and
/// ends as complete, stopped (the user pressed stop), failed (the provider broke off) or
/// interrupted (the service itself stopped while writing it).
public enum MessageStatus: String, Codable, Sendable, Hashable, CaseIterable, DatabaseValueConvertible {
    case complete, streaming, stopped, failed, blocked, interrupted
}

public struct MessageRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "message"
    public enum Role: String, Codable, Sendable, Hashable, DatabaseValueConvertible { case user, assistant }

    public var id: String
    public var threadID: String
    /// The message's place in its thread, from 1.
    public var sequence: Int
    public var role: Role
    public var content: String
    public var status: MessageStatus
    public var turnID: String?
    public var error: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var deletedAt: Date?
    /// Goes up by one with every change of the text (an edit, or a reply being written), so
    /// the ETag of what a client saw goes stale when the message changes.
    public var version: Int

    public init(id: String, threadID: String, sequence: Int, role: Role, content: String, status: MessageStatus, turnID: String?, error: String?, createdAt: Date, updatedAt: Date, deletedAt: Date?, version: Int) {
        self.id = id
        self.threadID = threadID
        self.sequence = sequence
        self.role = role
        self.content = content
        self.status = status
        self.turnID = turnID
        self.error = error
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.version = version
    }
}

/// A message older than the archive age, moved out of `message` by `archiveMessages`: no chat
/// read shows it any more, but a user's export still includes it (`archivedMessages(threadID:)`).
public struct ArchivedMessageRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "archivedMessage"

    public var id: String
    public var threadID: String
    public var sequence: Int
    public var role: MessageRecord.Role
    public var content: String
    public var status: MessageStatus
    public var turnID: String?
    public var error: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var version: Int
    public var archivedAt: Date

    public init(id: String, threadID: String, sequence: Int, role: MessageRecord.Role, content: String, status: MessageStatus, turnID: String?, error: String?, createdAt: Date, updatedAt: Date, version: Int, archivedAt: Date) {
        self.id = id
        self.threadID = threadID
        self.sequence = sequence
        self.role = role
        self.content = content
        self.status = status
        self.turnID = turnID
        self.error = error
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.archivedAt = archivedAt
    }
}

/// What produced one reply. `snapshot` is JSON written by the chat pipeline.
public struct TurnRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "turn"
    public var id: String
    public var threadID: String
    public var userMessageID: String
    public var assistantMessageID: String?
    public var assistant: String
    public var promptVersion: Int
    public var promptHash: String
    public var provider: String
    public var model: String
    public var status: MessageStatus
    public var startedAt: Date
    public var finishedAt: Date?
    public var snapshot: String

    public init(id: String, threadID: String, userMessageID: String, assistantMessageID: String?, assistant: String, promptVersion: Int,
                promptHash: String, provider: String, model: String, status: MessageStatus, startedAt: Date, finishedAt: Date?, snapshot: String) {
        self.id = id
        self.threadID = threadID
        self.userMessageID = userMessageID
        self.assistantMessageID = assistantMessageID
        self.assistant = assistant
        self.promptVersion = promptVersion
        self.promptHash = promptHash
        self.provider = provider
        self.model = model
        self.status = status
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.snapshot = snapshot
    }
}

/// A course: its title and summary (course metadata in the context) and the coach's custom instructions.
public struct CourseRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "course"
    public var id: String
    public var title: String
    public var summary: String
    public var customInstructions: String
    public var updatedAt: Date

    public init(id: String, title: String, summary: String = "", customInstructions: String = "", updatedAt: Date = Date()) {
        self.id = id
        self.title = title
        self.summary = summary
        self.customInstructions = customInstructions
        self.updatedAt = updatedAt
    }
}

/// What a user wrote about themselves.
public struct ProfileRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "profile"
    public var userID: String
    public var displayName: String?
    public var bio: String
    public var updatedAt: Date

    public init(userID: String, displayName: String? = nil, bio: String = "", updatedAt: Date = Date()) {
        self.userID = userID
        self.displayName = displayName
        self.bio = bio
        self.updatedAt = updatedAt
    }
}

/// A thread with its number of visible messages, as a session list shows it.
public struct ThreadSummary: Sendable, Hashable {
    public var thread: ThreadRecord
    public var messageCount: Int

    public init(thread: ThreadRecord, messageCount: Int) {
        self.thread = thread
        self.messageCount = messageCount
    }
}
