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

    @Test func verdictsAreKeptTwoYearsThenPurgedWithAnAuditEntry() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth")
        try await chats.recordVerdicts([
            verdict("old", thread: thread.id, user: "u-ruth", at: t0.addingTimeInterval(-days(800))),
            verdict("recent", thread: thread.id, user: "u-ruth", at: t0.addingTimeInterval(-days(700))),
        ])
        #expect(try await chats.purgeVerdicts(now: t0) == 1)
        #expect(try await chats.verdicts(turnID: "old").isEmpty)
        #expect(try await chats.verdicts(turnID: "recent").count == 1)
        #expect(try await chats.auditEntries(AuditFilter(actions: [.verdictPurge])).count == 1)
        #expect(try await chats.purgeVerdicts(now: t0) == 0, "idempotent")
    }

    @Test func theIPHashComesFromTheRequestContext() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth")
        try await AuditContext.$current.withValue(AuditContext(actorID: "u-ruth", ipHash: "h-123")) {
            try await chats.recordVerdicts([verdict("t1", thread: thread.id, user: "u-ruth", at: t0)])
        }
        #expect(try await chats.verdicts(turnID: "t1").first?.ipHash == "h-123")
    }

    /// Verdicts go with the user; the warning count stays under the user's pseudonym for its
    /// 90-day window, so erasure does not reset it, and then lapses.
    @Test func erasingAUserRemovesTheirVerdictsButTheWarningCountLastsItsWindow() async throws {
        let chats = try makeChats()
        let mine = try await chats.createThread(assistant: "griot", userID: "u-ruth")
        let theirs = try await chats.createThread(assistant: "griot", userID: "u-amos")
        try await chats.recordVerdicts([verdict("a", thread: mine.id, user: "u-ruth", at: t0), verdict("b", thread: theirs.id, user: "u-amos", at: t0)])
        #expect(try await chats.addModerationWarning(userID: "u-ruth", now: t0) == 1)
        #expect(try await chats.addModerationWarning(userID: "u-ruth", now: t0) == 2)
        try await chats.addModerationWarning(userID: "u-amos", now: t0)
        let counts = try await chats.purgeUser(userID: "u-ruth", now: t0)
        #expect(counts.verdicts == 1)
        #expect(try await chats.verdicts(turnID: "a").isEmpty)
        #expect(try await chats.verdicts(turnID: "b").count == 1)
        #expect(try await chats.moderationWarnings(userID: "u-ruth", now: t0) == 2)
        #expect(try await chats.moderationWarnings(userID: "u-amos", now: t0) == 1)
        let lapsed = t0 + 91 * 86_400
        #expect(try await chats.moderationWarnings(userID: "u-ruth", now: lapsed) == 0)
        #expect(try await chats.addModerationWarning(userID: "u-ruth", now: lapsed) == 1, "a lapsed count starts again")
        #expect(try await chats.expireWarnings(now: lapsed) == 1, "u-amos's lapsed count is deleted")
        #expect(try count(chats, "moderationWarning", where: "userKey = ?", ["u-ruth"]) == 0, "kept under a keyed hash, not the id")
    }

    @Test func aVoiceMessageIsMarkedAndBlockingKeepsItOutOfTheThreadsHistory() async throws {
        let chats = try makeChats()
        let thread = try await chats.createThread(assistant: "coach", userID: "u-maya")
        let spoken = try await chats.appendMessage(threadID: thread.id, role: .user, content: "hello from the car", inputMode: "voice")
        let typed = try await chats.appendMessage(threadID: thread.id, role: .user, content: "typed")
        #expect(try await chats.inputMode(messageID: spoken.id) == "voice")
        #expect(try await chats.inputMode(messageID: typed.id) == "text")
        try await chats.recordModeration(messageID: typed.id, moderation: "{\"harassment\":0.95}", decision: "block", blocked: true)
        #expect(try await chats.message(id: typed.id)?.status == .blocked)
        let entry = try #require(try await chats.auditEntries(AuditFilter(messageID: typed.id, actions: [.messageModerate])).first)
        #expect(entry.moderation == "{\"harassment\":0.95}")
        #expect(entry.userID == "u-maya")
    }
}
