import Foundation

/// What the scheduled jobs and a user's erasure do to stored conversations: purging soft
/// deletes, archiving old messages, erasing a user, and the admins' audited reads of retained text.
public protocol RetentionStore: Sendable {
    /// Removes for good what was soft-deleted more than `age` ago.
    func purgeDeleted(olderThan age: DateComponents, now: Date) async throws -> RetentionCounts
    /// Moves messages older than `age` to the archive, `batchSize` per transaction.
    func archiveMessages(olderThan age: DateComponents, now: Date, batchSize: Int) async throws -> Int
    func archivedMessages(threadID: String) async throws -> [ArchivedMessageRecord]
    /// Everything about one user, in one transaction (see `SQLiteChatStore.purgeUser`).
    func purgeUser(userID: String, by actorID: String?, now: Date) async throws -> RetentionCounts
    /// A message's retained texts for an admin; every read is audited.
    func readRetainedTexts(messageID: String, by actorID: String, now: Date) async throws -> [RetainedTextItem]
    /// What is past its limit and not yet removed, at `now` (30 days after a soft delete, 18
    /// months for live messages, two years for verdicts, `purgeAfter` for retained texts).
    func retentionDue(now: Date) async throws -> RetentionDue
}

extension RetentionStore {
    @discardableResult
    public func purgeDeleted(olderThan age: DateComponents = DateComponents(day: 30), now: Date = Date()) async throws -> RetentionCounts {
        try await purgeDeleted(olderThan: age, now: now)
    }

    @discardableResult
    public func archiveMessages(olderThan age: DateComponents = DateComponents(month: 18), now: Date = Date(),
                                batchSize: Int = 5_000) async throws -> Int {
        try await archiveMessages(olderThan: age, now: now, batchSize: batchSize)
    }

    @discardableResult
    public func purgeUser(userID: String, by actorID: String? = nil, now: Date = Date()) async throws -> RetentionCounts {
        try await purgeUser(userID: userID, by: actorID, now: now)
    }

    public func readRetainedTexts(messageID: String, by actorID: String, now: Date = Date()) async throws -> [RetainedTextItem] {
        try await readRetainedTexts(messageID: messageID, by: actorID, now: now)
    }
}
