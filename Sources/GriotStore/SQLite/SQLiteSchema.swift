import GRDB

/// The database schema as named, ordered migrations: the one place tables are created or changed.
/// Every store opening the database runs them; GRDB applies each once.
enum SQLiteSchema {
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
        migrator.registerMigration("v4: audit, rate limits and retention") { db in
            // A version per message, so an edit can be made conditional on what the editor saw
            // (the ETag). Existing messages start at 1.
            try db.alter(table: "message") { table in
                table.add(column: "version", .integer).notNull().defaults(to: 1)
            }
            // The scheduled jobs find soft-deleted rows and old messages without scanning.
            try db.execute(sql: "CREATE INDEX message_deleted ON message(deletedAt) WHERE deletedAt IS NOT NULL")
            try db.create(index: "message_by_created", on: "message", columns: ["createdAt"])
            try db.execute(sql: "CREATE INDEX thread_deleted ON thread(deletedAt) WHERE deletedAt IS NOT NULL")
            // Messages older than the archive age, moved out of `message`: every read path of the
            // chat leaves them out without a filter to forget, and an export still reads them.
            try db.create(table: "archivedMessage") { table in
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
                table.column("version", .integer).notNull()
                table.column("archivedAt", .datetime).notNull()
                table.uniqueKey(["threadID", "sequence"])
            }
            // Who did what to which message, when and from where (a salted hash of the IP, made
            // by the HTTP layer). Never the text of a message, so erasing content never has to
            // rewrite the log.
            try db.create(table: "auditEntry") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("at", .datetime).notNull()
                table.column("action", .text).notNull()
                table.column("userID", .text)
                table.column("actorID", .text)
                table.column("threadID", .text)
                table.column("messageID", .text)
                table.column("ipHash", .text)
                table.column("moderation", .text)
                table.column("details", .text)
            }
            try db.create(index: "auditEntry_by_at", on: "auditEntry", columns: ["at"])
            try db.create(index: "auditEntry_by_user", on: "auditEntry", columns: ["userID", "at"])
            try db.create(index: "auditEntry_by_actor", on: "auditEntry", columns: ["actorID", "at"])
            try db.create(index: "auditEntry_by_thread", on: "auditEntry", columns: ["threadID", "at"])
            try db.create(index: "auditEntry_by_action", on: "auditEntry", columns: ["action", "at"])
            // One row per admitted user message, `at` in seconds since 1970 (a number compares
            // faster than a date string); rows older than the longest window are pruned.
            try db.create(table: "rateEvent") { table in
                table.column("userID", .text).notNull()
                table.column("at", .double).notNull()
            }
            try db.create(index: "rateEvent_by_user", on: "rateEvent", columns: ["userID", "at"])
            try db.create(index: "rateEvent_by_at", on: "rateEvent", columns: ["at"])
        }
        migrator.registerMigration("v5: safety verdicts and warnings") { db in
            // How a message arrived: typed, or a voice transcript (which passes the same filters).
            try db.alter(table: "message") { table in
                table.add(column: "inputMode", .text).notNull().defaults(to: "text")
            }
            // Every safety stage's verdict on a turn: the score, the decision and why, with who
            // asked and from where (the salted IP hash). Kept two years (`purgeVerdicts`), and
            // erased with the user.
            try db.create(table: "safetyVerdict") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("at", .datetime).notNull()
                table.column("turnID", .text).notNull()
                table.column("threadID", .text).notNull()
                table.column("messageID", .text)
                table.column("userID", .text).notNull()
                table.column("ipHash", .text)
                table.column("stage", .text).notNull()
                table.column("score", .double).notNull()
                table.column("decision", .text).notNull()
                table.column("reason", .text).notNull()
                table.column("details", .text)
            }
            try db.create(index: "safetyVerdict_by_turn", on: "safetyVerdict", columns: ["turnID"])
            try db.create(index: "safetyVerdict_by_user", on: "safetyVerdict", columns: ["userID", "at"])
            try db.create(index: "safetyVerdict_by_at", on: "safetyVerdict", columns: ["at"])
            // Messages blocked by moderation, counted per user: the warning count a coach or an
            // admin sees, kept while the user's account is.
            try db.create(table: "moderationWarning") { table in
                table.primaryKey("userID", .text)
                table.column("count", .integer).notNull()
                table.column("lastAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v6: thread titles only from allowed messages") { db in
            // Until now the first user message named a thread when it was stored, before
            // moderation: a blocked message could become the title a list and an export print.
            // Such a title is replaced by the first message that was not blocked, or cleared.
            try db.execute(sql: """
                UPDATE thread SET title = COALESCE((
                    SELECT substr(trim(allowed.content), 1, 80) FROM message AS allowed
                    WHERE allowed.threadID = thread.id AND allowed.role = 'user' AND allowed.status != 'blocked'
                      AND allowed.deletedAt IS NULL AND trim(allowed.content) != ''
                    ORDER BY allowed.sequence LIMIT 1), '')
                WHERE EXISTS (
                    SELECT 1 FROM message AS refused
                    WHERE refused.threadID = thread.id AND refused.role = 'user' AND refused.status = 'blocked'
                      AND substr(refused.content, 1, 80) = thread.title)
                """)
        }
        migrator.registerMigration("v7: abuse limits under a user pseudonym, retained texts") { db in
            // Rate-limit rows and warning counts are keyed by an HMAC of the user id
            // (`UserPseudonyms`), so they outlive an erasure without naming the user. Rows made
            // before hold plain ids: rate rows leave their window within a day, and warning
            // counts under a plain id are dropped (they would name an erased user).
            try db.alter(table: "rateEvent") { table in table.rename(column: "userID", to: "userKey") }
            try db.alter(table: "moderationWarning") { table in table.rename(column: "userID", to: "userKey") }
            try db.execute(sql: "DELETE FROM moderationWarning")
            // The one place where the text of a deleted message, or a message's text before an
            // edit, is kept for moderation review (30 days): readable by admins only, each read
            // audited, purged with the message (or 30 days after an edit), erased with the user.
            try db.create(table: "retainedText") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("messageID", .text).notNull()
                table.column("threadID", .text).notNull()
                table.column("userID", .text).notNull()
                table.column("role", .text).notNull()
                table.column("reason", .text).notNull()
                table.column("version", .integer).notNull()
                table.column("content", .text).notNull()
                table.column("keptAt", .datetime).notNull()
                table.column("purgeAfter", .datetime).notNull()
            }
            try db.create(index: "retainedText_by_message", on: "retainedText", columns: ["messageID"])
            try db.create(index: "retainedText_by_thread", on: "retainedText", columns: ["threadID"])
            try db.create(index: "retainedText_by_user", on: "retainedText", columns: ["userID"])
            try db.create(index: "retainedText_by_purge", on: "retainedText", columns: ["purgeAfter"])
        }
        migrator.registerMigration("v8: support grants") { db in
            // A story owner's time-limited permission for operators to read the full text of
            // their private and family-only stories (all of them, or the ones listed).
            try db.create(table: "supportGrant") { table in
                table.primaryKey("id", .text)
                table.column("ownerUserID", .text).notNull()
                table.column("storyIDs", .text)
                table.column("createdAt", .datetime).notNull()
                table.column("expiresAt", .datetime).notNull()
                table.column("revokedAt", .datetime)
            }
            try db.create(index: "supportGrant_by_owner", on: "supportGrant", columns: ["ownerUserID", "expiresAt"])
        }
        migrator.registerMigration("v9: story change log") { db in
            // Every change to the stories, in commit order, written in the transaction that makes
            // it: each node's in-memory index follows the log (`StoryArchive.catchUp`), so a story
            // ingested, deleted or made private through one node is found, or not, on all.
            try db.create(table: "storyChange") { table in
                table.autoIncrementedPrimaryKey("sequence")
                table.column("storyID", .text).notNull()
                table.column("kind", .text).notNull()
                table.column("at", .datetime).notNull()
            }
            try db.create(index: "storyChange_by_at", on: "storyChange", columns: ["at"])
        }
        migrator.registerMigration("v10: shared circuit breakers") { db in
            // What the breakers of every node on the database know of a provider: opened when,
            // and which node's probe holds the half-open slot until when (`BreakerStore`).
            try db.create(table: "breakerState") { table in
                table.primaryKey("name", .text)
                table.column("openSince", .double)
                table.column("probeUntil", .double)
            }
        }
        migrator.registerMigration("v11: prompt releases") { db in
            // The labels a promotion moves, and every promotion attempt, where every node reads
            // them (`PromptReleaseStore`); the prompt files ship with the service.
            try db.create(table: "promptLabel") { table in
                table.column("assistant", .text).notNull()
                table.column("label", .text).notNull()
                table.column("version", .integer).notNull()
                table.column("textHash", .text).notNull()
                table.column("updatedAt", .datetime).notNull()
                table.primaryKey(["assistant", "label"])
            }
            try db.create(table: "promptPromotion") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("assistant", .text).notNull()
                table.column("at", .datetime).notNull()
                table.column("record", .text).notNull()
            }
            try db.create(index: "promptPromotion_by_assistant", on: "promptPromotion", columns: ["assistant", "id"])
        }
        migrator.registerMigration("v12: stream journal") { db in
            // The events of streaming replies, written before they are sent, and the nodes'
            // heartbeats, so that a stream resumes on any node (`StreamJournal`).
            try db.create(table: "turnStream") { table in
                table.primaryKey("turnID", .text)
                table.column("userID", .text).notNull()
                table.column("threadID", .text).notNull()
                table.column("replyMessageID", .text).notNull()
                table.column("nodeID", .text).notNull()
                table.column("startedAt", .datetime).notNull()
                table.column("finishedAt", .datetime)
                table.column("listenedAt", .datetime)
                table.column("stopRequestedAt", .datetime)
            }
            try db.create(index: "turnStream_by_node", on: "turnStream", columns: ["nodeID", "finishedAt"])
            try db.create(index: "turnStream_by_thread", on: "turnStream", columns: ["threadID", "finishedAt"])
            try db.create(table: "turnStreamEvent") { table in
                table.column("turnID", .text).notNull()
                table.column("number", .integer).notNull()
                table.column("name", .text).notNull()
                table.column("data", .text).notNull()
                table.primaryKey(["turnID", "number"])
            }
            try db.create(table: "serviceNode") { table in
                table.primaryKey("nodeID", .text)
                table.column("heartbeatAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v13: API keys") { db in
            // Services' credentials (`APIKeyStore`): the secret only as its SHA-256, the role,
            // families and courses its requests have, and when it was made, expires, was revoked
            // and last used (written at most once a minute).
            try db.create(table: "apiKey") { table in
                table.primaryKey("id", .text)
                table.column("name", .text).notNull()
                table.column("role", .text).notNull()
                table.column("familyIDs", .text).notNull()
                table.column("courseIDs", .text).notNull()
                table.column("secretHash", .text).notNull()
                table.column("requestsPerMinute", .integer)
                table.column("createdAt", .datetime).notNull()
                table.column("expiresAt", .datetime)
                table.column("revokedAt", .datetime)
                table.column("lastUsedAt", .datetime)
            }
        }
        migrator.registerMigration("v14: review queue") { db in
            // Flags that need a person (`ReviewTicket`), opened in the transaction of the verdict
            // or report they come from; `dedupeKey` makes one ticket per flag.
            try db.create(table: "reviewTicket") { table in
                table.primaryKey("id", .text)
                table.column("kind", .text).notNull()
                table.column("status", .text).notNull()
                table.column("assistant", .text).notNull()
                table.column("userID", .text).notNull()
                table.column("threadID", .text).notNull()
                table.column("turnID", .text)
                table.column("messageID", .text)
                table.column("summary", .text).notNull()
                table.column("score", .double)
                table.column("reason", .text)
                table.column("note", .text)
                table.column("createdAt", .datetime).notNull()
                table.column("acknowledgedAt", .datetime)
                table.column("acknowledgedBy", .text)
                table.column("resolvedAt", .datetime)
                table.column("resolvedBy", .text)
                table.column("resolution", .text)
                table.column("dedupeKey", .text).notNull().unique()
            }
            try db.create(index: "reviewTicket_by_created", on: "reviewTicket", columns: ["createdAt"])
            try db.create(index: "reviewTicket_by_status", on: "reviewTicket", columns: ["status", "createdAt"])
            try db.create(index: "reviewTicket_by_user", on: "reviewTicket", columns: ["userID"])
            // Each ticket's delivery to the tracker (`ReviewDelivery`): attempts, when next, the
            // last error, when delivered and the tracker's key, and the lease of the node posting it.
            try db.create(table: "reviewOutbox") { table in
                table.primaryKey("ticketID", .text).references("reviewTicket", onDelete: .cascade)
                table.column("createdAt", .datetime).notNull()
                table.column("attempts", .integer).notNull().defaults(to: 0)
                table.column("nextAttemptAt", .datetime).notNull()
                table.column("lastError", .text)
                table.column("deliveredAt", .datetime)
                table.column("remoteKey", .text)
                table.column("leaseOwner", .text)
                table.column("leaseUntil", .datetime)
            }
            try db.create(index: "reviewOutbox_due", on: "reviewOutbox", columns: ["deliveredAt", "nextAttemptAt"])
        }
        migrator.registerMigration("v15: dashboard rollup") { db in
            // The dashboard's counts (`TurnRollupStore`), added to as each turn finishes: one row
            // per resolution (60 or 900 s), bucket start (seconds since 1970), node, assistant and
            // model. The primary key leads with the bucket, so a range reads only its rows.
            try db.create(table: "turnRollup", options: .withoutRowID) { table in
                table.column("resolution", .integer).notNull()
                table.column("bucketStart", .integer).notNull()
                table.column("node", .text).notNull()
                table.column("assistant", .text).notNull()
                table.column("model", .text).notNull()
                for column in ["turns", "tokensIn", "tokensOut", "errors", "flags", "crisis", "rateLimited"] {
                    table.column(column, .integer).notNull().defaults(to: 0)
                }
                table.primaryKey(["resolution", "bucketStart", "node", "assistant", "model"])
            }
            // Errors by code and flags by category (`kind` "error" or "flag"), per bucket and node.
            try db.create(table: "turnRollupCount", options: .withoutRowID) { table in
                table.column("resolution", .integer).notNull()
                table.column("bucketStart", .integer).notNull()
                table.column("node", .text).notNull()
                table.column("kind", .text).notNull()
                table.column("name", .text).notNull()
                table.column("count", .integer).notNull()
                table.primaryKey(["resolution", "bucketStart", "node", "kind", "name"])
            }
            // The latency histograms (`LatencyHistogram`), only their non-empty bins: `measure` is
            // "first_token" or "turn".
            try db.create(table: "turnRollupLatency", options: .withoutRowID) { table in
                table.column("resolution", .integer).notNull()
                table.column("bucketStart", .integer).notNull()
                table.column("node", .text).notNull()
                table.column("measure", .text).notNull()
                table.column("bin", .integer).notNull()
                table.column("count", .integer).notNull()
                table.primaryKey(["resolution", "bucketStart", "node", "measure", "bin"])
            }
        }
        migrator.registerMigration("v16: data keys and regions") { db in
            // Envelope encryption (`FieldCipher`): a data key per user (and per non-public
            // story), wrapped by a master key named beside it; `scope` is `user:ID`, `story:ID`
            // or `service`. Deleting a user's key leaves every copy of their ciphertext unreadable.
            try db.create(table: "dataKey") { table in
                table.column("id", .text).primaryKey()
                table.column("scope", .text).notNull().unique()
                table.column("masterKeyID", .text).notNull()
                table.column("wrapped", .text).notNull()
                table.column("createdAt", .datetime).notNull()
            }
            try db.create(index: "dataKey_master", on: "dataKey", columns: ["masterKeyID"])
            // The region of an API key's users (residency); NULL is the node's default region.
            try db.alter(table: "apiKey") { table in table.add(column: "region", .text) }
        }
        migrator.registerMigration("v17: storyteller") { db in
            // The storyteller's children, drawings, bedtime stories, chapters and share links
            // (`StorytellerStore`), each row under its parent (a signed-in user); a child's rows
            // go with it. Drawings' bytes are in the blob store, named by `contentHash`.
            try db.create(table: "child") { table in
                table.primaryKey("id", .text)
                table.column("parentID", .text).notNull()
                table.column("name", .text).notNull()
                table.column("age", .integer)
                table.column("avatar", .text)
                table.column("createdAt", .datetime).notNull()
                table.column("updatedAt", .datetime).notNull()
            }
            try db.create(index: "child_by_parent", on: "child", columns: ["parentID", "createdAt"])
            try db.create(table: "drawing") { table in
                table.primaryKey("id", .text)
                table.column("parentID", .text).notNull()
                table.column("childID", .text).notNull().references("child", onDelete: .cascade)
                table.column("contentHash", .text).notNull()
                table.column("mediaType", .text).notNull()
                table.column("byteCount", .integer).notNull()
                table.column("width", .integer).notNull()
                table.column("height", .integer).notNull()
                table.column("filename", .text)
                table.column("caption", .text)
                table.column("createdAt", .datetime).notNull()
            }
            // A child's drawings newest first (the list and its cursor), the parent's count, and
            // whether any drawing still names a blob.
            try db.create(index: "drawing_by_child", on: "drawing", columns: ["childID", "createdAt", "id"])
            try db.create(index: "drawing_by_parent", on: "drawing", columns: ["parentID"])
            try db.create(index: "drawing_by_hash", on: "drawing", columns: ["contentHash"])
            try db.create(table: "bedtimeStory") { table in
                table.primaryKey("id", .text)
                table.column("parentID", .text).notNull()
                table.column("childID", .text).notNull().references("child", onDelete: .cascade)
                table.column("theme", .text)
                table.column("createdAt", .datetime).notNull()
                table.column("updatedAt", .datetime).notNull()
            }
            try db.create(index: "bedtimeStory_by_child", on: "bedtimeStory", columns: ["childID", "updatedAt"])
            try db.create(index: "bedtimeStory_by_parent", on: "bedtimeStory", columns: ["parentID"])
            // `placements` and `drawingIDs` are JSON; one number per chapter of a story.
            try db.create(table: "bedtimeChapter") { table in
                table.primaryKey("id", .text)
                table.column("storyID", .text).notNull().references("bedtimeStory", onDelete: .cascade)
                table.column("number", .integer).notNull()
                table.column("text", .text).notNull()
                table.column("placements", .text).notNull()
                table.column("drawingIDs", .text).notNull()
                table.column("sample", .integer).notNull()
                table.column("model", .text).notNull()
                table.column("promptVersion", .integer).notNull()
                table.column("turnID", .text)
                table.column("createdAt", .datetime).notNull()
                table.uniqueKey(["storyID", "number"])
            }
            try db.create(table: "bedtimeStoryShare") { table in
                table.primaryKey("token", .text)
                table.column("storyID", .text).notNull().references("bedtimeStory", onDelete: .cascade)
                table.column("parentID", .text).notNull()
                table.column("createdAt", .datetime).notNull()
                table.column("revokedAt", .datetime)
            }
            try db.create(index: "bedtimeStoryShare_by_story", on: "bedtimeStoryShare", columns: ["storyID", "createdAt"])
        }
        return migrator
    }
}
