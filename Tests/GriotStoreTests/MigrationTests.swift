import Foundation
import GRDB
import Testing
@testable import GriotStore

@Suite("Migrations")
struct MigrationTests {
    @Test("A database written at v3 opens at v4 with its messages intact, versioned and editable")
    func upgradeFromV3() async throws {
        let database = try TemporaryDatabase()
        do {
            let pool = try database.pool()
            try SQLiteSchema.migrator.migrate(pool, upTo: "v3: threads, messages and turns")
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO thread (id, assistant, userID, title, createdAt, updatedAt) VALUES ('t-1', 'griot', 'u-ruth', 'Aunt Lil', ?1, ?1)",
                               arguments: [t0])
                try db.execute(sql: """
                    INSERT INTO message (id, threadID, sequence, role, content, status, createdAt, updatedAt)
                    VALUES ('m-1', 't-1', 1, 'user', 'Who was Aunt Lil?', 'complete', ?1, ?1)
                    """, arguments: [t0])
            }
            #expect(try await pool.read { db in try db.tableExists("auditEntry") } == false)
        }

        let store = try SQLiteStoryStore(path: database.path)
        let chats = try SQLiteChatStore(writer: store.writer)
        let applied = try await store.writer.read { db in try SQLiteSchema.migrator.appliedIdentifiers(db) }
        #expect(applied.contains("v4: audit, rate limits and retention"))
        #expect(try await store.writer.read { db in try SQLiteSchema.migrator.hasCompletedMigrations(db) })
        let message = try #require(try await chats.message(id: "m-1"))
        #expect(message.version == 1)
        #expect(message.content == "Who was Aunt Lil?")
        let edited = try await chats.editMessage(id: "m-1", content: "Who was Aunt Lillian?", ifMatch: "\"m-m-1-v1\"", by: "u-ruth", now: t0 + 1)
        #expect(edited.etag == "\"m-m-1-v2\"")
        #expect(try await chats.appendMessage(threadID: "t-1", role: .assistant, content: "She ran the store.", now: t0 + 2).sequence == 2)
        #expect(try await SQLiteRateLimiter(writer: store.writer).admit(userID: "u-ruth", now: t0).isAllowed)
        #expect(try await chats.auditEntries(AuditFilter(threadID: "t-1")).count == 2)

        // Opening it again runs nothing twice.
        let again = try SQLiteChatStore(writer: SQLiteStoryStore(path: database.path).writer)
        #expect(try await again.message(id: "m-1")?.version == 2)
    }

    @Test("v17 is the last migration, after v16 to v4")
    func order() throws {
        #expect(SQLiteSchema.migrator.migrations.suffix(14) == ["v4: audit, rate limits and retention",
                                                          "v5: safety verdicts and warnings", "v6: thread titles only from allowed messages",
                                                          "v7: abuse limits under a user pseudonym, retained texts", "v8: support grants",
                                                          "v9: story change log", "v10: shared circuit breakers", "v11: prompt releases",
                          "v12: stream journal", "v13: API keys", "v14: review queue", "v15: dashboard rollup",
                          "v16: data keys and regions", "v17: storyteller"])
    }

    @Test("v6 renames a thread a blocked message named after its first allowed message, and leaves other titles alone")
    func titlesFromAllowedMessages() async throws {
        let database = try TemporaryDatabase()
        do {
            let pool = try database.pool()
            try SQLiteSchema.migrator.migrate(pool, upTo: "v5: safety verdicts and warnings")
            try await pool.write { db in
                for (thread, title) in [("t-blocked-first", "You are worthless trash"), ("t-only-blocked", "You are worthless trash"),
                                        ("t-fine", "Who was Aunt Lil?")] {
                    try db.execute(sql: "INSERT INTO thread (id, assistant, userID, title, createdAt, updatedAt) VALUES (?, 'coach', 'u-ruth', ?, ?, ?)",
                                   arguments: [thread, title, t0, t0])
                }
                let messages: [(String, String, Int, String, String)] = [
                    ("m-1", "t-blocked-first", 1, "You are worthless trash", "blocked"),
                    ("m-2", "t-blocked-first", 3, "How do I start a gratitude practice?", "complete"),
                    ("m-3", "t-only-blocked", 1, "You are worthless trash", "blocked"),
                    ("m-4", "t-fine", 1, "Who was Aunt Lil?", "complete"),
                ]
                for (id, thread, sequence, content, status) in messages {
                    try db.execute(sql: """
                        INSERT INTO message (id, threadID, sequence, role, content, status, createdAt, updatedAt)
                        VALUES (?, ?, ?, 'user', ?, ?, ?, ?)
                        """, arguments: [id, thread, sequence, content, status, t0, t0])
                }
            }
        }
        let chats = try SQLiteChatStore(writer: SQLiteStoryStore(path: database.path).writer)
        #expect(try await chats.thread(id: "t-blocked-first")?.title == "How do I start a gratitude practice?")
        #expect(try await chats.thread(id: "t-only-blocked")?.title == "")
        #expect(try await chats.thread(id: "t-fine")?.title == "Who was Aunt Lil?")
    }
}
