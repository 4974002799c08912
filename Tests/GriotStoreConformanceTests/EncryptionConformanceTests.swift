import Foundation
import GRDB
import GriotPostgres
import GriotStore
import GriotStories
import GriotTestSupport
import PostgresNIO
import Testing

/// Envelope encryption at rest (issue 38), on both backends, with keyrings made here (whatever
/// `GRIOT_MASTER_KEY_FILE` says): every encrypted column reads back as written while the
/// database holds only sealed values, a sealed value moved to another row does not open, an
/// erasure leaves nothing of the user and shreds their data key, a database refuses a keyring
/// that cannot open it (naming the master key), rotation re-wraps the data keys, and the
/// retention report counts what the jobs have still to do.
@Suite("Encryption at rest: sealed columns, erasure, keys and retention on both backends")
struct EncryptionConformanceTests {
    static let keyA = MasterKeyring.newKeyLine(id: "mk-a")
    static let keyB = MasterKeyring.newKeyLine(id: "mk-b")

    static func cipher(_ lines: String...) throws -> FieldCipher {
        FieldCipher(keyring: try MasterKeyring.parse(lines.joined(separator: "\n"), source: "test"))
    }

    /// Texts that must never appear in the database as they are.
    enum Plain {
        static let title = "Aunt Lil kept bees behind the church"
        static let question = "Who was Aunt Lil, and where did she keep her bees?"
        static let reply = "Lil Jackson kept twelve hives behind Bethel AME."
        static let error = "The model stopped before Lil's hives were named."
        static let snapshot = "snapshot-copy-of-the-beekeeping-question"
        static let details = "details-about-lil-beekeeping"
        static let moderation = "moderation-scores-lil-beekeeping"
        static let serviceDetails = "service-details-nightly-beekeeping"
        static let edited = "Who was Aunt Lil, the beekeeper?"
        static let event = "event-delta-lil-hives"
        static let verdictReason = "verdict-reason-lil-hives"
        static let verdictDetails = "verdict-details-lil-hives"
        static let note = "report-note-lil-hives-are-wrong"
        static let resolution = "resolution-lil-hives-checked"
        static let storyTitle = "The Jackson family beehives"
        static let storyText = "Grandma Lil smoked the hives at dawn with pine needles."
        static let speaker = "Lilian Jackson"
        static let publicText = "Public passage about the county fair."
    }

    @Test("Every encrypted column reads back as written, and the database holds only gx1: values without the text", arguments: StoreBackend.allCases)
    func everyColumnIsSealed(on backend: StoreBackend) async throws {
        try await backend.withEncryptedStore(cipher: Self.cipher(Self.keyA)) { store in
            let chats = store.storage.chats
            let t0 = ChatFixtures.t0
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", title: Plain.title, now: t0)
            let asked = try await chats.appendMessage(threadID: thread.id, role: .user, content: Plain.question, turnID: "turn-1", now: t0)
            let reply = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "", status: .streaming, turnID: "turn-1", now: t0)
            try await chats.saveStreamingTexts([(id: reply.id, content: "Lil Jackson kept")], now: t0)
            try await chats.finishMessage(id: reply.id, content: Plain.reply, status: .failed, error: Plain.error, now: t0, moderation: nil)
            try await chats.saveTurn(TurnRecord(id: "turn-1", threadID: thread.id, userMessageID: asked.id, assistantMessageID: reply.id,
                                                assistant: "griot", promptVersion: 1, promptHash: "h", provider: "extractive", model: "m",
                                                status: .complete, startedAt: t0, finishedAt: t0,
                                                snapshot: "{\"note\":\"\(Plain.snapshot)\",\"flags\":[{\"kind\":\"pii\"}],\"groundedness\":0.2}"))
            try await chats.recordAudit(AuditEntry(at: t0, action: "export.create", userID: "u-ruth", moderation: Plain.moderation, details: Plain.details))
            try await chats.recordAudit(AuditEntry(at: t0, action: "job.run", details: Plain.serviceDetails))
            _ = try await chats.editMessage(id: asked.id, content: Plain.edited, ifMatch: asked.etag, by: "u-ruth", now: t0, moderation: nil, decision: nil)
            try await chats.writeStreams(StreamJournalBatch(
                opened: [TurnStreamRecord(turnID: "turn-1", userID: "u-ruth", threadID: thread.id, replyMessageID: reply.id, nodeID: "n1",
                                          startedAt: t0, finishedAt: nil, listenedAt: nil)],
                events: [TurnStreamEvent(turnID: "turn-1", number: 1, content: StreamEventContent(name: "delta", data: Plain.event))], at: t0))
            try await chats.recordVerdicts([SafetyVerdictRecord(at: t0, turnID: "turn-1", threadID: thread.id, messageID: reply.id, userID: "u-ruth",
                                                                ipHash: nil, stage: "groundedness", score: 0.2, decision: "flag",
                                                                reason: Plain.verdictReason, details: Plain.verdictDetails)])
            let (reported, _) = try await chats.reportReply(messageID: reply.id, reporterID: "u-ruth", reason: .inaccurate, note: Plain.note, now: t0)
            _ = try await chats.resolveReview(id: reported.ticket.id, by: "admin-1", resolution: Plain.resolution, now: t0)
            let secret = Story(artifactID: "s-private", title: Plain.storyTitle, privacy: .familyOnly, transcript: Transcript(text: Plain.storyText))
            let open = Story(artifactID: "s-public", title: "County fair", privacy: .public, transcript: Transcript(text: Plain.publicText))
            _ = try await store.storage.stories.save([
                (secret, [Passage(id: "p-private", storyID: "s-private", ordinal: 0, text: Plain.storyText, speaker: Plain.speaker,
                                  startOffset: 0, endOffset: Plain.storyText.unicodeScalars.count)]),
                (open, [Passage(id: "p-public", storyID: "s-public", ordinal: 0, text: Plain.publicText, startOffset: 0,
                                endOffset: Plain.publicText.unicodeScalars.count)]),
            ], revision: "v1")

            // Read back as written.
            #expect(try await chats.thread(id: thread.id)?.title == Plain.title)
            let stored = try #require(try await chats.message(id: reply.id))
            #expect(stored.content == Plain.reply && stored.error == Plain.error)
            #expect(try await chats.message(id: asked.id)?.content == Plain.edited)
            #expect(try await chats.turn(id: "turn-1")?.snapshot.contains(Plain.snapshot) == true)
            #expect(try await chats.recentTurns(TurnFilter(flag: "pii", lowGroundedness: true)).map(\.id) == ["turn-1"])
            let audit = try await chats.auditEntries(AuditFilter(limit: 500))
            #expect(audit.contains { $0.details == Plain.details && $0.moderation == Plain.moderation })
            #expect(audit.contains { $0.details == Plain.serviceDetails && $0.userID == nil })
            #expect(try await chats.readRetainedTexts(messageID: asked.id, by: "admin-1", now: t0).map(\.content) == [Plain.question])
            #expect(try await chats.streamEvents(turnID: "turn-1", after: 0, limit: 10).map(\.content.data) == [Plain.event])
            let verdict = try #require(try await chats.verdicts(turnID: "turn-1").first)
            #expect(verdict.reason == Plain.verdictReason && verdict.details == Plain.verdictDetails)
            let ticket = try #require(try await chats.reviewItem(id: reported.ticket.id)?.ticket)
            #expect(ticket.note == Plain.note && ticket.resolution == Plain.resolution && ticket.summary.hasPrefix("reported by the asker"))
            #expect(try await store.storage.stories.story(id: "s-private")?.title == Plain.storyTitle)
            #expect(try await store.storage.stories.allStories().map(\.title).sorted() == ["County fair", Plain.storyTitle])
            let passages = try await store.storage.stories.allPassages()
            #expect(passages.first { $0.id == "p-private" }?.text == Plain.storyText)
            #expect(passages.first { $0.id == "p-private" }?.speaker == Plain.speaker)
            #expect(try await store.storage.stories.passages(storyID: "s-public").map(\.text) == [Plain.publicText])
            // The archive copies the sealed message as it is, under the same id: it still opens.
            #expect(try await chats.archiveMessages(olderThan: DateComponents(day: 1), now: t0.addingTimeInterval(ChatFixtures.days(2)),
                                                    batchSize: 10) == 2)
            let archived = try await chats.archivedMessages(threadID: thread.id)
            #expect(archived.map(\.content) == [Plain.edited, Plain.reply] && archived.last?.error == Plain.error)

            // Stored sealed, and without the text.
            let sealedColumns: [(table: String, column: String)] = [
                ("thread", "title"), ("archivedMessage", "content"), ("archivedMessage", "error"), ("turn", "snapshot"),
                ("auditEntry", "details"), ("retainedText", "content"), ("turnStreamEvent", "data"), ("safetyVerdict", "reason"),
                ("safetyVerdict", "details"), ("reviewTicket", "summary"), ("reviewTicket", "note"), ("reviewTicket", "resolution"),
            ]
            for (table, column) in sealedColumns {
                let values = try await store.column(column, of: table)
                #expect(!values.isEmpty, "\(table).\(column) holds nothing to check")
                for value in values {
                    #expect(value.hasPrefix(FieldCipher.prefix), "\(table).\(column) holds \(value.prefix(40)) unsealed")
                    #expect(!Plain.everything.contains { value.contains($0) }, "\(table).\(column) holds plain text")
                }
            }
            for value in try await store.column("moderation", of: "auditEntry") { #expect(value.hasPrefix(FieldCipher.prefix)) }
            for (column, where_) in [("title", "id = 's-private'"), ("document", "id = 's-private'")] {
                let values = try await store.column(column, of: "story", where: where_)
                #expect(values.count == 1 && values.allSatisfy { $0.hasPrefix(FieldCipher.prefix) && !$0.contains("Lil") })
            }
            for column in ["text", "speaker"] {
                let values = try await store.column(column, of: "passage", where: "id = 'p-private'")
                #expect(values.count == 1 && values.allSatisfy { $0.hasPrefix(FieldCipher.prefix) && !$0.contains("Lil") })
            }
            // A public story stays plain: anyone may read it, and search needs no key for it.
            #expect(try await store.column("text", of: "passage", where: "id = 'p-public'") == [Plain.publicText])
        }
    }

    @Test("A sealed value copied into another row, or another column, fails to open as tampered, naming field, row and key",
          arguments: StoreBackend.allCases)
    func movedCiphertextIsTampered(on backend: StoreBackend) async throws {
        try await backend.withEncryptedStore(cipher: Self.cipher(Self.keyA)) { store in
            let chats = store.storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", title: Plain.title, now: ChatFixtures.t0)
            let first = try await chats.appendMessage(threadID: thread.id, role: .user, content: Plain.question, now: ChatFixtures.t0)
            let second = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Another question", now: ChatFixtures.t0)
            let sealed = try #require(try await store.column("content", of: "message", where: "id = '\(first.id)'").first)
            let keyID = try #require(FieldCipher.dataKeyID(in: sealed))

            try await store.execute("UPDATE message SET content = '\(sealed)' WHERE id = '\(second.id)'")
            await #expect(throws: CipherError.tampered(field: .messageContent, row: second.id, keyID: keyID)) {
                _ = try await chats.message(id: second.id)
            }
            // The same row, another column: the field is in the authenticated data too.
            try await store.execute("UPDATE thread SET title = '\(sealed)' WHERE id = '\(thread.id)'")
            await #expect(throws: CipherError.tampered(field: .threadTitle, row: thread.id, keyID: keyID)) {
                _ = try await chats.thread(id: thread.id)
            }
            #expect(try await chats.message(id: first.id)?.content == Plain.question)
        }
    }

    @Test("Erasing a user removes every copy of their data and shreds their data key; another user's stays readable",
          arguments: StoreBackend.allCases)
    func erasureShredsTheKey(on backend: StoreBackend) async throws {
        try await backend.withEncryptedStore(cipher: Self.cipher(Self.keyA)) { store in
            let chats = store.storage.chats
            let t0 = ChatFixtures.t0
            for user in ["u-ruth", "u-other"] {
                let thread = try await chats.createThread(assistant: "griot", userID: user, title: Plain.title, now: t0)
                let (asked, reply, turn) = try await ChatFixtures.exchange(chats, threadID: thread.id, question: Plain.question, reply: Plain.reply, at: t0)
                _ = try await chats.editMessage(id: asked.id, content: Plain.edited, ifMatch: asked.etag, by: user, now: t0, moderation: nil, decision: nil)
                try await chats.writeStreams(StreamJournalBatch(
                    opened: [TurnStreamRecord(turnID: turn.id, userID: user, threadID: thread.id, replyMessageID: reply.id, nodeID: "n1",
                                              startedAt: t0, finishedAt: nil, listenedAt: nil)],
                    events: [TurnStreamEvent(turnID: turn.id, number: 1, content: StreamEventContent(name: "delta", data: Plain.event))], at: t0))
                try await chats.recordVerdicts([SafetyVerdictRecord(at: t0, turnID: turn.id, threadID: thread.id, messageID: reply.id, userID: user,
                                                                    ipHash: nil, stage: "groundedness", score: 0.2, decision: "flag",
                                                                    reason: Plain.verdictReason, details: Plain.verdictDetails)])
                _ = try await chats.reportReply(messageID: reply.id, reporterID: user, reason: .harmful, note: Plain.note, now: t0)
                // An old message, so that the erasure reaches the archive too.
                _ = try await chats.appendMessage(threadID: thread.id, role: .user, content: Plain.question, now: t0.addingTimeInterval(-ChatFixtures.days(600)))
            }
            _ = try await chats.archiveMessages(olderThan: DateComponents(month: 18), now: t0, batchSize: 10)
            let ruthsKey = try #require(try await store.column("title", of: "thread", where: "userID = 'u-ruth'").first.flatMap(FieldCipher.dataKeyID(in:)))
            #expect(try await store.count("dataKey", where: "id = '\(ruthsKey)'") == 1)

            let counts = try await chats.purgeUser(userID: "u-ruth", by: "admin-1", now: t0)
            #expect(counts.threads == 1 && counts.messages == 2 && counts.archivedMessages == 1 && counts.turns == 1 && counts.verdicts == 1)
            #expect(try await store.count("dataKey", where: "id = '\(ruthsKey)'") == 0, "the erased user's data key is shredded")
            let copies: [(String, String)] = [
                ("thread", "userID = 'u-ruth'"), ("retainedText", "userID = 'u-ruth'"), ("turnStream", "userID = 'u-ruth'"),
                ("safetyVerdict", "userID = 'u-ruth'"), ("reviewTicket", "userID = 'u-ruth'"),
                ("message", "threadID NOT IN (SELECT id FROM thread)"), ("archivedMessage", "threadID NOT IN (SELECT id FROM thread)"),
                ("turn", "threadID NOT IN (SELECT id FROM thread)"), ("turnStreamEvent", "turnID NOT IN (SELECT turnID FROM turnStream)"),
                ("reviewOutbox", "ticketID NOT IN (SELECT id FROM reviewTicket)"),
                ("auditEntry", "userID = 'u-ruth' AND action <> 'user.purge'"),
            ]
            for (table, condition) in copies {
                #expect(try await store.count(table, where: condition) == 0, "\(table) keeps a copy of the erased user's data")
            }
            // Nothing left sealed with the shredded key.
            for (table, column) in [("auditEntry", "details"), ("thread", "title"), ("message", "content"), ("turn", "snapshot")] {
                #expect(try await store.column(column, of: table).allSatisfy { FieldCipher.dataKeyID(in: $0) != ruthsKey })
            }
            // The record of the erasure stays readable; the other user's data is untouched.
            let purge = try await chats.auditEntries(AuditFilter(actions: [.userPurge], limit: 10))
            #expect(purge.count == 1 && purge.first?.details?.contains("\"threads\":1") == true)
            let others = try await chats.threads(userID: "u-other", assistant: "griot")
            #expect(others.map(\.title) == [Plain.title])
            #expect(try await chats.recentMessages(threadID: others[0].id, limit: 10).map(\.content) == [Plain.edited, Plain.reply])
        }
    }

    @Test("A database sealed with mk-a refuses no keyring, a keyring without mk-a, and a different key named mk-a, naming mk-a",
          arguments: StoreBackend.allCases)
    func refusesKeyringsThatCannotOpen(on backend: StoreBackend) async throws {
        try await backend.withEncryptedStore(cipher: Self.cipher(Self.keyA)) { store in
            let thread = try await store.storage.chats.createThread(assistant: "griot", userID: "u-ruth", title: Plain.title, now: ChatFixtures.t0)
            _ = try await store.storage.chats.appendMessage(threadID: thread.id, role: .user, content: Plain.question, now: ChatFixtures.t0)

            let noKey = await #expect(throws: CipherError.self) { _ = try await store.reopen(FieldCipher.plaintext) }
            #expect(noKey == .encryptedWithoutKeyring(masterKeyIDs: ["mk-a"]))
            #expect(noKey?.description.contains("mk-a") == true)
            let missing = await #expect(throws: CipherError.self) { _ = try await store.reopen(Self.cipher(Self.keyB)) }
            #expect(missing == .missingMasterKey("mk-a", source: "test"))
            let impostor = MasterKeyring.newKeyLine(id: "mk-a")
            let wrong = await #expect(throws: CipherError.self) { _ = try await store.reopen(Self.cipher(impostor)) }
            #expect(wrong == .wrongMasterKey("mk-a", source: "test"))
            #expect(wrong?.description.contains("mk-a") == true)
            // With the key, the text reads back.
            #expect(try await store.reopen(Self.cipher(Self.keyA)).chats.thread(id: thread.id)?.title == Plain.title)
        }
    }

    @Test("Rotation: the data keys not wrapped by the new master key are listed, re-wrapped once each, and then open with it alone",
          arguments: StoreBackend.allCases)
    func rotationRewrapsDataKeys(on backend: StoreBackend) async throws {
        try await backend.withEncryptedStore(cipher: Self.cipher(Self.keyA)) { store in
            var threads: [String] = []
            for user in ["u-ruth", "u-amos"] {
                let thread = try await store.storage.chats.createThread(assistant: "griot", userID: user, title: Plain.title, now: ChatFixtures.t0)
                threads.append(thread.id)
            }
            let rotating = try await store.reopen(Self.cipher(Self.keyB, Self.keyA))
            #expect(try await rotating.chats.dataKeyCounts() == ["mk-a": 2])
            let old = try await rotating.chats.dataKeys(notWrappedBy: "mk-b", after: nil, limit: 10)
            #expect(old.count == 2 && old.map(\.id) == old.map(\.id).sorted())
            #expect(try await rotating.chats.dataKeys(notWrappedBy: "mk-b", after: old[0].id, limit: 10).map(\.id) == [old[1].id])
            for record in old {
                let rewrapped = try rotating.chats.cipher.rewrap(record)
                #expect(rewrapped.masterKeyID == "mk-b" && rewrapped.id == record.id)
                #expect(try await rotating.chats.replaceWrapping(rewrapped, previous: record))
                // A second rotation that read the old wrapping finds it gone, and changes nothing.
                #expect(try await !rotating.chats.replaceWrapping(rewrapped, previous: record))
            }
            #expect(try await rotating.chats.dataKeyCounts() == ["mk-b": 2])
            #expect(try await rotating.chats.dataKeys(notWrappedBy: "mk-b", after: nil, limit: 10).isEmpty)
            let retired = try await store.reopen(Self.cipher(Self.keyB))
            for id in threads { #expect(try await retired.chats.thread(id: id)?.title == Plain.title) }
        }
    }

    @Test("retentionDue counts what is past its limit, and nothing once the jobs ran, each job leaving its audit entry with counts",
          arguments: StoreBackend.allCases)
    func retentionDueCounts(on backend: StoreBackend) async throws {
        try await backend.withEncryptedStore(cipher: Self.cipher(Self.keyA)) { store in
            let chats = store.storage.chats
            let t0 = ChatFixtures.t0
            let day = ChatFixtures.days(1)
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0.addingTimeInterval(-day * 600))
            // 19 months old and live: to archive.
            _ = try await chats.appendMessage(threadID: thread.id, role: .user, content: "old", now: t0.addingTimeInterval(-day * 580))
            // Deleted 31 days ago: to purge, with the text its delete kept.
            let deleted = try await chats.appendMessage(threadID: thread.id, role: .user, content: "deleted", now: t0.addingTimeInterval(-day * 40))
            _ = try await chats.softDeleteMessage(id: deleted.id, by: "u-ruth", ifMatch: nil, now: t0.addingTimeInterval(-day * 31))
            // Edited 31 days ago: its earlier text is past its 30 days.
            let edited = try await chats.appendMessage(threadID: thread.id, role: .user, content: "before", now: t0.addingTimeInterval(-day * 40))
            _ = try await chats.editMessage(id: edited.id, content: "after", ifMatch: edited.etag, by: "u-ruth", now: t0.addingTimeInterval(-day * 31),
                                            moderation: nil, decision: nil)
            // Deleted 10 days ago: not yet due.
            let recent = try await chats.appendMessage(threadID: thread.id, role: .user, content: "recent", now: t0.addingTimeInterval(-day * 20))
            _ = try await chats.softDeleteMessage(id: recent.id, by: "u-ruth", ifMatch: nil, now: t0.addingTimeInterval(-day * 10))
            let gone = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0.addingTimeInterval(-day * 50))
            _ = try await chats.softDeleteThread(id: gone.id, by: "u-ruth", now: t0.addingTimeInterval(-day * 35))
            try await chats.recordVerdicts([SafetyVerdictRecord(at: t0.addingTimeInterval(-day * 760), turnID: "turn-old", threadID: thread.id,
                                                                messageID: nil, userID: "u-ruth", ipHash: nil, stage: "input", score: 0,
                                                                decision: "allow", reason: "fine")])

            let due = try await chats.retentionDue(now: t0)
            #expect(due.deletedMessages == 1 && due.deletedThreads == 1)
            #expect(due.messagesToArchive == 1 && due.verdicts == 1 && due.retainedTexts == 2)
            #expect(due.oldestDeletedAt == t0.addingTimeInterval(-day * 35))

            let purged = try await chats.purgeDeleted(olderThan: DateComponents(day: 30), now: t0)
            #expect(purged.threads == 1 && purged.messages == 1)
            #expect(try await chats.archiveMessages(olderThan: DateComponents(month: 18), now: t0, batchSize: 10) == 1)
            #expect(try await chats.purgeVerdicts(olderThan: SafetyVerdictRecord.retention, now: t0) == 1)
            #expect(try await chats.retentionDue(now: t0) == RetentionDue())

            // Each job that removed something says so in the log, with what and how many.
            let log = try await chats.auditEntries(AuditFilter(actions: [.threadPurge, .messagePurge, .messageArchive, .verdictPurge], limit: 50))
            #expect(Set(log.map(\.action)) == [.threadPurge, .messagePurge, .messageArchive, .verdictPurge])
            #expect(log.first { $0.action == .messageArchive }?.details?.contains("\"messages\":1") == true)
            #expect(log.first { $0.action == .verdictPurge }?.details?.contains("\"verdicts\":1") == true)
            #expect(log.allSatisfy { $0.at == t0 })
        }
    }
}

extension EncryptionConformanceTests.Plain {
    static let everything = [title, question, reply, error, snapshot, details, moderation, serviceDetails, edited, event, verdictReason,
                             verdictDetails, note, resolution, storyTitle, storyText, speaker]
}

/// A store with a keyring of the test's, and the raw SQL the test needs to look under it.
struct EncryptedStore: Sendable {
    let storage: Storage
    let backend: Backend

    enum Backend: Sendable {
        case sqlite(any DatabaseWriter)
        case postgres(GriotPostgres.PostgresDatabase)
    }

    /// The non-empty values of a column (the names are unquoted, so PostgreSQL folds them as its schema did).
    func column(_ column: String, of table: String, where condition: String = "TRUE") async throws -> [String] {
        let sql = "SELECT \(column) FROM \(table) WHERE \(condition)"
        let values: [String?]
        switch backend {
        case Backend.sqlite(let writer):
            values = try await writer.read { db in try String?.fetchAll(db, sql: sql) }
        case Backend.postgres(let database):
            var read: [String?] = []
            for try await value in try await database.client.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).decode(String?.self) {
                read.append(value)
            }
            values = read
        }
        return values.compactMap { $0 }.filter { !$0.isEmpty }
    }

    func count(_ table: String, where condition: String) async throws -> Int {
        let sql = "SELECT COUNT(*) FROM \(table) WHERE \(condition)"
        switch backend {
        case Backend.sqlite(let writer):
            return try await writer.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
        case Backend.postgres(let database):
            return try await database.client.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).collect().first?.decode(Int.self) ?? 0
        }
    }

    /// Writes around the store (a tampering test's change).
    func execute(_ sql: String) async throws {
        switch backend {
        case Backend.sqlite(let writer):
            try await writer.write { db in try db.execute(sql: sql) }
        case Backend.postgres(let database):
            _ = try await database.client.query(PostgresQuery(unsafeSQL: sql), logger: database.logger).collect()
        }
    }

    /// The same database's stores with another cipher (as a node started with another key file).
    func reopen(_ cipher: FieldCipher) async throws -> Storage {
        switch backend {
        case Backend.sqlite(let writer):
            return try SQLiteStoryStore(writer: writer, cipher: cipher).storage()
        case Backend.postgres(let database):
            return try await database.storage(cipher: cipher)
        }
    }
}

extension StoreBackend {
    /// Runs `body` with a fresh store sealed by `cipher` (not the environment's), then closes it.
    func withEncryptedStore<Result>(cipher: FieldCipher, _ body: (EncryptedStore) async throws -> Result) async throws -> Result {
        switch self {
        case .sqlite:
            let stories = try SQLiteStoryStore.inMemory(cipher: cipher)
            return try await body(EncryptedStore(storage: try stories.storage(), backend: .sqlite(stories.writer)))
        case .postgres:
            let schema = try await TestSchema.create()
            let database = try await GriotPostgres.PostgresDatabase.open(url: schema.url)
            let close = {
                await database.close()
                do { try await schema.drop() } catch { Issue.record("could not drop the test schema \(schema.name): \(String(reflecting: error))") }
            }
            do {
                let result = try await body(EncryptedStore(storage: try await database.storage(cipher: cipher), backend: .postgres(database)))
                await close()
                return result
            } catch {
                await close()
                throw error
            }
        }
    }
}
