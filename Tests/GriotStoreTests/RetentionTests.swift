import Foundation
import Testing
@testable import GriotStore

@Suite("Soft delete, purge and archive")
struct RetentionTests {
    @Test("A deleted message disappears at once from every chat read, and stays for an admin until purged")
    func softDeleteHidesAtOnce() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let first = try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        try await exchange(chats, threadID: thread.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: t0 + 60)
        #expect(try await chats.unreadCount(threadID: thread.id) == 2)

        #expect(try await chats.softDeleteMessage(id: first.reply.id, by: "u-ruth", now: t0 + 120))
        #expect(try await !chats.softDeleteMessage(id: first.reply.id, by: "u-ruth", now: t0 + 130))
        #expect(try await chats.recentMessages(threadID: thread.id, limit: 10).map(\.id).contains(first.reply.id) == false)
        #expect(try await chats.messages(threadID: thread.id).messages.count == 3)
        #expect(try await chats.message(id: first.reply.id) == nil)
        #expect(try await chats.message(id: first.reply.id, includingDeleted: true)?.deletedAt == t0 + 120)
        #expect(try await chats.unreadCount(threadID: thread.id) == 1)
        await #expect(throws: ChatStoreError.self) { try await chats.markRead(threadID: thread.id, messageID: first.reply.id) }
        // The turn's snapshot holds the reply's text, so it hides with it.
        let turnID = try #require(first.reply.turnID)
        #expect(try await chats.turn(id: turnID) == nil)
        #expect(try await chats.turns(threadID: thread.id).count == 1)
        #expect(try await chats.turn(id: turnID, includingDeleted: true) != nil)
        let missing = await #expect(throws: ChatStoreError.self) { try await chats.softDeleteMessage(id: "no-such-message", by: "u-ruth") }
        #expect(missing?.kind == .notFound)
    }

    @Test("Deleted messages are purged 30 days after deletion, not a day before, with the snapshot of a purged reply")
    func purgeAfterThirtyDays() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let kept = try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        let gone = try await exchange(chats, threadID: thread.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: t0 + 60)
        try await chats.softDeleteMessage(id: gone.reply.id, by: "u-ruth", now: t0 + days(1))

        #expect(try await chats.purgeDeleted(now: t0 + days(30)) == RetentionCounts())
        #expect(try await chats.message(id: gone.reply.id, includingDeleted: true) != nil)

        let counts = try await chats.purgeDeleted(now: t0 + days(31))
        #expect(counts == RetentionCounts(messages: 1, turns: 1))
        #expect(try await chats.message(id: gone.reply.id, includingDeleted: true) == nil)
        #expect(try await chats.turn(id: try #require(gone.reply.turnID)) == nil)
        #expect(try await chats.turn(id: try #require(kept.reply.turnID)) != nil)
        #expect(try await chats.messages(threadID: thread.id).messages.map(\.id) == [kept.question.id, kept.reply.id, gone.question.id])
        let purge = try #require(try await chats.auditEntries(AuditFilter(actions: [.messagePurge])).first)
        #expect(purge.messageID == gone.reply.id)
        #expect(purge.userID == "u-ruth")
        #expect(try await chats.purgeDeleted(now: t0 + days(60)) == RetentionCounts())
    }

    @Test("A read marker on a purged message moves to the message before it, so unread replies stay unread")
    func readMarkerSurvivesPurge() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let first = try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        try await chats.markRead(threadID: thread.id, messageID: first.reply.id)
        try await exchange(chats, threadID: thread.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: t0 + 60)
        try await chats.softDeleteMessage(id: first.reply.id, by: "u-ruth", now: t0 + 120)
        try await chats.purgeDeleted(now: t0 + days(40))
        #expect(try await chats.thread(id: thread.id)?.lastReadMessageID == first.question.id)
        #expect(try await chats.unreadCount(threadID: thread.id) == 1)
    }

    @Test("A deleted thread hides with all its messages at once and is purged whole after 30 days")
    func threadDeleteAndPurge() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let other = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        try await exchange(chats, threadID: other.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: t0)
        #expect(try await chats.softDeleteThread(id: thread.id, by: "u-ruth", now: t0 + 60))
        #expect(try await chats.thread(id: thread.id) == nil)
        #expect(try await chats.threads(userID: "u-ruth", assistant: "griot").map(\.id) == [other.id])
        #expect(try await chats.recentMessages(threadID: thread.id, limit: 10).isEmpty)

        #expect(try await chats.purgeDeleted(now: t0 + days(29)) == RetentionCounts())
        let counts = try await chats.purgeDeleted(now: t0 + days(31))
        #expect(counts == RetentionCounts(threads: 1, messages: 2, turns: 1))
        #expect(try count(chats, "message", where: "threadID = ?", [thread.id]) == 0)
        #expect(try await chats.messages(threadID: other.id).messages.count == 2)
        #expect(try await chats.auditEntries(AuditFilter(actions: [.threadPurge])).first?.threadID == thread.id)
    }

    @Test("Messages older than 18 months move to the archive: gone from the chat, still there for the export")
    func archiveAfterEighteenMonths() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let old = try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        let recent = try await exchange(chats, threadID: thread.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: t0 + days(60))
        try await chats.markRead(threadID: thread.id, messageID: old.reply.id)

        // 18 calendar months after t0 (2025-06-15) is 2026-12-15: a day short of it, nothing moves.
        #expect(try await chats.archiveMessages(now: t0 + days(547)) == 0)
        #expect(try await chats.archiveMessages(now: t0 + days(549), batchSize: 1) == 2)
        #expect(try await chats.messages(threadID: thread.id).messages.map(\.id) == [recent.question.id, recent.reply.id])
        #expect(try await chats.recentMessages(threadID: thread.id, limit: 10).count == 2)
        #expect(try await chats.message(id: old.question.id) == nil)
        let archived = try await chats.archivedMessages(threadID: thread.id)
        #expect(archived.map(\.id) == [old.question.id, old.reply.id])
        #expect(archived.map(\.content) == ["Who was Aunt Lil?", "She ran the store."])
        #expect(archived.allSatisfy { $0.archivedAt == t0 + days(549) })
        // The read marker on an archived reply still counts; a new message goes after the archived ones.
        #expect(try await chats.unreadCount(threadID: thread.id) == 1)
        let next = try await chats.appendMessage(threadID: thread.id, role: .user, content: "More?", now: t0 + days(550))
        #expect(next.sequence == 5)
        #expect(try await chats.auditEntries(AuditFilter(actions: [.messageArchive])).first?.details?.contains(#""messages":2"#) == true)
    }

    @Test("A new message never reuses the place of archived ones, even when the whole thread was archived")
    func sequenceAfterFullArchive() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        try await chats.archiveMessages(now: t0 + days(600))
        #expect(try await chats.appendMessage(threadID: thread.id, role: .user, content: "Hello again", now: t0 + days(600)).sequence == 3)
    }
}
