import GRDB

/// The database schema as named, ordered migrations: the one place tables are created or changed.
/// Every store opening the database runs them; GRDB applies each once.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: stories and passages") { db in
            try db.create(table: "story") { table in
                table.primaryKey("id", .text)
                table.column("title", .text).notNull()
                table.column("privacy", .text).notNull()
                table.column("ownerUserID", .text)
                table.column("familyGroupIDs", .text).notNull()
                table.column("document", .text).notNull()
                table.column("contentHash", .text).notNull()
                table.column("ingestedAt", .datetime).notNull()
            }
            try db.create(table: "passage") { table in
                table.primaryKey("id", .text)
                table.column("storyID", .text).notNull().references("story", onDelete: .cascade)
                table.column("ordinal", .integer).notNull()
                table.column("text", .text).notNull()
                table.column("speaker", .text)
                table.column("startSeconds", .double)
                table.column("endSeconds", .double)
                table.column("startOffset", .integer).notNull()
                table.column("endOffset", .integer).notNull()
            }
            try db.create(index: "passage_by_story", on: "passage", columns: ["storyID", "ordinal"])
            // Facts about the database itself, e.g. that the demo corpus was seeded once.
            try db.create(table: "meta") { table in
                table.primaryKey("key", .text)
                table.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2: passage embeddings") { db in
            // One vector per passage, with the model that made it, so a restart never re-embeds
            // unchanged passages and a model change is noticed.
            try db.create(table: "passageEmbedding") { table in
                table.primaryKey("passageID", .text).references("passage", onDelete: .cascade)
                table.column("model", .text).notNull()
                table.column("vector", .blob).notNull()
            }
        }
        migrator.registerMigration("v3: threads, messages and turns") { db in
            // One conversation of one user with one assistant (for the coach: per course).
            try db.create(table: "thread") { table in
                table.primaryKey("id", .text)
                table.column("assistant", .text).notNull()
                table.column("userID", .text).notNull()
                table.column("courseID", .text)
                table.column("title", .text).notNull()
                table.column("createdAt", .datetime).notNull()
                table.column("updatedAt", .datetime).notNull()
                table.column("lastReadMessageID", .text)
                table.column("deletedAt", .datetime)
            }
            try db.create(index: "thread_by_user", on: "thread", columns: ["userID", "assistant", "updatedAt"])
            // A coaching thread is created once per user, course and assistant.
            try db.execute(sql: """
                CREATE UNIQUE INDEX thread_per_course ON thread(userID, courseID, assistant)
                WHERE courseID IS NOT NULL AND deletedAt IS NULL
                """)
            // Messages in the order they were sent; `status` says whether a reply completed,
            // was stopped or failed, so a partial reply is never mistaken for a whole one.
            try db.create(table: "message") { table in
                table.primaryKey("id", .text)
                table.column("threadID", .text).notNull().references("thread", onDelete: .cascade)
                table.column("sequence", .integer).notNull()
                table.column("role", .text).notNull()
                table.column("content", .text).notNull()
                table.column("status", .text).notNull()
                table.column("turnID", .text)
                table.column("error", .text)
                table.column("createdAt", .datetime).notNull()
                table.column("updatedAt", .datetime).notNull()
                table.column("deletedAt", .datetime)
                table.uniqueKey(["threadID", "sequence"])
            }
            // What produced each reply: prompt version and hash, provider and model, and a JSON
            // snapshot (ledger, passages, citations) so that a turn can be explained and replayed.
            try db.create(table: "turn") { table in
                table.primaryKey("id", .text)
                table.column("threadID", .text).notNull().references("thread", onDelete: .cascade)
                table.column("userMessageID", .text).notNull()
                table.column("assistantMessageID", .text)
                table.column("assistant", .text).notNull()
                table.column("promptVersion", .integer).notNull()
                table.column("promptHash", .text).notNull()
                table.column("provider", .text).notNull()
                table.column("model", .text).notNull()
                table.column("status", .text).notNull()
                table.column("startedAt", .datetime).notNull()
                table.column("finishedAt", .datetime)
                table.column("snapshot", .text).notNull()
            }
            try db.create(index: "turn_by_thread", on: "turn", columns: ["threadID", "startedAt"])
            // A course's metadata and the coach's custom instructions ("AI Bot Instructions").
            try db.create(table: "course") { table in
                table.primaryKey("id", .text)
                table.column("title", .text).notNull()
                table.column("summary", .text).notNull().defaults(to: "")
                table.column("customInstructions", .text).notNull().defaults(to: "")
                table.column("updatedAt", .datetime).notNull()
            }
            // What the user wrote about themselves; part of the context the model sees.
            try db.create(table: "profile") { table in
                table.primaryKey("userID", .text)
                table.column("displayName", .text)
                table.column("bio", .text).notNull().defaults(to: "")
                table.column("updatedAt", .datetime).notNull()
            }
        }
        return migrator
    }
}
