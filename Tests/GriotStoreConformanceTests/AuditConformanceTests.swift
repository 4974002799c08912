import Foundation
import GriotStore
import Testing

/// The audit log, the safety records and support grants, on each backend.
@Suite("Chat store: audit log, safety records and support grants")
struct AuditConformanceTests {
    typealias F = ChatFixtures

    @Test("Creating, finishing, editing and deleting a message each leave one entry; streaming flushes leave none",
          arguments: StoreBackend.allCases)
    func entriesForEachChange(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let question = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?", now: F.t0,
                                                         moderation: #"{"toxicity":0.01}"#, audit: AuditContext(ipHash: "ip-1"))
            let reply = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "", status: .streaming, now: F.t0 + 1)
            try await chats.finishMessage(id: reply.id, content: "Aunt Lil", status: .streaming, now: F.t0 + 2)
            try await chats.finishMessage(id: reply.id, content: "Aunt Lil ran the store.", status: .complete, now: F.t0 + 3)
            let edited = try await chats.editMessage(id: question.id, content: "Who was Aunt Lillian?", ifMatch: question.etag, by: "u-ruth", now: F.t0 + 4)
            try await chats.softDeleteMessage(id: question.id, by: "u-ruth", now: F.t0 + 5)

            let entries = try await chats.auditEntries(AuditFilter(userID: "u-ruth"))
            #expect(entries.map(\.action) == [.messageDelete, .messageUpdate, .messageUpdate, .messageCreate, .messageCreate])
            #expect(entries.map(\.messageID) == [question.id, question.id, reply.id, reply.id, question.id])
            #expect(entries.allSatisfy { $0.threadID == thread.id && $0.userID == "u-ruth" })
            let created = try #require(entries.last)
            #expect(created.actorID == "u-ruth" && created.ipHash == "ip-1" && created.at == F.t0)
            #expect(created.moderation == #"{"toxicity":0.01}"#)
            #expect(created.details == #"{"input":"text","role":"user","status":"complete"}"#)
            #expect(entries[3].actorID == nil, "the assistant's message has no actor")
            #expect(entries[3].details == #"{"input":"text","role":"assistant","status":"streaming"}"#)
            #expect(entries[1].details == #"{"reason":"edit","version":\#(edited.version)}"#)
            #expect(entries[2].details == #"{"reason":"reply","status":"complete","version":3}"#)
            #expect(entries.allSatisfy { !($0.details ?? "").contains("Lil") }, "the log says what happened, never what was written")
        }
    }

    @Test("Admins filter by user, actor, thread, message, action and time, newest first, a page at a time", arguments: StoreBackend.allCases)
    func filters(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let ruth = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let simone = try await chats.createThread(assistant: "griot", userID: "u-simone", now: F.t0)
            var ruthMessages: [MessageRecord] = []
            for minute in 0..<5 {
                ruthMessages.append(try await chats.appendMessage(threadID: ruth.id, role: .user, content: "q\(minute)", now: F.t0 + Double(minute) * 60))
                try await chats.appendMessage(threadID: simone.id, role: .user, content: "q\(minute)", now: F.t0 + Double(minute) * 60 + 1)
            }
            try await chats.softDeleteMessage(id: ruthMessages[0].id, by: "u-admin", now: F.t0 + 600)

            #expect(try await chats.auditEntries(AuditFilter(userID: "u-simone")).count == 5)
            #expect(try await chats.auditEntries(AuditFilter(threadID: ruth.id)).count == 6)
            #expect(try await chats.auditEntries(AuditFilter(messageID: ruthMessages[0].id)).map(\.action) == [.messageDelete, .messageCreate])
            let deletions = try await chats.auditEntries(AuditFilter(actions: [.messageDelete]))
            #expect(deletions.count == 1)
            #expect(deletions.first?.actorID == "u-admin" && deletions.first?.userID == "u-ruth")
            #expect(try await chats.auditEntries(AuditFilter(actorID: "u-admin")).count == 1)
            #expect(try await chats.auditEntries(AuditFilter(actions: [.messageDelete, .messageCreate])).count == 11)
            #expect(try await chats.auditEntries(AuditFilter(actions: [.threadPurge])).isEmpty)

            let window = try await chats.auditEntries(AuditFilter(userID: "u-ruth", since: F.t0 + 60, until: F.t0 + 180))
            #expect(window.map(\.messageID) == [ruthMessages[2].id, ruthMessages[1].id])

            let all = try await chats.auditEntries(AuditFilter(limit: 100))
            #expect(all.count == 11)
            #expect(all.map(\.at) == all.map(\.at).sorted(by: >))
            #expect(try await chats.auditEntries(AuditFilter(limit: 4, offset: 4)) == Array(all[4..<8]))
            #expect(try await chats.auditEntries(AuditFilter(limit: 0)).isEmpty)
            #expect(try await chats.auditEntries(AuditFilter(limit: -5, offset: -5)).isEmpty)
        }
    }

    @Test("The request's AuditContext reaches entries written deep inside it, and fills what a recorded entry leaves out",
          arguments: StoreBackend.allCases)
    func taskLocalContext(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let context = AuditContext(actorID: "u-ruth", ipHash: "ip-9")
            let (reply, recorded) = try await AuditContext.$current.withValue(context) {
                (try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "Hello", now: F.t0),
                 try await chats.recordAudit(AuditEntry(at: F.t0, action: .threadExport, userID: "u-ruth", actorID: "u-coach", threadID: thread.id,
                                                        details: AuditEntry.details(["format": "pdf"]))))
            }
            let entry = try #require(try await chats.auditEntries(AuditFilter(messageID: reply.id)).first)
            #expect(entry.actorID == "u-ruth" && entry.ipHash == "ip-9")
            #expect(recorded.actorID == "u-coach" && recorded.ipHash == "ip-9", "an actor given stays; a missing IP hash is filled")
            #expect(try await chats.auditEntries(AuditFilter(actions: [.threadExport])) == [recorded])
        }
    }

    @Test("Entries the store does not write itself are recorded with their ids, moderation results and text in any script",
          arguments: StoreBackend.allCases)
    func recordedEntries(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let entry = try await chats.recordAudit(AuditEntry(at: F.t0, action: AuditAction("message.block"), userID: "u-ruth", actorID: "u-ruth",
                                                               moderation: #"{"category":"harassment","score":0.97}"#))
            #expect(entry.id != nil)
            let read = try #require(try await chats.auditEntries(AuditFilter(actions: ["message.block"])).first)
            #expect(read == entry)
            let second = try await chats.recordAudit(AuditEntry(at: F.t0 + 1, action: "login", userID: "u-李秀英",
                                                                details: AuditEntry.details(["name": .string("Zofia Łukasiewicz 👵🏽")])))
            let firstID = try #require(entry.id)
            let secondID = try #require(second.id)
            #expect(secondID > firstID)
            #expect(try await chats.auditEntries(AuditFilter(userID: "u-李秀英")) == [second])
        }
    }

    @Test("An entry or a verdict that names its id keeps it, and those after it are numbered past it",
          arguments: StoreBackend.allCases)
    func namedIDs(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let named = try await chats.recordAudit(AuditEntry(id: 3, at: F.t0, action: "login", userID: "u-ruth"))
            #expect(named.id == 3)
            // The store writes entries of its own (a thread's messages) after it: none may take id 3 again.
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            for index in 0..<4 {
                try await chats.appendMessage(threadID: thread.id, role: .user, content: "message \(index)", now: F.t0 + Double(index))
            }
            let ids = try await chats.auditEntries().compactMap(\.id)
            #expect(ids.count == 5 && Set(ids).count == 5)
            #expect(ids.filter { $0 != 3 }.allSatisfy { $0 > 3 })

            func verdict(_ id: Int64?) -> SafetyVerdictRecord {
                SafetyVerdictRecord(id: id, at: F.t0, turnID: "t1", threadID: thread.id, messageID: nil, userID: "u-ruth", ipHash: nil,
                                    stage: "moderation", score: 0.5, decision: "allow", reason: "ok")
            }
            try await chats.recordVerdicts([verdict(2), verdict(nil), verdict(nil), verdict(nil)])
            let verdictIDs = try await chats.verdicts(turnID: "t1").compactMap(\.id)
            #expect(verdictIDs == [2, 3, 4, 5])
        }
    }

    @Test("purgeAudit drops entries older than the retention age, keeps newer ones and logs that it ran", arguments: StoreBackend.allCases)
    func auditRetention(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            try await chats.appendMessage(threadID: thread.id, role: .user, content: "old", now: F.t0)
            try await chats.appendMessage(threadID: thread.id, role: .user, content: "new", now: F.t0 + F.days(200))
            let now = F.t0 + F.days(400)
            let purged = try await AuditContext.$current.withValue(AuditContext(actorID: "u-admin", ipHash: "ip-admin")) {
                try await chats.purgeAudit(olderThan: DateComponents(month: 12), now: now)
            }
            #expect(purged == 1)
            let left = try await chats.auditEntries()
            #expect(left.map(\.action) == [.auditPurge, .messageCreate])
            #expect(left.first?.details == #"{"before":"2025-07-20T15:06:40Z","entries":1}"#)
            #expect(left.first?.actorID == "u-admin" && left.first?.ipHash == "ip-admin")
            #expect(try await chats.purgeAudit(olderThan: DateComponents(month: 12), now: now) == 0)
        }
    }

    @Test("Verdicts are stored with the request's IP hash, kept two years, then purged with an audit entry", arguments: StoreBackend.allCases)
    func verdictsKeptTwoYears(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            func verdict(_ turn: String, at: Date, stage: String = "moderation", ipHash: String? = nil) -> SafetyVerdictRecord {
                SafetyVerdictRecord(at: at, turnID: turn, threadID: thread.id, messageID: "m-1", userID: "u-ruth", ipHash: ipHash,
                                    stage: stage, score: 0.125, decision: "allow", reason: "toxicity 0.13", details: #"{"toxicity":0.125}"#)
            }
            try await AuditContext.$current.withValue(AuditContext(actorID: "u-ruth", ipHash: "h-123")) {
                try await chats.recordVerdicts([verdict("t1", at: F.t0), verdict("t1", at: F.t0, stage: "pii", ipHash: "own")])
            }
            try await chats.recordVerdicts([])
            let stored = try await chats.verdicts(turnID: "t1")
            #expect(stored.map(\.stage) == ["moderation", "pii"])
            #expect(stored.map(\.ipHash) == ["h-123", "own"])
            #expect(stored.allSatisfy { $0.id != nil && $0.score == 0.125 && $0.at == F.t0 && $0.details == #"{"toxicity":0.125}"# })
            var first = try #require(stored.first)
            first.id = nil
            #expect(first == verdict("t1", at: F.t0, ipHash: "h-123"))

            try await chats.recordVerdicts([verdict("old", at: F.t0 - F.days(800)), verdict("recent", at: F.t0 - F.days(700))])
            #expect(try await chats.purgeVerdicts(now: F.t0) == 1)
            #expect(try await chats.verdicts(turnID: "old").isEmpty)
            #expect(try await chats.verdicts(turnID: "recent").count == 1)
            let purge = try #require(try await chats.auditEntries(AuditFilter(actions: [.verdictPurge])).first)
            #expect(purge.details?.contains(#""verdicts":1"#) == true && purge.actorID == nil && purge.userID == nil)
            #expect(try await chats.purgeVerdicts(now: F.t0) == 0)
            #expect(try await chats.auditEntries(AuditFilter(actions: [.verdictPurge])).count == 1, "an empty purge is not logged")
        }
    }

    @Test("Warnings count blocked messages under the user's pseudonym for 90 days, then lapse and start again", arguments: StoreBackend.allCases)
    func warningsLapse(_ backend: StoreBackend) async throws {
        // Typed: a closure whose only `try`s are inside #expect is not inferred to throw.
        try await backend.withStorage { (storage: Storage) async throws in
            let chats = storage.chats
            #expect(try await chats.moderationWarnings(userID: "u-ruth", now: F.t0) == 0)
            #expect(try await chats.addModerationWarning(userID: "u-ruth", now: F.t0) == 1)
            #expect(try await chats.addModerationWarning(userID: "u-ruth", now: F.t0 + F.days(10)) == 2)
            #expect(try await chats.addModerationWarning(userID: "u-amos", now: F.t0) == 1)
            #expect(try await chats.moderationWarnings(userID: "u-ruth", now: F.t0 + F.days(10)) == 2)
            #expect(try await chats.moderationWarnings(userID: "u-ruth", now: F.t0 + F.days(100)) == 2, "the window runs from the last one")
            let lapsed = F.t0 + F.days(101)
            #expect(try await chats.moderationWarnings(userID: "u-ruth", now: lapsed) == 0)
            #expect(try await chats.addModerationWarning(userID: "u-ruth", now: lapsed) == 1, "a lapsed count starts again")
            #expect(try await chats.expireWarnings(now: lapsed) == 1, "u-amos's lapsed count is deleted")
            #expect(try await chats.expireWarnings(now: lapsed) == 0)
            #expect(try await chats.moderationWarnings(userID: "u-amos", now: F.t0) == 0)
        }
    }

    @Test("A voice message is marked; a blocked one is logged with its scores and kept out of history; a refused edit keeps the message",
          arguments: StoreBackend.allCases)
    func moderationRecords(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "coach", userID: "u-maya", now: F.t0)
            let spoken = try await chats.appendMessage(threadID: thread.id, role: .user, content: "hello from the car", now: F.t0, inputMode: "voice")
            let typed = try await chats.appendMessage(threadID: thread.id, role: .user, content: "typed", now: F.t0)
            try await AuditContext.$current.withValue(AuditContext(actorID: "u-maya", ipHash: "ip-m")) {
                try await chats.recordModeration(messageID: typed.id, moderation: #"{"harassment":0.95}"#, decision: "block", blocked: true, now: F.t0 + 1)
                try await chats.recordModeration(messageID: spoken.id, moderation: #"{"harassment":0.01}"#, decision: "allow", blocked: false, now: F.t0 + 2)
                try await chats.recordModeration(messageID: spoken.id, moderation: #"{"harassment":0.90}"#, decision: "block", blocked: false,
                                                 write: "edit", now: F.t0 + 3)
            }
            let blocked = try #require(try await chats.message(id: typed.id))
            #expect(blocked.status == .blocked && blocked.version == 2 && blocked.updatedAt == F.t0 + 1)
            #expect(try await chats.message(id: spoken.id) == spoken)

            let entries = try await chats.auditEntries(AuditFilter(actions: [.messageModerate]))
            #expect(entries.map(\.details) == [#"{"decision":"block","input":"text","write":"edit"}"#,
                                                #"{"decision":"allow","input":"voice","write":"send"}"#,
                                                #"{"decision":"block","input":"text","write":"send"}"#])
            #expect(entries.last?.moderation == #"{"harassment":0.95}"#)
            #expect(entries.allSatisfy { $0.userID == "u-maya" && $0.threadID == thread.id && $0.actorID == "u-maya" && $0.ipHash == "ip-m" })
            try await chats.recordModeration(messageID: "no-such-message", moderation: "{}", decision: "allow", blocked: true, now: F.t0 + 4)
            let orphan = try #require(try await chats.auditEntries(AuditFilter(messageID: "no-such-message")).first)
            #expect(orphan.userID == nil && orphan.threadID == nil && orphan.details == #"{"decision":"allow","input":"text","write":"send"}"#)
        }
    }

    @Test("Support grants are created, listed newest first, active until they expire or are revoked, and revoked once",
          arguments: StoreBackend.allCases)
    func supportGrants(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let all = SupportGrant(id: "sg-a", ownerUserID: "u-ruth", stories: nil, createdAt: F.t0, expiresAt: F.t0 + F.days(7))
            let some = SupportGrant(id: "sg-b", ownerUserID: "u-ruth", stories: ["story-1", "李秀英/2"], createdAt: F.t0 + 60,
                                    expiresAt: F.t0 + F.days(1))
            let theirs = SupportGrant(id: "sg-c", ownerUserID: "u-simone", stories: ["story-3"], createdAt: F.t0, expiresAt: F.t0 + F.days(7))
            for grant in [all, some, theirs] { #expect(try await chats.createSupportGrant(grant) == grant) }

            #expect(try await chats.supportGrant(id: "sg-b") == some)
            #expect(try await chats.supportGrant(id: "sg-b")?.stories == ["story-1", "李秀英/2"])
            #expect(try await chats.supportGrant(id: "sg-z") == nil)
            #expect(try await chats.supportGrants(ownerUserID: "u-ruth") == [some, all])
            #expect(try await chats.activeSupportGrants(owners: ["u-ruth", "u-simone"], at: F.t0 + 120).map(\.id).sorted() == ["sg-a", "sg-b", "sg-c"])
            #expect(try await chats.activeSupportGrants(owners: ["u-ruth"], at: F.t0 + F.days(2)) == [all])
            #expect(try await chats.activeSupportGrants(owners: [], at: F.t0).isEmpty)

            let revoked = try #require(try await chats.revokeSupportGrant(id: "sg-a", at: F.t0 + 300))
            #expect(revoked.revokedAt == F.t0 + 300)
            #expect(try await chats.revokeSupportGrant(id: "sg-a", at: F.t0 + 400)?.revokedAt == F.t0 + 300, "revoked once")
            #expect(try await chats.revokeSupportGrant(id: "sg-z", at: F.t0) == nil)
            #expect(try await chats.supportGrant(id: "sg-a") == revoked)
            #expect(try await chats.activeSupportGrants(owners: ["u-ruth"], at: F.t0 + 500) == [some])
            #expect(try await chats.supportGrants(ownerUserID: "u-ruth").count == 2, "a revoked grant stays listed")
        }
    }
}
