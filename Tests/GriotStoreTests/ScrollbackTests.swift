import Foundation
import Testing
@testable import GriotStore

@Suite("Scrollback and unread counts")
struct ScrollbackTests {
    @Test("Pages go back through the thread, each oldest first with the newest last, until the start")
    func pages() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        var messages: [MessageRecord] = []
        for index in 0..<7 {
            messages.append(try await chats.appendMessage(threadID: thread.id, role: index % 2 == 0 ? .user : .assistant, content: "m\(index)", now: t0 + Double(index)))
        }
        let newest = try await chats.messages(threadID: thread.id, limit: 3)
        #expect(newest.messages.map(\.content) == ["m4", "m5", "m6"])
        #expect(newest.earlier == 5)
        let middle = try await chats.messages(threadID: thread.id, before: newest.earlier, limit: 3)
        #expect(middle.messages.map(\.content) == ["m1", "m2", "m3"])
        let first = try await chats.messages(threadID: thread.id, before: middle.earlier, limit: 3)
        #expect(first.messages.map(\.content) == ["m0"])
        #expect(first.earlier == nil)
        #expect(try await chats.messages(threadID: thread.id, limit: 7).earlier == nil)
        #expect(messages.map(\.sequence) == Array(1...7))
    }

    @Test("Unread counts the replies after the read marker (all of them before any is read); the marker only moves forward")
    func unread() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let first = try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        let second = try await exchange(chats, threadID: thread.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: t0 + 60)
        #expect(try await chats.unreadCount(threadID: thread.id) == 2)
        try await chats.markRead(threadID: thread.id, messageID: first.reply.id)
        #expect(try await chats.unreadCount(threadID: thread.id) == 1)
        try await chats.markRead(threadID: thread.id, messageID: second.question.id)
        #expect(try await chats.unreadCount(threadID: thread.id) == 1)
        try await chats.markRead(threadID: thread.id, messageID: second.reply.id)
        #expect(try await chats.unreadCount(threadID: thread.id) == 0)
        try await chats.markRead(threadID: thread.id, messageID: first.reply.id)
        #expect(try await chats.thread(id: thread.id)?.lastReadMessageID == second.reply.id)
        // The user's own new message is not unread.
        try await chats.appendMessage(threadID: thread.id, role: .user, content: "Thanks", now: t0 + 120)
        #expect(try await chats.unreadCount(threadID: thread.id) == 0)
    }

    @Test("Marking read a message of another thread, or in a missing thread, is not found")
    func markReadChecks() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let other = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let message = try await chats.appendMessage(threadID: other.id, role: .assistant, content: "Hi", now: t0)
        let wrongThread = await #expect(throws: ChatStoreError.self) { try await chats.markRead(threadID: thread.id, messageID: message.id) }
        #expect(wrongThread?.kind == .notFound)
        let noThread = await #expect(throws: ChatStoreError.self) { try await chats.unreadCount(threadID: "no-such-thread") }
        #expect(noThread?.kind == .notFound)
    }
}
