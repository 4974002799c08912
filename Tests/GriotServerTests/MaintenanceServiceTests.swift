import Foundation
import GriotServer
import GriotStore
import GriotTestSupport
import Testing

@Suite struct MaintenanceServiceTests {
    /// The hourly retention jobs purge what was deleted over 30 days ago and archive messages
    /// older than 18 months; a run within the hour leaves them be.
    @Test func retentionJobsRunHourlyAndPurgeAndArchive() async throws {
        let chats = try await TestDatabase.storage().chats
        let now = Date()
        let day: TimeInterval = 86_400
        let thread = try await chats.createThread(assistant: "coach", userID: "u-1")
        let old = try await chats.appendMessage(threadID: thread.id, role: .user, content: "from long ago", now: now.addingTimeInterval(-600 * day))
        let deleted = try await chats.appendMessage(threadID: thread.id, role: .user, content: "deleted a while back", now: now.addingTimeInterval(-40 * day))
        let recent = try await chats.appendMessage(threadID: thread.id, role: .user, content: "deleted yesterday", now: now.addingTimeInterval(-2 * day))
        try await chats.softDeleteMessage(id: deleted.id, by: "u-1", now: now.addingTimeInterval(-31 * day))
        try await chats.softDeleteMessage(id: recent.id, by: "u-1", now: now.addingTimeInterval(-1 * day))

        let jobs = MaintenanceService(chats: chats)
        await jobs.runOnce(now: now)
        #expect(try await chats.message(id: deleted.id, includingDeleted: true) == nil, "purged 30 days after the delete")
        #expect(try await chats.message(id: recent.id, includingDeleted: true) != nil, "a recent delete can still be undone")
        #expect(try await chats.message(id: old.id) == nil)
        #expect(try await chats.archivedMessages(threadID: thread.id).map(\.id) == [old.id])

        let later = try await chats.appendMessage(threadID: thread.id, role: .user, content: "also old", now: now.addingTimeInterval(-700 * day))
        await jobs.runOnce(now: now.addingTimeInterval(60))
        #expect(try await chats.message(id: later.id) != nil, "not due again within the hour")
        await jobs.runOnce(now: now.addingTimeInterval(3_601))
        #expect(try await chats.message(id: later.id) == nil)
    }
}
