import Foundation
import GRDB

/// Threads, messages, turns, courses and profiles, in the same SQLite file as the stories.
///
/// ```swift
/// let chats = try ChatStore(writer: storyStore.writer)
/// let thread = try chats.createThread(assistant: "griot", userID: "u-ruth")
/// let question = try chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?")
/// ```
public final class ChatStore: Sendable {
    public let writer: any DatabaseWriter

    public init(writer: any DatabaseWriter) throws {
        self.writer = writer
        try Schema.migrator.migrate(writer)
    }

    // MARK: Threads

    public func createThread(assistant: String, userID: String, courseID: String? = nil, title: String = "", id: String = UUID().uuidString.lowercased(),
                             now: Date = Date()) throws -> ThreadRecord {
        let thread = ThreadRecord(id: id, assistant: assistant, userID: userID, courseID: courseID, title: title,
                                  createdAt: now, updatedAt: now, lastReadMessageID: nil, deletedAt: nil)
        try writer.write { db in try thread.insert(db) }
        return thread
    }

    /// The thread of this user for this course, created on first use (once, even when two
    /// requests race: the unique index decides and the loser reads the winner's thread).
    public func courseThread(assistant: String, userID: String, courseID: String, title: String = "") throws -> ThreadRecord {
        let find = { (db: Database) in
            try ThreadRecord.filter(Column("userID") == userID && Column("courseID") == courseID
                                    && Column("assistant") == assistant && Column("deletedAt") == nil).fetchOne(db)
        }
        if let thread = try writer.read(find) { return thread }
        do {
            return try createThread(assistant: assistant, userID: userID, courseID: courseID, title: title)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            guard let thread = try writer.read(find) else { throw error }
            return thread
        }
    }

    /// A thread that has not been deleted.
    public func thread(id: String) throws -> ThreadRecord? {
        try writer.read { db in try ThreadRecord.filter(key: id).filter(Column("deletedAt") == nil).fetchOne(db) }
    }

    public func threads(userID: String, assistant: String) throws -> [ThreadRecord] {
        try writer.read { db in
            try ThreadRecord.filter(Column("userID") == userID && Column("assistant") == assistant && Column("deletedAt") == nil)
                .order(Column("updatedAt").desc).fetchAll(db)
        }
    }

    // MARK: Messages

    /// Appends a message at the end of its thread and touches the thread.
    @discardableResult
    public func appendMessage(threadID: String, role: MessageRecord.Role, content: String, status: MessageStatus = .complete,
                              turnID: String? = nil, now: Date = Date()) throws -> MessageRecord {
        try writer.write { db in
            let last = try Int.fetchOne(db, sql: "SELECT MAX(sequence) FROM message WHERE threadID = ?", arguments: [threadID]) ?? 0
            let message = MessageRecord(id: UUID().uuidString.lowercased(), threadID: threadID, sequence: last + 1, role: role,
                                        content: content, status: status, turnID: turnID, error: nil,
                                        createdAt: now, updatedAt: now, deletedAt: nil)
            try message.insert(db)
            try db.execute(sql: "UPDATE thread SET updatedAt = ? WHERE id = ?", arguments: [now, threadID])
            if role == .user {
                // The first question names the thread, as a chat list shows it.
                try db.execute(sql: "UPDATE thread SET title = ? WHERE id = ? AND title = ''",
                               arguments: [String(content.prefix(80)), threadID])
            }
            return message
        }
    }

    /// Records a reply's text and where it ended.
    public func finishMessage(id: String, content: String, status: MessageStatus, error: String? = nil, now: Date = Date()) throws {
        try writer.write { db in
            try db.execute(sql: "UPDATE message SET content = ?, status = ?, error = ?, updatedAt = ? WHERE id = ?",
                           arguments: [content, status, error, now, id])
        }
    }

    public func message(id: String) throws -> MessageRecord? {
        try writer.read { db in try MessageRecord.fetchOne(db, key: id) }
    }

    /// The last `limit` messages of a thread that are not deleted, oldest first.
    public func recentMessages(threadID: String, limit: Int, beforeSequence: Int? = nil) throws -> [MessageRecord] {
        try writer.read { db in
            var request = MessageRecord.filter(Column("threadID") == threadID && Column("deletedAt") == nil)
            if let beforeSequence { request = request.filter(Column("sequence") < beforeSequence) }
            return try request.order(Column("sequence").desc).limit(limit).fetchAll(db).reversed()
        }
    }

    // MARK: Turns

    public func saveTurn(_ turn: TurnRecord) throws {
        try writer.write { db in try turn.save(db) }
    }

    public func turn(id: String) throws -> TurnRecord? {
        try writer.read { db in try TurnRecord.fetchOne(db, key: id) }
    }

    public func turns(threadID: String) throws -> [TurnRecord] {
        try writer.read { db in try TurnRecord.filter(Column("threadID") == threadID).order(Column("startedAt")).fetchAll(db) }
    }

    // MARK: Courses and profiles

    public func saveCourse(_ course: CourseRecord) throws {
        try writer.write { db in try course.save(db) }
    }

    public func course(id: String) throws -> CourseRecord? {
        try writer.read { db in try CourseRecord.fetchOne(db, key: id) }
    }

    public func saveProfile(_ profile: ProfileRecord) throws {
        try writer.write { db in try profile.save(db) }
    }

    public func profile(userID: String) throws -> ProfileRecord? {
        try writer.read { db in try ProfileRecord.fetchOne(db, key: userID) }
    }
}
