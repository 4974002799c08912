import Foundation

/// Threads (one conversation of one user with one assistant), their read markers, and the
/// course and profile a coaching thread's context reads.
public protocol ThreadStore: Sendable {
    func createThread(assistant: String, userID: String, courseID: String?, title: String, id: String, now: Date) async throws -> ThreadRecord
    /// The thread of this user for this course, created on first use (once, even when two
    /// requests race: the unique index decides and the loser reads the winner's thread).
    func courseThread(assistant: String, userID: String, courseID: String, title: String) async throws -> ThreadRecord
    /// Names an untitled thread after a message (allowed text only: see `MessageGate`).
    func nameThread(id: String, from text: String) async throws
    /// A thread that has not been deleted.
    func thread(id: String) async throws -> ThreadRecord?
    func threads(userID: String, assistant: String) async throws -> [ThreadRecord]
    /// The user's threads with one assistant, most recently active first, with message counts.
    func threadSummaries(userID: String, assistant: String) async throws -> [ThreadSummary]
    /// Whether any thread, deleted or not, has this id.
    func threadExists(id: String) async throws -> Bool
    /// Hides a thread and its messages at once; false when there is no such thread.
    func deleteThread(id: String, now: Date) async throws -> Bool
    /// Replies after the read marker (all of them when nothing was read).
    func unreadCount(threadID: String) async throws -> Int
    /// Moves the read marker forward to `messageID` (never back).
    func markRead(threadID: String, messageID: String) async throws

    func saveCourse(_ course: CourseRecord) async throws
    func course(id: String) async throws -> CourseRecord?
    func saveProfile(_ profile: ProfileRecord) async throws
    func profile(userID: String) async throws -> ProfileRecord?
}

extension ThreadStore {
    @discardableResult
    public func createThread(assistant: String, userID: String, courseID: String? = nil, title: String = "",
                             id: String = UUID().uuidString.lowercased(), now: Date = Date()) async throws -> ThreadRecord {
        try await createThread(assistant: assistant, userID: userID, courseID: courseID, title: title, id: id, now: now)
    }

    public func courseThread(assistant: String, userID: String, courseID: String, title: String = "") async throws -> ThreadRecord {
        try await courseThread(assistant: assistant, userID: userID, courseID: courseID, title: title)
    }

    @discardableResult
    public func deleteThread(id: String, now: Date = Date()) async throws -> Bool {
        try await deleteThread(id: id, now: now)
    }
}
