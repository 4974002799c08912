import Foundation
import PostgresNIO

/// The PostgreSQL schema as named, ordered migrations: `SQLiteSchema`'s, one for one, under the
/// same names, with the same tables, columns and indexes. Each is applied once, in a
/// transaction of its own, and recorded in `schema_migrations`.
///
/// Identifiers are not quoted, so PostgreSQL folds them to lower case (`threadID` is the
/// column `threadid`): SQL written with SQLite's names runs unchanged, and rows are decoded by
/// position or by the lower-case name. Dates are `timestamptz`, vectors `bytea` (little-endian
/// Float32, as in SQLite), JSON stays `text` (cast to `jsonb` where a query needs it).
enum PostgresSchema {
    /// One named step of the schema; PostgreSQL prepares one statement at a time, so a step
    /// is a list of them.
    struct Migration: Sendable {
        var name: String
        var statements: [String]
    }

    /// The advisory lock every node takes before applying a migration to a schema, so that nodes
    /// starting together apply each once, one after the other: (`'GRIO'`, a hash of the schema's
    /// name). Two 32-bit keys are a space apart from the 64-bit keys the rate limiter locks users
    /// with; the schema in the key lets databases in other schemas (a test each) migrate at once.
    static let lockClass: Int32 = 0x4752_494F

    /// Applies the migrations this database lacks, in order. A database that has them all is
    /// only read (no lock, no write), so a node can start against a read-only replica.
    static func migrate(_ database: PostgresDatabase) async throws {
        let applied = try await appliedNames(database)
        for migration in migrations where !applied.contains(migration.name) {
            do {
                try await database.transaction { connection in
                    try await connection.query("SELECT pg_advisory_xact_lock(\(lockClass), hashtext(current_schema()))", logger: database.logger)
                    try await connection.query("""
                        CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                        """, logger: database.logger)
                    // Another node may have applied it while this one waited for the lock.
                    let done = try await connection.query("SELECT 1 FROM schema_migrations WHERE name = \(migration.name)",
                                                          logger: database.logger).collect()
                    guard done.isEmpty else { return }
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: database.logger)
                    }
                    try await connection.query("INSERT INTO schema_migrations (name) VALUES (\(migration.name))", logger: database.logger)
                }
            } catch let error as PSQLError {
                throw PostgresDatabase.Failure("""
                    Migration "\(migration.name)" failed on \(database.endpoint): \(error.readableDescription); \
                    the database was left as it was before this step. Fix the cause and start again.
                    """)
            }
        }
    }

    /// The names of the migrations recorded in this database (none for a new one).
    static func appliedNames(_ database: PostgresDatabase) async throws -> Set<String> {
        let exists = try await database.client.query("SELECT to_regclass('schema_migrations') IS NOT NULL", logger: database.logger)
            .collect().first?.decode(Bool.self) ?? false
        guard exists else { return [] }
        var names: Set<String> = []
        for try await name in try await database.client.query("SELECT name FROM schema_migrations", logger: database.logger).decode(String.self) {
            names.insert(name)
        }
        return names
    }

    static let migrations: [Migration] = [
        Migration(name: "v1: stories and passages", statements: [
            """
            CREATE TABLE story (
                id text PRIMARY KEY,
                title text NOT NULL,
                privacy text NOT NULL,
                ownerUserID text,
                familyGroupIDs text NOT NULL,
                document text NOT NULL,
                contentHash text NOT NULL,
                ingestedAt timestamptz NOT NULL)
            """,
            """
            CREATE TABLE passage (
                id text PRIMARY KEY,
                storyID text NOT NULL REFERENCES story(id) ON DELETE CASCADE,
                ordinal bigint NOT NULL,
                text text NOT NULL,
                speaker text,
                startSeconds double precision,
                endSeconds double precision,
                startOffset bigint NOT NULL,
                endOffset bigint NOT NULL)
            """,
            "CREATE INDEX passage_by_story ON passage(storyID, ordinal)",
            // Facts about the database itself, e.g. that the demo corpus was seeded once.
            "CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)",
        ]),
        Migration(name: "v2: passage embeddings", statements: [
            // One vector per passage, with the model that made it.
            """
            CREATE TABLE passageEmbedding (
                passageID text PRIMARY KEY REFERENCES passage(id) ON DELETE CASCADE,
                model text NOT NULL,
                vector bytea NOT NULL)
            """,
        ]),
        Migration(name: "v3: threads, messages and turns", statements: [
            """
            CREATE TABLE thread (
                id text PRIMARY KEY,
                assistant text NOT NULL,
                userID text NOT NULL,
                courseID text,
                title text NOT NULL,
                createdAt timestamptz NOT NULL,
                updatedAt timestamptz NOT NULL,
                lastReadMessageID text,
                deletedAt timestamptz)
            """,
            "CREATE INDEX thread_by_user ON thread(userID, assistant, updatedAt)",
            // A coaching thread is created once per user, course and assistant.
            """
            CREATE UNIQUE INDEX thread_per_course ON thread(userID, courseID, assistant)
            WHERE courseID IS NOT NULL AND deletedAt IS NULL
            """,
            """
            CREATE TABLE message (
                id text PRIMARY KEY,
                threadID text NOT NULL REFERENCES thread(id) ON DELETE CASCADE,
                sequence bigint NOT NULL,
                role text NOT NULL,
                content text NOT NULL,
                status text NOT NULL,
                turnID text,
                error text,
                createdAt timestamptz NOT NULL,
                updatedAt timestamptz NOT NULL,
                deletedAt timestamptz,
                UNIQUE (threadID, sequence))
            """,
            """
            CREATE TABLE turn (
                id text PRIMARY KEY,
                threadID text NOT NULL REFERENCES thread(id) ON DELETE CASCADE,
                userMessageID text NOT NULL,
                assistantMessageID text,
                assistant text NOT NULL,
                promptVersion bigint NOT NULL,
                promptHash text NOT NULL,
                provider text NOT NULL,
                model text NOT NULL,
                status text NOT NULL,
                startedAt timestamptz NOT NULL,
                finishedAt timestamptz,
                snapshot text NOT NULL)
            """,
            "CREATE INDEX turn_by_thread ON turn(threadID, startedAt)",
            """
            CREATE TABLE course (
                id text PRIMARY KEY,
                title text NOT NULL,
                summary text NOT NULL DEFAULT '',
                customInstructions text NOT NULL DEFAULT '',
                updatedAt timestamptz NOT NULL)
            """,
            """
            CREATE TABLE profile (
                userID text PRIMARY KEY,
                displayName text,
                bio text NOT NULL DEFAULT '',
                updatedAt timestamptz NOT NULL)
            """,
        ]),
        Migration(name: "v4: audit, rate limits and retention", statements: [
            // A version per message, for conditional edits (the ETag). Existing messages start at 1.
            "ALTER TABLE message ADD COLUMN version bigint NOT NULL DEFAULT 1",
            "CREATE INDEX message_deleted ON message(deletedAt) WHERE deletedAt IS NOT NULL",
            "CREATE INDEX message_by_created ON message(createdAt)",
            "CREATE INDEX thread_deleted ON thread(deletedAt) WHERE deletedAt IS NOT NULL",
            """
            CREATE TABLE archivedMessage (
                id text PRIMARY KEY,
                threadID text NOT NULL REFERENCES thread(id) ON DELETE CASCADE,
                sequence bigint NOT NULL,
                role text NOT NULL,
                content text NOT NULL,
                status text NOT NULL,
                turnID text,
                error text,
                createdAt timestamptz NOT NULL,
                updatedAt timestamptz NOT NULL,
                version bigint NOT NULL,
                archivedAt timestamptz NOT NULL,
                UNIQUE (threadID, sequence))
            """,
            """
            CREATE TABLE auditEntry (
                id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                at timestamptz NOT NULL,
                action text NOT NULL,
                userID text,
                actorID text,
                threadID text,
                messageID text,
                ipHash text,
                moderation text,
                details text)
            """,
            "CREATE INDEX auditEntry_by_at ON auditEntry(at)",
            "CREATE INDEX auditEntry_by_user ON auditEntry(userID, at)",
            "CREATE INDEX auditEntry_by_actor ON auditEntry(actorID, at)",
            "CREATE INDEX auditEntry_by_thread ON auditEntry(threadID, at)",
            "CREATE INDEX auditEntry_by_action ON auditEntry(action, at)",
            // One row per admitted user message, `at` in seconds since 1970.
            "CREATE TABLE rateEvent (userID text NOT NULL, at double precision NOT NULL)",
            "CREATE INDEX rateEvent_by_user ON rateEvent(userID, at)",
            "CREATE INDEX rateEvent_by_at ON rateEvent(at)",
        ]),
        Migration(name: "v5: safety verdicts and warnings", statements: [
            "ALTER TABLE message ADD COLUMN inputMode text NOT NULL DEFAULT 'text'",
            """
            CREATE TABLE safetyVerdict (
                id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                at timestamptz NOT NULL,
                turnID text NOT NULL,
                threadID text NOT NULL,
                messageID text,
                userID text NOT NULL,
                ipHash text,
                stage text NOT NULL,
                score double precision NOT NULL,
                decision text NOT NULL,
                reason text NOT NULL,
                details text)
            """,
            "CREATE INDEX safetyVerdict_by_turn ON safetyVerdict(turnID)",
            "CREATE INDEX safetyVerdict_by_user ON safetyVerdict(userID, at)",
            "CREATE INDEX safetyVerdict_by_at ON safetyVerdict(at)",
            "CREATE TABLE moderationWarning (userID text PRIMARY KEY, count bigint NOT NULL, lastAt timestamptz NOT NULL)",
        ]),
        Migration(name: "v6: thread titles only from allowed messages", statements: [
            // A title taken from a message moderation blocked is replaced by the first allowed
            // message, or cleared (see SQLiteSchema).
            """
            UPDATE thread SET title = COALESCE((
                SELECT substr(trim(allowed.content), 1, 80) FROM message AS allowed
                WHERE allowed.threadID = thread.id AND allowed.role = 'user' AND allowed.status != 'blocked'
                  AND allowed.deletedAt IS NULL AND trim(allowed.content) != ''
                ORDER BY allowed.sequence LIMIT 1), '')
            WHERE EXISTS (
                SELECT 1 FROM message AS refused
                WHERE refused.threadID = thread.id AND refused.role = 'user' AND refused.status = 'blocked'
                  AND substr(refused.content, 1, 80) = thread.title)
            """,
        ]),
        Migration(name: "v7: abuse limits under a user pseudonym, retained texts", statements: [
            // Keyed by an HMAC of the user id (`UserPseudonyms`); counts under plain ids go.
            "ALTER TABLE rateEvent RENAME COLUMN userID TO userKey",
            "ALTER TABLE moderationWarning RENAME COLUMN userID TO userKey",
            "DELETE FROM moderationWarning",
            """
            CREATE TABLE retainedText (
                id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                messageID text NOT NULL,
                threadID text NOT NULL,
                userID text NOT NULL,
                role text NOT NULL,
                reason text NOT NULL,
                version bigint NOT NULL,
                content text NOT NULL,
                keptAt timestamptz NOT NULL,
                purgeAfter timestamptz NOT NULL)
            """,
            "CREATE INDEX retainedText_by_message ON retainedText(messageID)",
            "CREATE INDEX retainedText_by_thread ON retainedText(threadID)",
            "CREATE INDEX retainedText_by_user ON retainedText(userID)",
            "CREATE INDEX retainedText_by_purge ON retainedText(purgeAfter)",
        ]),
        Migration(name: "v8: support grants", statements: [
            """
            CREATE TABLE supportGrant (
                id text PRIMARY KEY,
                ownerUserID text NOT NULL,
                storyIDs text,
                createdAt timestamptz NOT NULL,
                expiresAt timestamptz NOT NULL,
                revokedAt timestamptz)
            """,
            "CREATE INDEX supportGrant_by_owner ON supportGrant(ownerUserID, expiresAt)",
        ]),
        // Every change to the stories, in commit order (writers take the story-save advisory
        // lock, so a sequence is never committed after a higher one): each node's index follows it.
        Migration(name: "v9: story change log", statements: [
            """
            CREATE TABLE storyChange (
                sequence bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                storyID text NOT NULL,
                kind text NOT NULL,
                at timestamptz NOT NULL)
            """,
            "CREATE INDEX storyChange_by_at ON storyChange(at)",
        ]),
        // What the breakers of every node know of a provider (`BreakerStore`).
        Migration(name: "v10: shared circuit breakers", statements: [
            "CREATE TABLE breakerState (name text PRIMARY KEY, openSince double precision, probeUntil double precision)",
        ]),
        // The labels a promotion moves and every promotion attempt (`PromptReleaseStore`).
        Migration(name: "v11: prompt releases", statements: [
            """
            CREATE TABLE promptLabel (
                assistant text NOT NULL,
                label text NOT NULL,
                version integer NOT NULL,
                textHash text NOT NULL,
                updatedAt timestamptz NOT NULL,
                PRIMARY KEY (assistant, label))
            """,
            """
            CREATE TABLE promptPromotion (
                id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                assistant text NOT NULL,
                at timestamptz NOT NULL,
                record text NOT NULL)
            """,
            "CREATE INDEX promptPromotion_by_assistant ON promptPromotion(assistant, id)",
        ]),
        // The events of streaming replies and the nodes' heartbeats (`StreamJournal`).
        Migration(name: "v12: stream journal", statements: [
            """
            CREATE TABLE turnStream (
                turnID text PRIMARY KEY,
                userID text NOT NULL,
                threadID text NOT NULL,
                replyMessageID text NOT NULL,
                nodeID text NOT NULL,
                startedAt timestamptz NOT NULL,
                finishedAt timestamptz,
                listenedAt timestamptz,
                stopRequestedAt timestamptz)
            """,
            "CREATE INDEX turnStream_by_node ON turnStream(nodeID, finishedAt)",
            "CREATE INDEX turnStream_by_thread ON turnStream(threadID, finishedAt)",
            """
            CREATE TABLE turnStreamEvent (
                turnID text NOT NULL,
                number integer NOT NULL,
                name text NOT NULL,
                data text NOT NULL,
                PRIMARY KEY (turnID, number))
            """,
            "CREATE TABLE serviceNode (nodeID text PRIMARY KEY, heartbeatAt timestamptz NOT NULL)",
        ]),
        // Services' credentials, the secret only as its SHA-256 (`APIKeyStore`).
        Migration(name: "v13: API keys", statements: [
            """
            CREATE TABLE apiKey (
                id text PRIMARY KEY,
                name text NOT NULL,
                role text NOT NULL,
                familyIDs text NOT NULL,
                courseIDs text NOT NULL,
                secretHash text NOT NULL,
                requestsPerMinute bigint,
                createdAt timestamptz NOT NULL,
                expiresAt timestamptz,
                revokedAt timestamptz,
                lastUsedAt timestamptz)
            """,
        ]),
        // The review queue and its outbox (`ReviewTicket`, `ReviewDelivery`).
        Migration(name: "v14: review queue", statements: [
            """
            CREATE TABLE reviewTicket (
                id text PRIMARY KEY,
                kind text NOT NULL,
                status text NOT NULL,
                assistant text NOT NULL,
                userID text NOT NULL,
                threadID text NOT NULL,
                turnID text,
                messageID text,
                summary text NOT NULL,
                score double precision,
                reason text,
                note text,
                createdAt timestamptz NOT NULL,
                acknowledgedAt timestamptz,
                acknowledgedBy text,
                resolvedAt timestamptz,
                resolvedBy text,
                resolution text,
                dedupeKey text NOT NULL UNIQUE)
            """,
            "CREATE INDEX reviewTicket_by_created ON reviewTicket(createdAt)",
            "CREATE INDEX reviewTicket_by_status ON reviewTicket(status, createdAt)",
            "CREATE INDEX reviewTicket_by_user ON reviewTicket(userID)",
            """
            CREATE TABLE reviewOutbox (
                ticketID text PRIMARY KEY REFERENCES reviewTicket(id) ON DELETE CASCADE,
                createdAt timestamptz NOT NULL,
                attempts integer NOT NULL DEFAULT 0,
                nextAttemptAt timestamptz NOT NULL,
                lastError text,
                deliveredAt timestamptz,
                remoteKey text,
                leaseOwner text,
                leaseUntil timestamptz)
            """,
            "CREATE INDEX reviewOutbox_due ON reviewOutbox(nextAttemptAt) WHERE deliveredAt IS NULL",
        ]),
        Migration(name: "v15: dashboard rollup", statements: [
            """
            CREATE TABLE turnRollup (
                resolution integer NOT NULL,
                bucketStart bigint NOT NULL,
                node text NOT NULL,
                assistant text NOT NULL,
                model text NOT NULL,
                turns bigint NOT NULL DEFAULT 0,
                tokensIn bigint NOT NULL DEFAULT 0,
                tokensOut bigint NOT NULL DEFAULT 0,
                errors bigint NOT NULL DEFAULT 0,
                flags bigint NOT NULL DEFAULT 0,
                crisis bigint NOT NULL DEFAULT 0,
                rateLimited bigint NOT NULL DEFAULT 0,
                PRIMARY KEY (resolution, bucketStart, node, assistant, model))
            """,
            """
            CREATE TABLE turnRollupCount (
                resolution integer NOT NULL,
                bucketStart bigint NOT NULL,
                node text NOT NULL,
                kind text NOT NULL,
                name text NOT NULL,
                count bigint NOT NULL,
                PRIMARY KEY (resolution, bucketStart, node, kind, name))
            """,
            """
            CREATE TABLE turnRollupLatency (
                resolution integer NOT NULL,
                bucketStart bigint NOT NULL,
                node text NOT NULL,
                measure text NOT NULL,
                bin integer NOT NULL,
                count bigint NOT NULL,
                PRIMARY KEY (resolution, bucketStart, node, measure, bin))
            """,
        ]),
        Migration(name: "v16: data keys and regions", statements: [
            """
            CREATE TABLE dataKey (
                id text PRIMARY KEY,
                scope text NOT NULL UNIQUE,
                masterKeyID text NOT NULL,
                wrapped text NOT NULL,
                createdAt timestamptz NOT NULL)
            """,
            "CREATE INDEX dataKey_master ON dataKey(masterKeyID)",
            "ALTER TABLE apiKey ADD COLUMN region text",
        ]),
        // The storyteller's children, drawings, bedtime stories, chapters and share links
        // (`StorytellerStore`). `sample` is an integer (0 or 1), as SQLite stores it.
        Migration(name: "v17: storyteller", statements: [
            """
            CREATE TABLE child (
                id text PRIMARY KEY,
                parentID text NOT NULL,
                name text NOT NULL,
                age bigint,
                avatar text,
                createdAt timestamptz NOT NULL,
                updatedAt timestamptz NOT NULL)
            """,
            "CREATE INDEX child_by_parent ON child(parentID, createdAt)",
            """
            CREATE TABLE drawing (
                id text PRIMARY KEY,
                parentID text NOT NULL,
                childID text NOT NULL REFERENCES child(id) ON DELETE CASCADE,
                contentHash text NOT NULL,
                mediaType text NOT NULL,
                byteCount bigint NOT NULL,
                width bigint NOT NULL,
                height bigint NOT NULL,
                filename text,
                caption text,
                createdAt timestamptz NOT NULL)
            """,
            "CREATE INDEX drawing_by_child ON drawing(childID, createdAt, id)",
            "CREATE INDEX drawing_by_parent ON drawing(parentID)",
            "CREATE INDEX drawing_by_hash ON drawing(contentHash)",
            """
            CREATE TABLE bedtimeStory (
                id text PRIMARY KEY,
                parentID text NOT NULL,
                childID text NOT NULL REFERENCES child(id) ON DELETE CASCADE,
                theme text,
                createdAt timestamptz NOT NULL,
                updatedAt timestamptz NOT NULL)
            """,
            "CREATE INDEX bedtimeStory_by_child ON bedtimeStory(childID, updatedAt)",
            "CREATE INDEX bedtimeStory_by_parent ON bedtimeStory(parentID)",
            """
            CREATE TABLE bedtimeChapter (
                id text PRIMARY KEY,
                storyID text NOT NULL REFERENCES bedtimeStory(id) ON DELETE CASCADE,
                number bigint NOT NULL,
                text text NOT NULL,
                placements text NOT NULL,
                drawingIDs text NOT NULL,
                sample bigint NOT NULL,
                model text NOT NULL,
                promptVersion bigint NOT NULL,
                turnID text,
                createdAt timestamptz NOT NULL,
                UNIQUE (storyID, number))
            """,
            """
            CREATE TABLE bedtimeStoryShare (
                token text PRIMARY KEY,
                storyID text NOT NULL REFERENCES bedtimeStory(id) ON DELETE CASCADE,
                parentID text NOT NULL,
                createdAt timestamptz NOT NULL,
                revokedAt timestamptz)
            """,
            "CREATE INDEX bedtimeStoryShare_by_story ON bedtimeStoryShare(storyID, createdAt)",
        ]),
    ]
}
