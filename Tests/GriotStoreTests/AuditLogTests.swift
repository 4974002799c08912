import Foundation
import Testing
@testable import GriotStore

@Suite("Audit log")
struct AuditLogTests {
    @Test("Creating, finishing, editing and deleting a message each leave one entry; streaming flushes leave none")
    func entriesForEachChange() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let question = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?", now: t0,
                                               audit: AuditContext(ipHash: "ip-1"))
        let reply = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "", status: .streaming, now: t0 + 1)
        try await chats.finishMessage(id: reply.id, content: "Aunt Lil", status: .streaming, now: t0 + 2)
        try await chats.finishMessage(id: reply.id, content: "Aunt Lil ran the store.", status: .complete, now: t0 + 3)
        let edited = try await chats.editMessage(id: question.id, content: "Who was Aunt Lillian?", ifMatch: question.etag, by: "u-ruth", now: t0 + 4)
        try await chats.softDeleteMessage(id: question.id, by: "u-ruth", now: t0 + 5)

        let entries = try await chats.auditEntries(AuditFilter(userID: "u-ruth"))
        #expect(entries.map(\.action) == [.messageDelete, .messageUpdate, .messageUpdate, .messageCreate, .messageCreate])
        #expect(entries.map(\.messageID) == [question.id, question.id, reply.id, reply.id, question.id])
        #expect(entries.allSatisfy { $0.threadID == thread.id && $0.userID == "u-ruth" })
        let created = try #require(entries.last)
        #expect(created.actorID == "u-ruth")
        #expect(created.ipHash == "ip-1")
        #expect(created.at == t0)
        #expect(created.details == #"{"input":"text","role":"user","status":"complete"}"#)
        #expect(entries[1].details == #"{"reason":"edit","version":\#(edited.version)}"#)
        #expect(entries[2].actorID == nil)
        #expect(entries[2].details?.contains(#""reason":"reply""#) == true)
        // The log says what happened, never what was written.
        #expect(entries.allSatisfy { !($0.details ?? "").contains("Lil") })
    }

    @Test("Admins filter by user, actor, thread, message, action and time, newest first, a page at a time")
    func filters() async throws {
        let chats = try makeChats()
        let ruth = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let simone = try await chats.createThread(assistant: "griot", userID: "u-simone", now: t0)
        var ruthMessages: [MessageRecord] = []
        for minute in 0..<5 {
            await ruthMessages.append(try chats.appendMessage(threadID: ruth.id, role: .user, content: "q\(minute)", now: t0 + Double(minute) * 60))
            try await chats.appendMessage(threadID: simone.id, role: .user, content: "q\(minute)", now: t0 + Double(minute) * 60 + 1)
        }
        try await chats.softDeleteMessage(id: ruthMessages[0].id, by: "u-admin", now: t0 + 600)

        #expect(try await chats.auditEntries(AuditFilter(userID: "u-simone")).count == 5)
        #expect(try await chats.auditEntries(AuditFilter(threadID: ruth.id)).count == 6)
        #expect(try await chats.auditEntries(AuditFilter(messageID: ruthMessages[0].id)).map(\.action) == [.messageDelete, .messageCreate])
        let deletions = try await chats.auditEntries(AuditFilter(actions: [.messageDelete]))
        #expect(deletions.count == 1)
        #expect(deletions.first?.actorID == "u-admin")
        #expect(deletions.first?.userID == "u-ruth")
        #expect(try await chats.auditEntries(AuditFilter(actorID: "u-admin")).count == 1)
        #expect(try await chats.auditEntries(AuditFilter(actions: [.messageDelete, .messageCreate])).count == 11)

        let window = try await chats.auditEntries(AuditFilter(userID: "u-ruth", since: t0 + 60, until: t0 + 180))
        #expect(window.map(\.messageID) == [ruthMessages[2].id, ruthMessages[1].id])

        let all = try await chats.auditEntries(AuditFilter(limit: 100))
        #expect(all.count == 11)
        #expect(all.map(\.at) == all.map(\.at).sorted(by: >))
        let page = try await chats.auditEntries(AuditFilter(limit: 4, offset: 4))
        #expect(page == Array(all[4..<8]))
    }

    @Test("The request's AuditContext reaches entries written deep inside it")
    func taskLocalContext() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let reply = try await AuditContext.$current.withValue(AuditContext(actorID: "u-ruth", ipHash: "ip-9")) {
            try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "Hello", now: t0)
        }
        let entry = try #require(try await chats.auditEntries(AuditFilter(messageID: reply.id)).first)
        #expect(entry.actorID == "u-ruth")
        #expect(entry.ipHash == "ip-9")
    }

    @Test("Entries the store does not write itself can be recorded, with moderation results")
    func recordedEntries() async throws {
        let chats = try makeChats()
        let entry = try await chats.recordAudit(AuditEntry(at: t0, action: AuditAction("message.block"), userID: "u-ruth", actorID: "u-ruth",
                                                     moderation: #"{"category":"harassment","score":0.97}"#))
        #expect(entry.id != nil)
        let read = try #require(try await chats.auditEntries(AuditFilter(actions: ["message.block"])).first)
        #expect(read == entry)
    }

    @Test("purgeAudit drops entries older than the retention age, keeps newer ones and logs that it ran")
    func retention() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        try await chats.appendMessage(threadID: thread.id, role: .user, content: "old", now: t0)
        try await chats.appendMessage(threadID: thread.id, role: .user, content: "new", now: t0 + days(200))
        let now = t0 + days(400)
        #expect(try await chats.purgeAudit(olderThan: DateComponents(month: 12), now: now) == 1)
        let left = try await chats.auditEntries()
        #expect(left.map(\.action) == [.auditPurge, .messageCreate])
        #expect(left.first?.details?.contains(#""entries":1"#) == true)
        #expect(try await chats.purgeAudit(olderThan: DateComponents(month: 12), now: now) == 0)
    }
}
