import Foundation
import Testing
@testable import GriotStore

@Suite("Edits with ETags")
struct MessageEditTests {
    @Test("A message's ETag is quoted and names its id and version")
    func format() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let message = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?", now: t0)
        #expect(message.version == 1)
        #expect(message.etag == "\"m-\(message.id)-v1\"")
        #expect(MessageETag.matches("W/\"m-\(message.id)-v1\"", id: message.id, version: 1) == false)
        #expect(MessageETag.matches("\"x\", \"m-\(message.id)-v1\"", id: message.id, version: 1))
    }

    @Test("An edit with the current ETag stores the text and returns a new ETag; the old one is then a conflict")
    func staleETagConflicts() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let original = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?", now: t0)
        let edited = try await chats.editMessage(id: original.id, content: "Who was Aunt Lillian?", ifMatch: original.etag, by: "u-ruth", now: t0 + 5)
        #expect(edited.content == "Who was Aunt Lillian?")
        #expect(edited.version == 2)
        #expect(edited.etag != original.etag)
        #expect(edited.updatedAt == t0 + 5)
        #expect(try await chats.message(id: original.id) == edited)

        let error = await #expect(throws: ChatStoreError.self) {
            try await chats.editMessage(id: original.id, content: "Who was Lil?", ifMatch: original.etag, by: "u-ruth")
        }
        #expect(error?.kind == .conflict)
        #expect(error?.currentETag == edited.etag)
        #expect(error?.description.contains("fetch it again") == true)
        #expect(try await chats.message(id: original.id)?.content == "Who was Aunt Lillian?")
        #expect(try await chats.editMessage(id: original.id, content: "Who was Lil?", ifMatch: "*", by: "u-ruth").version == 3)
    }

    @Test("Writing a reply moves its version, so an ETag taken mid-stream goes stale; a reply still streaming cannot be edited")
    func repliesMoveVersions() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let reply = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "", status: .streaming, now: t0)
        let streaming = await #expect(throws: ChatStoreError.self) {
            try await chats.editMessage(id: reply.id, content: "x", ifMatch: reply.etag, by: "u-coach")
        }
        #expect(streaming?.kind == .conflict)
        try await chats.finishMessage(id: reply.id, content: "Done.", status: .complete)
        let stale = await #expect(throws: ChatStoreError.self) {
            try await chats.editMessage(id: reply.id, content: "x", ifMatch: reply.etag, by: "u-coach")
        }
        #expect(stale?.kind == .conflict)
    }

    @Test("Editing a deleted, archived or missing message is not found; empty text is invalid")
    func notFound() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let message = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?", now: t0)
        let empty = await #expect(throws: ChatStoreError.self) {
            try await chats.editMessage(id: message.id, content: "  \n", ifMatch: message.etag, by: "u-ruth")
        }
        #expect(empty?.kind == .invalid)
        try await chats.softDeleteMessage(id: message.id, by: "u-ruth")
        let deleted = await #expect(throws: ChatStoreError.self) {
            try await chats.editMessage(id: message.id, content: "Who was Lil?", ifMatch: message.etag, by: "u-ruth")
        }
        #expect(deleted?.kind == .notFound)
        let missing = await #expect(throws: ChatStoreError.self) {
            try await chats.editMessage(id: "no-such-message", content: "Who was Lil?", ifMatch: "*", by: "u-ruth")
        }
        #expect(missing?.kind == .notFound)

        let old = try await chats.appendMessage(threadID: thread.id, role: .user, content: "An old question", now: t0)
        try await chats.archiveMessages(olderThan: DateComponents(month: 18), now: t0 + days(600))
        let archived = await #expect(throws: ChatStoreError.self) {
            try await chats.editMessage(id: old.id, content: "Edited", ifMatch: "*", by: "u-ruth")
        }
        #expect(archived?.kind == .notFound)
    }

    @Test("A delete with a stale If-Match is a conflict and deletes nothing")
    func conditionalDelete() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let message = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?", now: t0)
        let edited = try await chats.editMessage(id: message.id, content: "Who was Lil?", ifMatch: message.etag, by: "u-ruth")
        let error = await #expect(throws: ChatStoreError.self) { try await chats.softDeleteMessage(id: message.id, by: "u-ruth", ifMatch: message.etag) }
        #expect(error?.kind == .conflict)
        #expect(try await chats.message(id: message.id) != nil)
        #expect(try await chats.softDeleteMessage(id: message.id, by: "u-ruth", ifMatch: edited.etag))
    }
}
