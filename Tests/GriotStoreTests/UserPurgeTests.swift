import Foundation
import GRDB
import Testing
@testable import GriotStore

@Suite("GDPR erasure")
struct UserPurgeTests {
    @Test("purgeUser removes everything of that user in one go, leaves another user untouched, and keeps only a content-free record of the erasure")
    func purgeOneUser() async throws {
        let chats = try makeChats()
        let limiter = try SQLiteRateLimiter(writer: chats.writer)
        for user in ["u-ruth", "u-simone"] {
            let live = try await chats.createThread(assistant: "griot", userID: user, now: t0)
            let coach = try await chats.createThread(assistant: "coach", userID: user, courseID: "c-1", now: t0)
            try await AuditContext.$current.withValue(AuditContext(actorID: user, ipHash: "ip-\(user)")) {
                try await exchange(chats, threadID: live.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
                try await exchange(chats, threadID: coach.id, question: "I keep putting it off", reply: "What is one step?", at: t0 + days(10))
            }
            try await chats.archiveMessages(now: t0 + days(600))
            try await exchange(chats, threadID: live.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: t0 + days(600))
            let deleted = try await chats.createThread(assistant: "griot", userID: user, now: t0 + days(600))
            try await exchange(chats, threadID: deleted.id, question: "Delete me", reply: "Done", at: t0 + days(600))
            try await chats.softDeleteThread(id: deleted.id, by: user, now: t0 + days(600))
            try await chats.saveProfile(ProfileRecord(userID: user, displayName: user, bio: "I grew up in Greenville."))
            _ = try await limiter.admit(userID: user, now: t0 + days(600))
        }
        // Ruth, a coach, deleted one of Simone's messages: that entry is about Simone's data.
        let simonesThread = try #require(try await chats.threads(userID: "u-simone", assistant: "griot").first)
        let simonesMessage = try #require(try await chats.messages(threadID: simonesThread.id).messages.first)
        try await AuditContext.$current.withValue(AuditContext(actorID: "u-ruth", ipHash: "ip-u-ruth")) {
            _ = try await chats.softDeleteMessage(id: simonesMessage.id, by: "u-ruth", now: t0 + days(601))
        }
        let simoneBefore = try snapshot(chats, userID: "u-simone")

        let counts = try await AuditContext.$current.withValue(AuditContext(actorID: "u-admin", ipHash: "ip-admin")) {
            try await chats.purgeUser(userID: "u-ruth", now: t0 + days(602))
        }
        #expect(counts.threads == 3)
        #expect(counts.messages == 4)          // two live, two in the deleted thread
        #expect(counts.archivedMessages == 4)
        #expect(counts.turns == 4)
        #expect(counts.profiles == 1)
        #expect(counts.rateEvents == 0, "the rate window outlives the erasure")
        #expect(counts.auditEntries == 9)      // eight messages created, one thread deleted
        for table in ["thread", "profile", "retainedText", "safetyVerdict"] {
            #expect(try count(chats, table, where: "userID = ?", ["u-ruth"]) == 0)
        }
        // Kept for its window under the keyed hash of the id, which does not name her.
        #expect(try count(chats, "rateEvent", where: "userKey = ?", [limiter.pseudonyms.key(for: "u-ruth")]) == 1)
        #expect(try count(chats, "rateEvent", where: "userKey = ?", ["u-ruth"]) == 0)
        for table in ["message", "archivedMessage", "turn"] {
            #expect(try count(chats, table, where: "threadID NOT IN (SELECT id FROM thread)") == 0)
        }
        #expect(try await chats.profile(userID: "u-ruth") == nil)

        // What is left about Ruth is the record of the erasure: her id, the admin's, the counts.
        let left = try await chats.writer.read { db in
            try AuditEntry.fetchAll(db, sql: "SELECT * FROM auditEntry WHERE userID = ? OR actorID = ? OR ipHash = ?",
                                    arguments: ["u-ruth", "u-ruth", "ip-u-ruth"])
        }
        #expect(left.count == 1)
        let record = try #require(left.first)
        #expect(record.action == .userPurge)
        #expect(record.actorID == "u-admin")
        #expect(record.ipHash == "ip-admin")
        #expect(record.threadID == nil && record.messageID == nil && record.moderation == nil)
        #expect(record.details == #"{"archivedMessages":4,"auditEntries":9,"bedtimeStories":0,"chapters":0,"children":0,"drawings":0,"messages":4,"profiles":1,"threads":3,"turns":4,"verdicts":0}"#)

        // Simone keeps all she had; the entry about her message keeps its action, without Ruth's identity.
        #expect(try snapshot(chats, userID: "u-simone") == simoneBefore)
        let aboutSimone = try #require(try await chats.auditEntries(AuditFilter(messageID: simonesMessage.id, actions: [.messageDelete])).first)
        #expect(aboutSimone.userID == "u-simone")
        #expect(aboutSimone.actorID == nil && aboutSimone.ipHash == nil)
    }

    @Test("A user who erases themselves leaves no address in the record")
    func selfErasure() async throws {
        let chats = try makeChats()
        _ = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        try await AuditContext.$current.withValue(AuditContext(actorID: "u-ruth", ipHash: "ip-u-ruth")) {
            _ = try await chats.purgeUser(userID: "u-ruth", now: t0)
        }
        let record = try #require(try await chats.auditEntries().first)
        #expect(record.action == .userPurge && record.actorID == "u-ruth" && record.ipHash == nil)
    }

    /// Everything of one user, table by table.
    private func snapshot(_ chats: SQLiteChatStore, userID: String) throws -> [String] {
        try chats.writer.read { db in
            var rows: [String] = []
            for sql in ["SELECT * FROM thread WHERE userID = ?1 ORDER BY id",
                        "SELECT * FROM message WHERE threadID IN (SELECT id FROM thread WHERE userID = ?1) ORDER BY id",
                        "SELECT * FROM archivedMessage WHERE threadID IN (SELECT id FROM thread WHERE userID = ?1) ORDER BY id",
                        "SELECT * FROM turn WHERE threadID IN (SELECT id FROM thread WHERE userID = ?1) ORDER BY id",
                        "SELECT * FROM profile WHERE userID = ?1",
                        "SELECT id, at, action, userID, threadID, messageID, moderation, details FROM auditEntry WHERE userID = ?1 ORDER BY id"] {
                rows += try Row.fetchAll(db, sql: sql, arguments: [userID]).map(\.description)
            }
            return rows
        }
    }
}
