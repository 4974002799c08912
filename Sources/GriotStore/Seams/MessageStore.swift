import Foundation

/// Messages in the order they were sent, with their versions (ETags), edits, soft deletes,
/// moderation records and the replies a stopped service left unfinished.
public protocol MessageStore: Sendable {
    /// Appends a message at the end of its thread, touches the thread and logs `message.create`.
    func appendMessage(threadID: String, role: MessageRecord.Role, content: String, status: MessageStatus, turnID: String?, now: Date,
                       moderation: String?, audit: AuditContext?, inputMode: String?) async throws -> MessageRecord
    /// Records a reply's text and where it ended; leaving `streaming` logs `message.update`.
    func finishMessage(id: String, content: String, status: MessageStatus, error: String?, now: Date, moderation: String?) async throws
    /// The text so far of several streaming replies, in one commit.
    func saveStreamingTexts(_ texts: [(id: String, content: String)], now: Date) async throws
    func message(id: String, includingDeleted: Bool) async throws -> MessageRecord?
    /// The last `limit` messages of a thread that are not deleted, oldest first.
    func recentMessages(threadID: String, limit: Int, beforeSequence: Int?) async throws -> [MessageRecord]
    /// Up to `limit` messages before sequence `before` (the newest when nil), oldest first.
    func messages(threadID: String, before: Int?, limit: Int) async throws -> MessagePage
    /// A message's place in its thread, live, deleted (not purged) or archived.
    func sequence(ofMessage messageID: String, inThread threadID: String) async throws -> Int?
    /// The text of every message the user wrote in the thread that is not deleted, oldest first.
    func userTexts(threadID: String) async throws -> [String]
    /// Replaces a message's text when `ifMatch` names its current version (`*` for any).
    func editMessage(id: String, content: String, ifMatch: String, by actorID: String, now: Date,
                     moderation: String?, decision: String?) async throws -> MessageRecord
    /// Hides a message (its text moves to the retained texts); false when there is none.
    func softDeleteMessage(id: String, by actorID: String, ifMatch: String?, now: Date) async throws -> Bool
    func softDeleteThread(id: String, by actorID: String, now: Date) async throws -> Bool
    /// Replies left `streaming` and untouched for `staleAfter` seconds become `interrupted`.
    func markInterruptedReplies(staleAfter: Double, now: Date) async throws -> Int
    /// These replies become `interrupted` when they ended `stopped` or are still `streaming`.
    func markInterrupted(replyIDs: [String], now: Date) async throws -> Int
    /// How a message arrived (`text`, `voice`).
    func inputMode(messageID: String) async throws -> String?
    /// The input moderation's verdict on a message, as an audit entry (and a warning when blocked).
    func recordModeration(messageID: String, moderation: String, decision: String, blocked: Bool, write: String, now: Date) async throws
}

extension MessageStore {
    @discardableResult
    public func appendMessage(threadID: String, role: MessageRecord.Role, content: String, status: MessageStatus = .complete,
                              turnID: String? = nil, now: Date = Date(), moderation: String? = nil, audit: AuditContext? = nil,
                              inputMode: String? = nil) async throws -> MessageRecord {
        try await appendMessage(threadID: threadID, role: role, content: content, status: status, turnID: turnID, now: now,
                                moderation: moderation, audit: audit, inputMode: inputMode)
    }

    public func finishMessage(id: String, content: String, status: MessageStatus, error: String? = nil, now: Date = Date(),
                              moderation: String? = nil) async throws {
        try await finishMessage(id: id, content: content, status: status, error: error, now: now, moderation: moderation)
    }

    public func saveStreamingTexts(_ texts: [(id: String, content: String)], now: Date = Date()) async throws {
        try await saveStreamingTexts(texts, now: now)
    }

    public func message(id: String, includingDeleted: Bool = false) async throws -> MessageRecord? {
        try await message(id: id, includingDeleted: includingDeleted)
    }

    public func recentMessages(threadID: String, limit: Int, beforeSequence: Int? = nil) async throws -> [MessageRecord] {
        try await recentMessages(threadID: threadID, limit: limit, beforeSequence: beforeSequence)
    }

    public func messages(threadID: String, before: Int? = nil, limit: Int = 50) async throws -> MessagePage {
        try await messages(threadID: threadID, before: before, limit: limit)
    }

    @discardableResult
    public func editMessage(id: String, content: String, ifMatch: String, by actorID: String, now: Date = Date(),
                            moderation: String? = nil, decision: String? = nil) async throws -> MessageRecord {
        try await editMessage(id: id, content: content, ifMatch: ifMatch, by: actorID, now: now, moderation: moderation, decision: decision)
    }

    @discardableResult
    public func softDeleteMessage(id: String, by actorID: String, ifMatch: String? = nil, now: Date = Date()) async throws -> Bool {
        try await softDeleteMessage(id: id, by: actorID, ifMatch: ifMatch, now: now)
    }

    @discardableResult
    public func softDeleteThread(id: String, by actorID: String, now: Date = Date()) async throws -> Bool {
        try await softDeleteThread(id: id, by: actorID, now: now)
    }

    @discardableResult
    public func markInterruptedReplies(staleAfter: Double, now: Date = Date()) async throws -> Int {
        try await markInterruptedReplies(staleAfter: staleAfter, now: now)
    }

    @discardableResult
    public func markInterrupted(replyIDs: [String], now: Date = Date()) async throws -> Int {
        try await markInterrupted(replyIDs: replyIDs, now: now)
    }

    public func recordModeration(messageID: String, moderation: String, decision: String, blocked: Bool, write: String = "send",
                                 now: Date = Date()) async throws {
        try await recordModeration(messageID: messageID, moderation: moderation, decision: decision, blocked: blocked, write: write, now: now)
    }
}
