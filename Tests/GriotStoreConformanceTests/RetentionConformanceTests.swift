import Foundation
import GriotStore
import Testing

/// The scheduled jobs and a user's erasure: purging soft deletes after 30 days, archiving
/// messages after 18 months in batches, and erasing everything of one user and nothing else.
@Suite("Chat store: purge, archive and erasure")
struct RetentionConformanceTests {
    typealias F = ChatFixtures

    @Test("Deleted messages are purged 30 days after deletion, not a day before, with the turn of a purged reply",
          arguments: StoreBackend.allCases)
    func purgeAfterThirtyDays(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let kept = try await F.exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: F.t0)
            let gone = try await F.exchange(chats, threadID: thread.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: F.t0 + 60)
            try await chats.softDeleteMessage(id: gone.reply.id, by: "u-ruth", now: F.t0 + F.days(1))

            #expect(try await chats.purgeDeleted(now: F.t0 + F.days(30)) == RetentionCounts())
            #expect(try await chats.message(id: gone.reply.id, includingDeleted: true) != nil)

            let counts = try await chats.purgeDeleted(now: F.t0 + F.days(31))
            #expect(counts == RetentionCounts(messages: 1, turns: 1))
            #expect(try await chats.message(id: gone.reply.id, includingDeleted: true) == nil)
            #expect(try await chats.turn(id: gone.turn.id, includingDeleted: true) == nil)
            #expect(try await chats.turn(id: kept.turn.id) != nil)
            #expect(try await chats.readRetainedTexts(messageID: gone.reply.id, by: "u-admin").isEmpty, "the retained text goes with the purge")
            #expect(try await chats.messages(threadID: thread.id).messages.map(\.id) == [kept.question.id, kept.reply.id, gone.question.id])
            let purge = try #require(try await chats.auditEntries(AuditFilter(actions: [.messagePurge])).first)
            #expect(purge.messageID == gone.reply.id && purge.userID == "u-ruth" && purge.threadID == thread.id && purge.actorID == nil)
            #expect(try await chats.purgeDeleted(now: F.t0 + F.days(60)) == RetentionCounts())
        }
    }

    @Test("A read marker on a purged message moves to the message before it, so unread replies stay unread",
          arguments: StoreBackend.allCases)
    func readMarkerSurvivesPurge(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let first = try await F.exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: F.t0)
            try await chats.markRead(threadID: thread.id, messageID: first.reply.id)
            try await F.exchange(chats, threadID: thread.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: F.t0 + 60)
            try await chats.softDeleteMessage(id: first.reply.id, by: "u-ruth", now: F.t0 + 120)
            try await chats.purgeDeleted(now: F.t0 + F.days(40))
            #expect(try await chats.thread(id: thread.id)?.lastReadMessageID == first.question.id)
            #expect(try await chats.unreadCount(threadID: thread.id) == 1)
        }
    }

    @Test("A deleted thread is purged whole after 30 days with its counts, and the other threads stay", arguments: StoreBackend.allCases)
    func threadPurge(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let other = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            try await F.exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: F.t0)
            try await F.exchange(chats, threadID: other.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: F.t0)
            #expect(try await chats.softDeleteThread(id: thread.id, by: "u-ruth", now: F.t0 + 60))

            #expect(try await chats.purgeDeleted(now: F.t0 + F.days(29)) == RetentionCounts())
            let counts = try await chats.purgeDeleted(now: F.t0 + F.days(31))
            #expect(counts == RetentionCounts(threads: 1, messages: 2, turns: 1))
            #expect(try await !chats.threadExists(id: thread.id))
            #expect(try await chats.messages(threadID: other.id).messages.count == 2)
            let purge = try #require(try await chats.auditEntries(AuditFilter(actions: [.threadPurge])).first)
            #expect(purge.threadID == thread.id && purge.userID == "u-ruth" && purge.details == #"{"messages":2,"turns":1}"#)
        }
    }

    @Test("Texts kept from edits are purged 30 days after the edit", arguments: StoreBackend.allCases)
    func editedTextsLapse(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let message = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?", now: F.t0)
            try await chats.editMessage(id: message.id, content: "Who was Lil?", ifMatch: "*", by: "u-ruth", now: F.t0)
            try await chats.purgeDeleted(now: F.t0 + F.days(29))
            #expect(try await chats.readRetainedTexts(messageID: message.id, by: "u-admin").count == 1)
            try await chats.purgeDeleted(now: F.t0 + F.days(30))
            #expect(try await chats.readRetainedTexts(messageID: message.id, by: "u-admin").isEmpty)
            #expect(try await chats.message(id: message.id)?.content == "Who was Lil?")
        }
    }

    @Test("Messages older than 18 months move to the archive in batches: gone from the chat, still there for the export",
          arguments: StoreBackend.allCases)
    func archiveAfterEighteenMonths(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let old = try await F.exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: F.t0)
            let older = try await F.exchange(chats, threadID: thread.id, question: "Her sister?", reply: "Aunt May.", at: F.t0 + 1)
            let recent = try await F.exchange(chats, threadID: thread.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: F.t0 + F.days(60))
            let deleted = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Oops", now: F.t0)
            try await chats.softDeleteMessage(id: deleted.id, by: "u-ruth", now: F.t0 + 5)
            try await chats.markRead(threadID: thread.id, messageID: old.reply.id)

            // 18 calendar months after t0 (2025-06-15) is 2026-12-15: a day short of it, nothing moves.
            #expect(try await chats.archiveMessages(now: F.t0 + F.days(547)) == 0)
            #expect(try await chats.auditEntries(AuditFilter(actions: [.messageArchive])).isEmpty, "an empty run is not logged")
            #expect(try await chats.archiveMessages(now: F.t0 + F.days(549), batchSize: 3) == 4)
            #expect(try await chats.messages(threadID: thread.id).messages.map(\.id) == [recent.question.id, recent.reply.id])
            #expect(try await chats.message(id: old.question.id) == nil)
            #expect(try await chats.message(id: deleted.id, includingDeleted: true) != nil, "a deleted message is left for its purge")
            let archived = try await chats.archivedMessages(threadID: thread.id)
            #expect(archived.map(\.id) == [old.question.id, old.reply.id, older.question.id, older.reply.id])
            #expect(archived.map(\.content) == ["Who was Aunt Lil?", "She ran the store.", "Her sister?", "Aunt May."])
            #expect(archived.allSatisfy { $0.archivedAt == F.t0 + F.days(549) && $0.version == 1 && $0.status == .complete })
            #expect(archived.first?.createdAt == F.t0 && archived.first?.sequence == 1)
            // Archived messages keep their places: the read marker still counts, user texts still
            // include them, and a new message goes after them.
            #expect(try await chats.unreadCount(threadID: thread.id) == 1)
            #expect(try await chats.sequence(ofMessage: old.reply.id, inThread: thread.id) == 2)
            #expect(try await chats.userTexts(threadID: thread.id) == ["Who was Aunt Lil?", "Her sister?", "And Uncle Ray?"])
            let archive = try #require(try await chats.auditEntries(AuditFilter(actions: [.messageArchive])).first)
            #expect(archive.details == #"{"before":"2025-06-16T15:06:40Z","messages":4}"#)
            #expect(try await chats.archiveMessages(now: F.t0 + F.days(549)) == 0)
        }
    }

    @Test("A new message never reuses the place of archived ones, even when the whole thread was archived",
          arguments: StoreBackend.allCases)
    func sequenceAfterFullArchive(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            try await F.exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: F.t0)
            #expect(try await chats.archiveMessages(now: F.t0 + F.days(600)) == 2)
            #expect(try await chats.appendMessage(threadID: thread.id, role: .user, content: "Hello again", now: F.t0 + F.days(600)).sequence == 3)
        }
    }

    @Test("purgeUser removes everything of one user in one go, leaves another user untouched, and keeps a content-free record",
          arguments: StoreBackend.allCases)
    func purgeOneUser(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            for user in ["u-ruth", "u-simone"] {
                let live = try await chats.createThread(assistant: "griot", userID: user, now: F.t0)
                let coach = try await chats.createThread(assistant: "coach", userID: user, courseID: "c-1", now: F.t0)
                try await AuditContext.$current.withValue(AuditContext(actorID: user, ipHash: "ip-\(user)")) {
                    try await F.exchange(chats, threadID: live.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: F.t0)
                    try await F.exchange(chats, threadID: coach.id, question: "I keep putting it off", reply: "What is one step?", at: F.t0 + F.days(10))
                }
                try await chats.archiveMessages(now: F.t0 + F.days(600))
                try await F.exchange(chats, threadID: live.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: F.t0 + F.days(600))
                let deleted = try await chats.createThread(assistant: "griot", userID: user, now: F.t0 + F.days(600))
                try await F.exchange(chats, threadID: deleted.id, question: "Delete me", reply: "Done", at: F.t0 + F.days(600))
                _ = try await chats.softDeleteThread(id: deleted.id, by: user, now: F.t0 + F.days(600))
                try await chats.saveProfile(ProfileRecord(userID: user, displayName: user, bio: "I grew up in Greenville.", updatedAt: F.t0))
                try await chats.recordVerdicts([SafetyVerdictRecord(at: F.t0, turnID: "turn-\(user)", threadID: live.id, messageID: nil, userID: user,
                                                                    ipHash: nil, stage: "moderation", score: 0.1, decision: "allow", reason: "ok")])
                try await chats.createSupportGrant(SupportGrant(id: "sg-\(user)", ownerUserID: user, stories: nil, createdAt: F.t0,
                                                                expiresAt: F.t0 + F.days(7)))
                _ = try await chats.addModerationWarning(userID: user, now: F.t0 + F.days(600))
            }
            // Ruth, a coach, deleted one of Simone's messages: that entry is about Simone's data.
            let simonesThread = try #require(try await chats.threads(userID: "u-simone", assistant: "griot").first)
            let simonesMessage = try #require(try await chats.messages(threadID: simonesThread.id).messages.first)
            try await AuditContext.$current.withValue(AuditContext(actorID: "u-ruth", ipHash: "ip-u-ruth")) {
                _ = try await chats.softDeleteMessage(id: simonesMessage.id, by: "u-ruth", now: F.t0 + F.days(601))
            }
            let simoneBefore = try await Everything(of: "u-simone", in: chats)
            let ruthsThreads = try await chats.threads(userID: "u-ruth", assistant: "griot") + chats.threads(userID: "u-ruth", assistant: "coach")

            let counts = try await AuditContext.$current.withValue(AuditContext(actorID: "u-admin", ipHash: "ip-admin")) {
                try await chats.purgeUser(userID: "u-ruth", now: F.t0 + F.days(602))
            }
            #expect(counts.threads == 3)
            #expect(counts.messages == 4)          // two live, two in the deleted thread
            #expect(counts.archivedMessages == 4)
            #expect(counts.turns == 4)
            #expect(counts.profiles == 1)
            #expect(counts.verdicts == 1)
            #expect(counts.rateEvents == 0)
            #expect(counts.auditEntries == 9)      // eight messages created, one thread deleted

            let ruthAfter = try await Everything(of: "u-ruth", in: chats)
            #expect(ruthAfter.threads.isEmpty && ruthAfter.profile == nil && ruthAfter.grants.isEmpty)
            #expect(ruthAfter.audit.map(\.action) == [.userPurge])
            for thread in ruthsThreads {
                #expect(try await !chats.threadExists(id: thread.id))
                #expect(try await chats.archivedMessages(threadID: thread.id).isEmpty)
                #expect(try await chats.turns(threadID: thread.id, includingDeleted: true).isEmpty)
            }
            // The warning count stays under the pseudonym for its window: erasure does not reset it.
            #expect(try await chats.moderationWarnings(userID: "u-ruth", now: F.t0 + F.days(602)) == 1)

            // What is left about Ruth is the record of the erasure: her id, the admin's, the counts.
            let left = try await chats.auditEntries(AuditFilter(limit: 1_000)).filter {
                $0.userID == "u-ruth" || $0.actorID == "u-ruth" || $0.ipHash == "ip-u-ruth"
            }
            #expect(left.count == 1)
            let record = try #require(left.first)
            #expect(record.action == .userPurge && record.actorID == "u-admin" && record.ipHash == "ip-admin")
            #expect(record.threadID == nil && record.messageID == nil && record.moderation == nil)
            #expect(record.details == #"{"archivedMessages":4,"auditEntries":9,"bedtimeStories":0,"chapters":0,"children":0,"drawings":0,"messages":4,"profiles":1,"threads":3,"turns":4,"verdicts":1}"#)

            // Simone keeps all she had; the entry about her message keeps its action, without Ruth's identity.
            let simoneAfter = try await Everything(of: "u-simone", in: chats)
            #expect(simoneAfter.withoutAuditActors == simoneBefore.withoutAuditActors)
            let aboutSimone = try #require(try await chats.auditEntries(AuditFilter(messageID: simonesMessage.id, actions: [.messageDelete])).first)
            #expect(aboutSimone.userID == "u-simone" && aboutSimone.actorID == nil && aboutSimone.ipHash == nil)
        }
    }

    @Test("A user who erases themselves leaves no address in the record", arguments: StoreBackend.allCases)
    func selfErasure(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let counts = try await AuditContext.$current.withValue(AuditContext(actorID: "u-ruth", ipHash: "ip-u-ruth")) {
                try await chats.purgeUser(userID: "u-ruth", now: F.t0)
            }
            #expect(counts == RetentionCounts(threads: 1))
            let record = try #require(try await chats.auditEntries().first)
            #expect(record.action == .userPurge && record.actorID == "u-ruth" && record.ipHash == nil)
            let byAdmin = try await chats.purgeUser(userID: "u-nobody", by: "u-admin", now: F.t0)
            #expect(byAdmin == RetentionCounts())
            #expect(try await chats.auditEntries().first?.actorID == "u-admin")
        }
    }
}

/// Everything a chat store holds about one user, read through the store, to compare before
/// and after another user's erasure.
private struct Everything: Equatable {
    var threads: [ThreadSummary] = []
    var messages: [MessageRecord] = []
    var archived: [ArchivedMessageRecord] = []
    var turns: [TurnRecord] = []
    var profile: ProfileRecord?
    var audit: [AuditEntry] = []
    var grants: [SupportGrant] = []

    init(of userID: String, in chats: any ChatStore) async throws {
        for assistant in ["griot", "coach"] {
            threads += try await chats.threadSummaries(userID: userID, assistant: assistant)
        }
        for thread in threads.map(\.thread) {
            messages += try await chats.messages(threadID: thread.id, limit: 1_000).messages
            archived += try await chats.archivedMessages(threadID: thread.id)
            turns += try await chats.turns(threadID: thread.id, includingDeleted: true)
        }
        profile = try await chats.profile(userID: userID)
        audit = try await chats.auditEntries(AuditFilter(userID: userID, limit: 1_000))
        grants = try await chats.supportGrants(ownerUserID: userID)
    }

    /// The same, with the actor and address taken out of the audit entries (an erasure of the
    /// actor removes those, and only those).
    var withoutAuditActors: Everything {
        var copy = self
        copy.audit = audit.map { entry in
            var entry = entry
            entry.actorID = nil
            entry.ipHash = nil
            return entry
        }
        return copy
    }
}
