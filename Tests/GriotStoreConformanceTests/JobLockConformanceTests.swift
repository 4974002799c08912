import Foundation
import GriotPostgres
import GriotStore
import Synchronization
import Testing

/// Scheduled jobs on a shared database run on one node at a time.
@Suite struct JobLockConformanceTests {
    @Test("A job another node is running is skipped on PostgreSQL; once it ends, the next node runs it")
    func aRunningJobIsSkippedElsewhere() async throws {
        try await StoreBackend.postgres.withStorage { first in
            // A second node: another pool on the same schema.
            guard case .postgres(let url) = first.location else { Issue.record("not PostgreSQL"); return }
            let database = try await PostgresDatabase.open(url: url)
            let second = try await database.storage()
            let inside = Mutex(0)
            let (entered, release) = AsyncStream<Void>.makeStream()
            let (finish, finished) = AsyncStream<Void>.makeStream()
            async let ran = first.chats.runExclusively("retention") {
                inside.withLock { $0 += 1 }
                release.yield()
                for await _ in finish { break }
            }
            for await _ in entered { break }
            #expect(try await second.chats.runExclusively("retention") { inside.withLock { $0 += 1 } } == false)
            #expect(try await second.chats.runExclusively("interrupted-sweep") {} == true, "another job is not held")
            finished.yield()
            let firstRan = try await ran
            #expect(firstRan)
            #expect(try await second.chats.runExclusively("retention") { inside.withLock { $0 += 1 } } == true)
            #expect(inside.withLock { $0 } == 2)
            await database.close()
        }
    }

    @Test("On SQLite a job always runs (one file has one writer at a time)")
    func sqliteRunsTheJob() async throws {
        try await StoreBackend.sqlite.withStorage { storage in
            let ran = try await storage.chats.runExclusively("retention") {}
            #expect(ran)
        }
    }
}
