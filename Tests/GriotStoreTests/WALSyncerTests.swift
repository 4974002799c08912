import Foundation
import GRDB
@testable import GriotStore
import Testing

@Suite struct WALSyncerTests {
    /// Each message written is on disk (its WAL frames synced) within 500 ms, in groups: a burst
    /// of writes costs a sync or two, not one each.
    @Test func writesAreSyncedWithinHalfASecondInGroups() async throws {
        let database = try TemporaryDatabase()
        let store = try SQLiteStoryStore(path: database.path)
        let chats = try SQLiteChatStore(writer: store.writer)
        let syncer = try #require(store.startWALSync())
        defer { syncer.stop() }
        let thread = try await chats.createThread(assistant: "coach", userID: "u-1")
        for round in 0..<3 {
            let before = syncer.syncCount
            for index in 0..<50 {
                try await chats.appendMessage(threadID: thread.id, role: .user, content: "round \(round) message \(index)")
            }
            #expect(!syncer.isCurrent, "just written, not yet synced")
            let written = ContinuousClock.now
            while !syncer.isCurrent, ContinuousClock.now - written < .seconds(2) { try await Task.sleep(for: .milliseconds(10)) }
            let waited = ContinuousClock.now - written
            #expect(syncer.isCurrent && waited < .milliseconds(500), "synced after \(waited)")
            #expect(syncer.syncCount - before <= 2, "50 commits, \(syncer.syncCount - before) syncs")
        }
        try await Task.sleep(for: .milliseconds(450))
        let idle = syncer.syncCount
        try await Task.sleep(for: .milliseconds(450))
        #expect(syncer.syncCount == idle, "nothing written, nothing synced")
    }

    @Test func anInMemoryStoreHasNoSyncer() throws {
        #expect(try SQLiteStoryStore.inMemory().startWALSync() == nil)
    }
}
