import Foundation
import GRDB
@testable import GriotStore
import Testing

/// Safety verdicts, warnings and voice messages in the store: kept two years, erased with the user.
@Suite struct SafetyRecordsTests {
    func verdict(_ turn: String, thread: String, user: String, at: Date, stage: String = "moderation") -> SafetyVerdictRecord {
        SafetyVerdictRecord(at: at, turnID: turn, threadID: thread, messageID: nil, userID: user, ipHash: nil,
                            stage: stage, score: 0.1, decision: "allow", reason: "toxicity 0.10")
    }

    @Test func verdictsAreKeptTwoYearsThenPurgedWithAnAuditEntry() throws {
        let chats = try makeChats()
        let thread = try chats.createThread(assistant: "griot", userID: "u-ruth")
        try chats.recordVerdicts([
            verdict("old", thread: thread.id, user: "u-ruth", at: t0.addingTimeInterval(-days(800))),
            verdict("recent", thread: thread.id, user: "u-ruth", at: t0.addingTimeInterval(-days(700))),
        ])
        #expect(try chats.purgeVerdicts(now: t0) == 1)
        #expect(try chats.verdicts(turnID: "old").isEmpty)
        #expect(try chats.verdicts(turnID: "recent").count == 1)
        #expect(try chats.auditEntries(AuditFilter(actions: [.verdictPurge])).count == 1)
        #expect(try chats.purgeVerdicts(now: t0) == 0, "idempotent")
    }

    @Test func theIPHashComesFromTheRequestContext() throws {
        let chats = try makeChats()
        let thread = try chats.createThread(assistant: "griot", userID: "u-ruth")
        try AuditContext.$current.withValue(AuditContext(actorID: "u-ruth", ipHash: "h-123")) {
            try chats.recordVerdicts([verdict("t1", thread: thread.id, user: "u-ruth", at: t0)])
        }
        #expect(try chats.verdicts(turnID: "t1").first?.ipHash == "h-123")
    }

    /// Verdicts go with the user; the warning count stays under the user's pseudonym for its
    /// 90-day window, so erasure does not reset it, and then lapses.
    @Test func erasingAUserRemovesTheirVerdictsButTheWarningCountLastsItsWindow() throws {
        let chats = try makeChats()
        let mine = try chats.createThread(assistant: "griot", userID: "u-ruth")
        let theirs = try chats.createThread(assistant: "griot", userID: "u-amos")
        try chats.recordVerdicts([verdict("a", thread: mine.id, user: "u-ruth", at: t0), verdict("b", thread: theirs.id, user: "u-amos", at: t0)])
        #expect(try chats.addModerationWarning(userID: "u-ruth", now: t0) == 1)
        #expect(try chats.addModerationWarning(userID: "u-ruth", now: t0) == 2)
        try chats.addModerationWarning(userID: "u-amos", now: t0)
        let counts = try chats.purgeUser(userID: "u-ruth", now: t0)
        #expect(counts.verdicts == 1)
        #expect(try chats.verdicts(turnID: "a").isEmpty)
        #expect(try chats.verdicts(turnID: "b").count == 1)
        #expect(try chats.moderationWarnings(userID: "u-ruth", now: t0) == 2)
        #expect(try chats.moderationWarnings(userID: "u-amos", now: t0) == 1)
        let lapsed = t0 + 91 * 86_400
        #expect(try chats.moderationWarnings(userID: "u-ruth", now: lapsed) == 0)
        #expect(try chats.addModerationWarning(userID: "u-ruth", now: lapsed) == 1, "a lapsed count starts again")
        #expect(try chats.expireWarnings(now: lapsed) == 1, "u-amos's lapsed count is deleted")
        #expect(try count(chats, "moderationWarning", where: "userKey = ?", ["u-ruth"]) == 0, "kept under a keyed hash, not the id")
    }

    @Test func aVoiceMessageIsMarkedAndBlockingKeepsItOutOfTheThreadsHistory() throws {
        let chats = try makeChats()
        let thread = try chats.createThread(assistant: "coach", userID: "u-maya")
        let spoken = try chats.appendMessage(threadID: thread.id, role: .user, content: "hello from the car", inputMode: "voice")
        let typed = try chats.appendMessage(threadID: thread.id, role: .user, content: "typed")
        #expect(try chats.inputMode(messageID: spoken.id) == "voice")
        #expect(try chats.inputMode(messageID: typed.id) == "text")
        try chats.recordModeration(messageID: typed.id, moderation: "{\"harassment\":0.95}", decision: "block", blocked: true)
        #expect(try chats.message(id: typed.id)?.status == .blocked)
        let entry = try #require(try chats.auditEntries(AuditFilter(messageID: typed.id, actions: [.messageModerate])).first)
        #expect(entry.moderation == "{\"harassment\":0.95}")
        #expect(entry.userID == "u-maya")
    }
}
