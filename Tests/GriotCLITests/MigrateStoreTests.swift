import Foundation
import GriotArchive
import GriotPostgres
import GriotStore
import GriotStories
import GRDB
import Testing

/// `griot migrate-store`, run as an operator runs it: a SQLite installation filled through the
/// stores' public API, moved into a fresh PostgreSQL database (scripts/postgres.sh), checked,
/// killed part-way and resumed, and refused where it must not copy.
@Suite("griot migrate-store", .serialized)
struct MigrateStoreTests {
    /// Milliseconds that a double holds exactly (.125): GRDB's parse of "…00.123" and the
    /// PostgreSQL store's millisecond rounding land one ulp apart, so records with such dates
    /// compare unequal across the backends although the stored instants are the same (the
    /// checksums, in whole microseconds, show that).
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000.125)
    static let model = "all-MiniLM-L6-v2"

    @Test("Every table arrives with its ids, counts and checksums agree, and the PostgreSQL stores read back the same records")
    func migratesEverythingAndReadsBackEqual() async throws {
        let sandbox = try GriotSandbox()
        let fixture = try await Self.fillInstallation(at: sandbox.database)
        let url = try Self.freshDatabase()

        let run = try Self.migrate(sandbox, to: url)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("all \(Self.tables.count) tables match"), "\(run.output)")
        for table in MigrateStoreTests.tables {
            #expect(run.output.contains(table), "\(table) missing from the report")
        }
        #expect(run.errors.contains("passage"))

        let sqlite = try SQLiteStoryStore(path: sandbox.database).storage()
        let database = try await PostgresDatabase.open(url: url)
        // A salt, so that opening the stores writes no pseudonym secret into the migrated meta.
        let postgres = try await database.storage(environment: ["GRIOT_AUDIT_SALT": "migrate-store-tests"])
        #expect(try await postgres.stories.allStories() == (try await sqlite.stories.allStories()))
        #expect(try await postgres.stories.allPassages() == (try await sqlite.stories.allPassages()))
        #expect(try await postgres.stories.embeddings(model: Self.model) == (try await sqlite.stories.embeddings(model: Self.model)))
        #expect(try await postgres.stories.metaValue("seeded") == "李秀英")
        for resolution in RollupResolution.allCases {
            let (first, last) = (resolution.bucketStart(Self.t0 - 3_600), resolution.bucketStart(Self.t0 + 3_600))
            let report = try await sqlite.chats.rollupReport(from: first, through: last, resolution: resolution)
            #expect(report.buckets.contains { $0.turns > 0 }, "the fixture's rollup is in the SQLite report")
            #expect(try await postgres.chats.rollupReport(from: first, through: last, resolution: resolution) == report)
        }
        for (userID, assistant) in [("u-zofia", "griot"), ("u-xiuying", "griot"), ("u-zofia", "coach")] {
            let threads = try await sqlite.chats.threads(userID: userID, assistant: assistant)
            #expect(try await postgres.chats.threads(userID: userID, assistant: assistant) == threads)
            for thread in threads {
                #expect(try await postgres.chats.messages(threadID: thread.id, limit: 500).messages
                    == (try await sqlite.chats.messages(threadID: thread.id, limit: 500).messages))
                #expect(try await postgres.chats.turns(threadID: thread.id, includingDeleted: true)
                    == (try await sqlite.chats.turns(threadID: thread.id, includingDeleted: true)))
                #expect(try await postgres.chats.archivedMessages(threadID: thread.id)
                    == (try await sqlite.chats.archivedMessages(threadID: thread.id)))
            }
        }
        #expect(!fixture.archivedThreadID.isEmpty)
        #expect(try await postgres.chats.archivedMessages(threadID: fixture.archivedThreadID).count == 2)
        for id in fixture.messageIDs {
            #expect(try await postgres.chats.message(id: id, includingDeleted: true) == (try await sqlite.chats.message(id: id, includingDeleted: true)))
        }
        #expect(try await postgres.chats.message(id: fixture.deletedMessageID, includingDeleted: true)?.deletedAt != nil)
        #expect(try await postgres.chats.message(id: fixture.editedMessageID)?.version == 2)
        let audit = try await sqlite.chats.auditEntries(AuditFilter())
        #expect(audit.count >= 5)
        #expect(try await postgres.chats.auditEntries(AuditFilter()) == audit)
        #expect(try await postgres.chats.verdicts(turnID: fixture.turnID) == (try await sqlite.chats.verdicts(turnID: fixture.turnID)))
        #expect(try await postgres.chats.supportGrants(ownerUserID: "u-zofia") == (try await sqlite.chats.supportGrants(ownerUserID: "u-zofia")))
        #expect(try await postgres.keys.apiKeys() == (try await sqlite.keys.apiKeys()))
        #expect(try await postgres.chats.course(id: "course-1") == (try await sqlite.chats.course(id: "course-1")))
        #expect(try await postgres.chats.profile(userID: "u-xiuying") == (try await sqlite.chats.profile(userID: "u-xiuying")))
        #expect(try await postgres.chats.promptLabels() == (try await sqlite.chats.promptLabels()))
        #expect(try await postgres.chats.promotions(assistant: "griot") == (try await sqlite.chats.promotions(assistant: "griot")))
        #expect(try await postgres.chats.breakerState("openai")?.openSince == 1_000_000.5)

        // Run again: nothing left to copy, only the verification, which still agrees.
        let again = try Self.migrate(sandbox, to: url)
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.output.contains("all \(Self.tables.count) tables match"))

        // A row changed in the target after the copy (same count): the checksum tells.
        try await postgres.chats.saveCourse(CourseRecord(id: "course-1", title: "Oral history 102", updatedAt: Self.t0))
        let changed = try Self.migrate(sandbox, to: url)
        #expect(changed.status == 1)
        #expect(changed.output.split(separator: "\n").contains { $0.hasPrefix("course ") && $0.hasSuffix("DIFFERS") }, "\(changed.output)")
        #expect(changed.output.contains("1 of \(Self.tables.count) tables differ"))
        #expect(changed.errors.contains("differs from the source in course."), "\(changed.errors)")

        // The identity sequences moved past the copied ids: the next entry takes the next id.
        let next = try await postgres.chats.recordAudit(AuditEntry(at: Self.t0, action: "thread.read", userID: "u-zofia"))
        #expect(next.id == (audit.compactMap(\.id).max() ?? 0) + 1)
        await database.close()

        // A row written after the copy is not the migration's: a further run says so.
        let after = try Self.migrate(sandbox, to: url)
        #expect(after.status == 1)
        #expect(after.errors.contains("auditEntry \(audit.count + 1) rows where the migration copied \(audit.count)"), "\(after.errors)")
    }

    @Test("A run killed inside a batch and started again continues after the last committed batch, duplicating nothing")
    func aKilledRunResumes() async throws {
        let sandbox = try GriotSandbox()
        try await Self.fillInstallation(at: sandbox.database)
        let url = try Self.freshDatabase()

        // Batches of 3 rows: the kill lands in the passages first, then among the chats.
        var run = try Self.migrate(sandbox, to: url, batchSize: 3, environment: ["GRIOT_MIGRATE_KILL_AT_BATCH": "4"])
        #expect(run.status == SIGKILL, "\(run.output)\(run.errors)")
        #expect(!run.output.contains("tables match"))
        run = try Self.migrate(sandbox, to: url, batchSize: 3, environment: ["GRIOT_MIGRATE_KILL_AT_BATCH": "9"])
        #expect(run.status == SIGKILL, "\(run.output)\(run.errors)")
        // A larger batch on the last leg: the key, not the batch size, says where to go on.
        run = try Self.migrate(sandbox, to: url, batchSize: 1_000)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("all \(Self.tables.count) tables match"), "\(run.output)")
    }

    @Test("A SQLite database that lacks a migration is refused, with how to migrate it")
    func refusesAnUnmigratedSource() async throws {
        let sandbox = try GriotSandbox()
        try await Self.fillInstallation(at: sandbox.database)
        let queue = try DatabaseQueue(path: sandbox.database)
        try await queue.write { db in
            try db.execute(sql: "DROP TABLE supportGrant")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v8: support grants'")
        }
        try queue.close()
        let url = try Self.freshDatabase()
        let run = try Self.migrate(sandbox, to: url)
        #expect(run.status == 1)
        #expect(run.errors.contains("lacks the migrations \"v8: support grants\""), "\(run.errors)")
        #expect(run.errors.contains("open it once with the current griot"))
    }

    @Test("A target holding rows the migration did not copy is refused, saying what is there and to use a fresh database")
    func refusesATargetWithRows() async throws {
        let sandbox = try GriotSandbox()
        try await Self.fillInstallation(at: sandbox.database)
        let url = try Self.freshDatabase()
        // A node that once started on it: its pseudonym secret in meta, and a thread.
        let database = try await PostgresDatabase.open(url: url)
        let storage = try await database.storage(environment: [:])
        _ = try await storage.chats.createThread(assistant: "griot", userID: "u-early")
        await database.close()

        let run = try Self.migrate(sandbox, to: url)
        #expect(run.status == 1)
        #expect(run.errors.contains("already holds rows this migration did not copy (meta 1 rows; thread 1 rows)"), "\(run.errors)")
        #expect(run.errors.contains("fresh, empty database"))
    }

    @Test("A target part-way through a migration from another SQLite file is refused, naming that file")
    func refusesAnotherSourceOnResume() async throws {
        let first = try GriotSandbox()
        let second = try GriotSandbox()
        try await Self.fillInstallation(at: first.database)
        try await Self.fillInstallation(at: second.database)
        let url = try Self.freshDatabase()
        var run = try Self.migrate(first, to: url, batchSize: 2, environment: ["GRIOT_MIGRATE_KILL_AT_BATCH": "2"])
        #expect(run.status == SIGKILL)
        run = try Self.migrate(second, to: url)
        #expect(run.status == 1)
        #expect(run.errors.contains("holds a migration from \(first.database)"), "\(run.errors)")
    }

    @Test("--from and --to must name a SQLite file and a PostgreSQL URL")
    func refusesSwappedLocations() throws {
        let sandbox = try GriotSandbox()
        let run = try sandbox.run(["migrate-store", "--from", "postgres://griot:griot@127.0.0.1:54329/griot", "--to", "sqlite:x.sqlite"],
                                  useDefaultDatabase: true)
        #expect(run.status != 0)
        #expect(run.errors.contains("--from is where the data is now"), "\(run.errors)")
    }

    // MARK: Fixtures

    static let tables = [
        "story", "passage", "passageEmbedding", "meta", "thread", "message", "archivedMessage", "turn", "course",
        "profile", "auditEntry", "rateEvent", "safetyVerdict", "moderationWarning", "retainedText", "supportGrant", "storyChange",
        "breakerState", "promptLabel", "promptPromotion", "apiKey", "reviewTicket", "reviewOutbox",
        "turnRollup", "turnRollupCount", "turnRollupLatency", "dataKey",
        "child", "drawing", "bedtimeStory", "bedtimeChapter", "bedtimeStoryShare",
    ]

    struct Installation {
        var messageIDs: [String] = []
        var editedMessageID = ""
        var deletedMessageID = ""
        var archivedThreadID = ""
        var turnID = ""
    }

    /// An installation as it looks after some use: stories with passages and vectors, chats in
    /// several scripts with edits, deletes and archived messages, turns, audit, verdicts,
    /// warnings, rate events, a course, a profile and support grants.
    @discardableResult
    static func fillInstallation(at path: String) async throws -> Installation {
        let storage = try SQLiteStoryStore(path: path).storage()
        var installation = Installation()
        let names = ["Zofia Łukasiewicz", "李秀英", "Ida Mae Carter"]
        var batch: [(story: Story, passages: [Passage])] = []
        for (index, name) in names.enumerated() {
            let id = "story-\(index)"
            let texts = ["\(name) remembers the winter of 1936.", "Grandma's pie 🥧 and 👨‍👩‍👧‍👦, Ame\u{301}lie said.",
                         "مرحبا، هل تتذكر جدتي فاطمة؟", "Ελληνικά, हिन्दी, ไทย, 한국어"]
            let story = Story(artifactID: id, title: "\(name): an interview", interviewees: [name], privacy: index == 0 ? .public : .private,
                              ownerUserID: index == 0 ? nil : "u-zofia", familyGroupIDs: index == 2 ? ["fam-carter"] : [],
                              transcript: Transcript(text: texts.joined(separator: " ")))
            var offset = 0
            let passages = texts.enumerated().map { ordinal, text in
                defer { offset += text.utf8.count + 1 }
                return Passage(id: "\(id)-p\(ordinal)", storyID: id, ordinal: ordinal, text: text, speaker: ordinal % 2 == 0 ? name : nil,
                               startSeconds: ordinal == 3 ? nil : Double(ordinal) * 12.345, endSeconds: ordinal == 3 ? nil : Double(ordinal) * 12.345 + 0.1,
                               startOffset: offset, endOffset: offset + text.utf8.count)
            }
            batch.append((story, passages))
        }
        _ = try await storage.stories.save(batch, revision: "r1")
        // Vectors with the awkward floats: negative zero, the smallest subnormal, the extremes.
        let vectors = batch.flatMap(\.passages).enumerated().map { index, passage in
            (passageID: passage.id, vector: (0..<384).map { Float($0 + index) / 384 - 0.5 } + [-0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -1e-38])
        }
        try await storage.stories.saveEmbeddings(vectors, model: model)
        try await storage.stories.setMetaValue("seeded", "李秀英")

        let chats = storage.chats
        try await chats.saveCourse(CourseRecord(id: "course-1", title: "Oral history 101", summary: "Zofia Łukasiewicz's course",
                                                customInstructions: "Answer in 中文 when asked.", updatedAt: t0))
        try await chats.saveProfile(ProfileRecord(userID: "u-xiuying", displayName: "李秀英", bio: "Grew up in Chengdu.", updatedAt: t0))
        try await chats.saveProfile(ProfileRecord(userID: "u-zofia", displayName: nil, bio: "", updatedAt: t0 + 0.375))

        // An old thread whose messages are archived, then current ones.
        let old = try await chats.createThread(assistant: "griot", userID: "u-zofia", title: "Winter of 1936", now: t0 - 86_400 * 800)
        try await exchange(chats, thread: old.id, question: "Who was Zofia Łukasiewicz?", reply: "A teacher in Kraków.", at: t0 - 86_400 * 800,
                           into: &installation)
        installation.archivedThreadID = old.id
        for (user, assistant, text) in [("u-zofia", "griot", "Tell me about Zofia Łukasiewicz"), ("u-xiuying", "griot", "李秀英的故事"),
                                        ("u-zofia", "coach", "Grandma's pie 🥧👵🏽")] {
            let thread = try await chats.createThread(assistant: assistant, userID: user, courseID: assistant == "coach" ? "course-1" : nil,
                                                      title: text, now: t0)
            for round in 0..<4 {
                try await exchange(chats, thread: thread.id, question: "\(text) (\(round))", reply: "Reply \(round): \(text)",
                                   at: t0 + Double(round) * 60.5, into: &installation)
            }
        }
        let edited = try #require(try await chats.message(id: installation.messageIDs[2]))
        installation.editedMessageID = try await chats.editMessage(id: edited.id, content: "Edited: who was 李秀英?", ifMatch: edited.etag,
                                                                   by: edited.role == .user ? "u-zofia" : "admin", now: t0 + 1_000).id
        installation.deletedMessageID = installation.messageIDs[4]
        _ = try await chats.softDeleteMessage(id: installation.deletedMessageID, by: "u-zofia", now: t0 + 2_000)
        let deletedThread = try await chats.createThread(assistant: "griot", userID: "u-xiuying", title: "gone", now: t0)
        _ = try await chats.appendMessage(threadID: deletedThread.id, role: .user, content: "delete me", now: t0)
        _ = try await chats.softDeleteThread(id: deletedThread.id, by: "u-xiuying", now: t0 + 3_000)
        _ = try await chats.archiveMessages(olderThan: DateComponents(month: 18), now: t0, batchSize: 100)

        try await chats.recordVerdicts([
            SafetyVerdictRecord(at: t0, turnID: installation.turnID, threadID: old.id, messageID: nil, userID: "u-zofia", ipHash: "ab12",
                                stage: "moderation", score: 0.125, decision: "allow", reason: "clean"),
            SafetyVerdictRecord(at: t0 + 0.5, turnID: installation.turnID, threadID: old.id, messageID: installation.messageIDs[0], userID: "u-zofia",
                                ipHash: nil, stage: "groundedness", score: 1.0 / 3.0, decision: "flag", reason: "weak: 李秀英", details: #"{"k":1}"#),
        ])
        _ = try await chats.addModerationWarning(userID: "u-zofia", now: t0)
        _ = try await chats.recordAudit(AuditEntry(at: t0, action: "thread.export", userID: "u-zofia", actorID: "coach-1",
                                                   details: "Zofia Łukasiewicz"))
        let grant = try await chats.createSupportGrant(SupportGrant(ownerUserID: "u-zofia", stories: ["story-1"], createdAt: t0,
                                                                      expiresAt: t0 + 86_400))
        _ = try await chats.revokeSupportGrant(id: grant.id, at: t0 + 60)
        _ = try await chats.createSupportGrant(SupportGrant(ownerUserID: "u-zofia", stories: nil, createdAt: t0, expiresAt: t0 + 86_400 * 7))
        let key = try await chats.createAPIKey(APIKey.make(name: "Zofia's exporter", role: "coach", families: ["fam-ł"], courses: ["c-1"],
                                                           expiresAt: t0 + 86_400, requestsPerMinute: 60, now: t0).key)
        _ = try await chats.recordAPIKeyUse(id: key.id, at: t0 + 30)
        let limiter = try storage.rateLimiter([.perMinute(100)])
        for user in ["u-zofia", "u-xiuying", "u-zofia"] { _ = try await limiter.admit(userID: user, now: t0) }
        try await chats.openBreaker("openai", since: 1_000_000.5)
        // The same label of two assistants: the table's key is both columns.
        try await chats.setPromptLabel(assistant: "griot", label: "production", release: PromptRelease(version: 2, textHash: "sha256:aa"), at: t0)
        try await chats.setPromptLabel(assistant: "coach", label: "production", release: PromptRelease(version: 1, textHash: "sha256:bb"), at: t0)
        try await chats.appendPromotion(assistant: "griot", record: #"{"promoted":true,"by":"李秀英"}"#, at: t0)
        // The dashboard's rollup: WITHOUT ROWID tables keyed by several columns, copied in key
        // order by position. Two nodes, an error, a flag, latency bins and a refusal.
        for (index, node) in ["node-ł", "node-李"].enumerated() {
            var rollup = TurnRollup(at: t0 + Double(index) * 600, node: node, assistant: "griot", model: "griot-extractive-1")
            rollup.turns = 1
            rollup.tokensIn = 800 + index
            rollup.tokensOut = 120
            rollup.errors = index
            rollup.errorCodes = index == 1 ? ["provider_error": 1] : [:]
            rollup.flags = ["low_groundedness": 1]
            rollup.firstToken.record(milliseconds: 90)
            rollup.latency.record(milliseconds: 420 + Double(index) * 100)
            try await chats.addRollup(rollup)
        }
        try await chats.addRollup(.refusal(at: t0, node: "node-ł"))
        return installation
    }

    private static func exchange(_ chats: any ChatStore, thread: String, question: String, reply: String, at: Date,
                                 into installation: inout Installation) async throws {
        let turnID = UUID().uuidString.lowercased()
        let asked = try await chats.appendMessage(threadID: thread, role: .user, content: question, turnID: turnID, now: at)
        let answered = try await chats.appendMessage(threadID: thread, role: .assistant, content: reply, turnID: turnID, now: at + 0.25)
        try await chats.saveTurn(TurnRecord(id: turnID, threadID: thread, userMessageID: asked.id, assistantMessageID: answered.id, assistant: "griot",
                                            promptVersion: 3, promptHash: "h-\(turnID.prefix(4))", provider: "extractive", model: "griot-extractive-1",
                                            status: .complete, startedAt: at, finishedAt: at + 0.25,
                                            snapshot: #"{"question":"\#(question)","text":"\#(reply)"}"#))
        installation.messageIDs += [asked.id, answered.id]
        if installation.turnID.isEmpty { installation.turnID = turnID }
    }

    /// A new, empty database in the cluster scripts/postgres.sh runs; its URL.
    static func freshDatabase() throws -> String {
        let process = Process()
        process.executableURL = GriotSandbox.packageRoot.appendingPathComponent("scripts/postgres.sh")
        process.arguments = ["createdb", "griot_migrate_" + UUID().uuidString.prefix(8).lowercased()]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let url = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, url.hasPrefix("postgres://") else {
            throw StoreMigrationTestError(description: "scripts/postgres.sh createdb failed (\(process.terminationStatus)); is PostgreSQL 15 installable here?")
        }
        return url
    }

    static func migrate(_ sandbox: GriotSandbox, to url: String, batchSize: Int? = nil, environment: [String: String] = [:]) throws -> GriotRun {
        var arguments = ["migrate-store", "--from", "sqlite:\(sandbox.database)", "--to", url]
        if let batchSize { arguments += ["--batch-size", String(batchSize)] }
        return try sandbox.run(arguments, useDefaultDatabase: true, environment: environment)
    }
}

struct StoreMigrationTestError: Error, CustomStringConvertible {
    var description: String
}
