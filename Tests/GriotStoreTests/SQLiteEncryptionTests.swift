import Foundation
import GRDB
import GriotStories
import Testing
@testable import GriotStore

/// Encryption at rest on SQLite: every encrypted column is stored sealed ("gx1:…", never the
/// text), reads back as it was written, opens only in its own row, and an erased user's text no
/// longer opens anywhere.
@Suite("SQLite encryption at rest")
struct SQLiteEncryptionTests {
    static func keyring(_ id: String = "mk-a") throws -> MasterKeyring {
        try MasterKeyring.parse(MasterKeyring.newKeyLine(id: id), source: "test")
    }

    /// A story store and a chat store on one in-memory database, sealing with `keyring`.
    static func stores(_ keyring: MasterKeyring? = nil) throws -> (stories: SQLiteStoryStore, chats: SQLiteChatStore) {
        let cipher = FieldCipher(keyring: try keyring ?? Self.keyring())
        let stories = try SQLiteStoryStore.inMemory(cipher: cipher)
        return (stories, try SQLiteChatStore(writer: stories.writer, cipher: cipher))
    }

    /// The stored value of one column of one row, as it is on disk.
    static func raw(_ writer: any DatabaseWriter, _ sql: String, _ arguments: StatementArguments = []) throws -> String? {
        try writer.read { db in try String.fetchOne(db, sql: sql, arguments: arguments) }
    }

    /// A stored value opened in a read of the database, as the store opens it.
    static func open(_ stored: String, _ field: SealedField, row: String, with cipher: FieldCipher, in writer: any DatabaseWriter) throws -> String {
        try writer.read { db in try cipher.open(stored, field, row: row, db: db) }
    }

    static func expectSealed(_ stored: String?, hiding text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(stored?.hasPrefix(FieldCipher.prefix) == true, "\(what) is stored sealed", sourceLocation: sourceLocation)
        #expect(stored?.contains(text) == false, "\(what) does not hold its text", sourceLocation: sourceLocation)
    }

    @Test("Every encrypted column of the conversations is stored sealed and reads back as written")
    func conversationColumnsAreSealed() async throws {
        let (_, chats) = try Self.stores()
        let w = chats.writer
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", title: "Aunt Lil's store", now: t0)
        Self.expectSealed(try Self.raw(w, "SELECT title FROM thread WHERE id = ?", [thread.id]), hiding: "Aunt Lil", "thread.title")
        #expect(try await chats.thread(id: thread.id)?.title == "Aunt Lil's store")

        let (question, reply) = try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        Self.expectSealed(try Self.raw(w, "SELECT content FROM message WHERE id = ?", [question.id]), hiding: "Aunt Lil", "message.content")
        Self.expectSealed(try Self.raw(w, "SELECT snapshot FROM turn WHERE userMessageID = ?", [question.id]), hiding: "ran the store", "turn.snapshot")
        #expect(try await chats.messages(threadID: thread.id).messages.map(\.content) == ["Who was Aunt Lil?", "She ran the store."])
        #expect(try await chats.turns(threadID: thread.id).first?.snapshot == #"{"text":"She ran the store."}"#)
        #expect(try await chats.userTexts(threadID: thread.id) == ["Who was Aunt Lil?"])

        try await chats.finishMessage(id: reply.id, content: "She ran the store on Water Street.", status: .failed, error: "The provider broke off.",
                                      now: t0, moderation: #"{"flagged":"calm"}"#)
        Self.expectSealed(try Self.raw(w, "SELECT error FROM message WHERE id = ?", [reply.id]), hiding: "provider", "message.error")
        let finished = try #require(try await chats.message(id: reply.id))
        #expect(finished.content == "She ran the store on Water Street." && finished.error == "The provider broke off.")

        let update = try #require(try await chats.auditEntries(AuditFilter(actions: [.messageUpdate])).first)
        let updateID = try #require(update.id)
        Self.expectSealed(try Self.raw(w, "SELECT details FROM auditEntry WHERE id = ?", [updateID]), hiding: "reply", "auditEntry.details")
        Self.expectSealed(try Self.raw(w, "SELECT moderation FROM auditEntry WHERE id = ?", [updateID]), hiding: "calm", "auditEntry.moderation")
        #expect(update.moderation == #"{"flagged":"calm"}"# && update.details?.contains(#""reason":"reply""#) == true)

        // An edit keeps the old text in retainedText (sealed), and the old text leaves the turn.
        let edited = try await chats.editMessage(id: question.id, content: "Who was Uncle Ray?", ifMatch: "*", by: "u-ruth", now: t0 + 60)
        #expect(edited.content == "Who was Uncle Ray?")
        Self.expectSealed(try Self.raw(w, "SELECT content FROM retainedText WHERE messageID = ?", [question.id]), hiding: "Aunt Lil", "retainedText.content")
        #expect(try await chats.readRetainedTexts(messageID: question.id, by: "u-admin").map(\.content) == ["Who was Aunt Lil?"])

        // A streamed reply's events, its texts so far and its interruption.
        let streaming = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "", status: .streaming, now: t0 + 120)
        try await chats.saveStreamingTexts([(id: streaming.id, content: "Uncle Ray drove")], now: t0 + 121)
        Self.expectSealed(try Self.raw(w, "SELECT content FROM message WHERE id = ?", [streaming.id]), hiding: "Uncle Ray", "a streaming text")
        let stream = TurnStreamRecord(turnID: "t-stream", userID: "u-ruth", threadID: thread.id, replyMessageID: streaming.id, nodeID: "n-1", startedAt: t0 + 120)
        try await chats.writeStreams(StreamJournalBatch(opened: [stream], events: [
            TurnStreamEvent(turnID: "t-stream", number: 1, content: StreamEventContent(name: "delta", data: #"{"text":"Uncle Ray drove"}"#)),
        ], at: t0 + 121))
        Self.expectSealed(try Self.raw(w, "SELECT data FROM turnStreamEvent WHERE turnID = 't-stream' AND number = 1"), hiding: "Uncle Ray", "turnStreamEvent.data")
        let ending = try #require(try await chats.interruptStream(turnID: "t-stream", ending: [StreamEventContent(name: "error", data: "stopped: Uncle Ray")],
                                                                 replyText: "Uncle Ray drove the truck", at: t0 + 130))
        #expect(ending.map(\.number) == [2])
        #expect(try await chats.streamEvents(turnID: "t-stream", after: 0, limit: 10).map(\.content.data)
                == [#"{"text":"Uncle Ray drove"}"#, "stopped: Uncle Ray"])
        Self.expectSealed(try Self.raw(w, "SELECT data FROM turnStreamEvent WHERE turnID = 't-stream' AND number = 2"), hiding: "Uncle Ray", "an ending event")
        let interrupted = try #require(try await chats.message(id: streaming.id))
        #expect(interrupted.content == "Uncle Ray drove the truck" && interrupted.status == .interrupted && interrupted.error == StreamInterruption.storedError)

        // Safety verdicts and the review ticket a block opens, then a report and its resolution.
        try await chats.recordVerdicts([SafetyVerdictRecord(at: t0, turnID: "t-1", threadID: thread.id, messageID: question.id, userID: "u-ruth", ipHash: nil,
                                                            stage: "moderation", score: 0.9, decision: "block", reason: "threat against Lil",
                                                            details: #"{"violence":0.9}"#)])
        let verdict = try #require(try await chats.verdicts(turnID: "t-1").first)
        #expect(verdict.reason == "threat against Lil" && verdict.details == #"{"violence":0.9}"#)
        Self.expectSealed(try Self.raw(w, "SELECT reason FROM safetyVerdict WHERE id = ?", [verdict.id]), hiding: "Lil", "safetyVerdict.reason")
        Self.expectSealed(try Self.raw(w, "SELECT details FROM safetyVerdict WHERE id = ?", [verdict.id]), hiding: "violence", "safetyVerdict.details")
        let blocked = try #require(try await chats.reviewItems(ReviewFilter(kind: .blocked)).first)
        #expect(blocked.ticket.summary == "moderation: threat against Lil")
        Self.expectSealed(try Self.raw(w, "SELECT summary FROM reviewTicket WHERE id = ?", [blocked.ticket.id]), hiding: "Lil", "reviewTicket.summary")
        let report = try await chats.reportReply(messageID: reply.id, reporterID: "u-ruth", reason: .inaccurate, note: "Lil never ran a store", now: t0)
        let resolved = try await chats.resolveReview(id: report.item.ticket.id, by: "u-admin", resolution: "Checked with Lil's family", now: t0 + 60)
        #expect(resolved.ticket.note == "Lil never ran a store" && resolved.ticket.resolution == "Checked with Lil's family")
        Self.expectSealed(try Self.raw(w, "SELECT note FROM reviewTicket WHERE id = ?", [report.item.ticket.id]), hiding: "Lil", "reviewTicket.note")
        Self.expectSealed(try Self.raw(w, "SELECT resolution FROM reviewTicket WHERE id = ?", [report.item.ticket.id]), hiding: "Lil", "reviewTicket.resolution")

        // Archived messages keep their ids, so their ciphertext opens in archivedMessage.
        #expect(try await chats.archiveMessages(now: t0 + days(600)) == 3)
        Self.expectSealed(try Self.raw(w, "SELECT content FROM archivedMessage WHERE id = ?", [reply.id]), hiding: "Water Street", "archivedMessage.content")
        let archived = try await chats.archivedMessages(threadID: thread.id)
        #expect(archived.map(\.content) == ["Who was Uncle Ray?", "She ran the store on Water Street.", "Uncle Ray drove the truck"])
        #expect(archived[1].error == "The provider broke off.")
    }

    @Test("A sealed value copied into another row does not open: CipherError.tampered")
    func copiedValueIsTampered() async throws {
        let (_, chats) = try Self.stores()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let (question, reply) = try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        try await chats.writer.write { db in
            try db.execute(sql: "UPDATE message SET content = (SELECT content FROM message WHERE id = ?) WHERE id = ?", arguments: [question.id, reply.id])
        }
        await #expect(throws: CipherError.self) { try await chats.message(id: reply.id) }
        do {
            _ = try await chats.message(id: reply.id)
        } catch let error as CipherError {
            guard case .tampered(let field, let row, _) = error else { Issue.record("expected tampered, got \(error)"); return }
            #expect(field == .messageContent && row == reply.id)
        }
        // The same ciphertext in another column of its own row does not open either.
        try await chats.writer.write { db in
            try db.execute(sql: "UPDATE message SET error = content WHERE id = ?", arguments: [question.id])
        }
        let stored = try #require(try Self.raw(chats.writer, "SELECT content FROM message WHERE id = ?", [question.id]))
        let keyID = try #require(FieldCipher.dataKeyID(in: stored))
        await #expect(throws: CipherError.tampered(field: .messageError, row: question.id, keyID: keyID)) {
            try await chats.message(id: question.id)
        }
    }

    @Test("Plain text written around the store into an encrypted database is refused, not read as text")
    func plainTextIsRefused() async throws {
        let (_, chats) = try Self.stores()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let (question, _) = try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        try await chats.writer.write { db in try db.execute(sql: "UPDATE message SET content = 'planted' WHERE id = ?", arguments: [question.id]) }
        await #expect(throws: CipherError.notSealed(field: .messageContent, row: question.id)) { try await chats.message(id: question.id) }
    }

    @Test("Erasure shreds the user's data key: a ciphertext of theirs copied aside no longer opens (unknownDataKey), another user's still does")
    func erasureShredsTheKey() async throws {
        let (_, chats) = try Self.stores()
        var kept: [String: (stored: String, id: String)] = [:]
        for user in ["u-ruth", "u-simone"] {
            let thread = try await chats.createThread(assistant: "griot", userID: user, now: t0)
            let (question, _) = try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
            kept[user] = (try #require(try Self.raw(chats.writer, "SELECT content FROM message WHERE id = ?", [question.id])), question.id)
        }
        #expect(try count(chats, "dataKey", where: "scope = ?", ["user:u-ruth"]) == 1)
        let counts = try await chats.purgeUser(userID: "u-ruth", by: "u-admin", now: t0 + 60)
        #expect(counts.threads == 1)
        #expect(try count(chats, "dataKey", where: "scope = ?", ["user:u-ruth"]) == 0)

        let ruth = try #require(kept["u-ruth"]), simone = try #require(kept["u-simone"])
        let ruthsKey = try #require(FieldCipher.dataKeyID(in: ruth.stored))
        #expect(throws: CipherError.unknownDataKey(ruthsKey, field: .messageContent, row: ruth.id)) {
            try Self.open(ruth.stored, .messageContent, row: ruth.id, with: chats.cipher, in: chats.writer)
        }
        #expect(try Self.open(simone.stored, .messageContent, row: simone.id, with: chats.cipher, in: chats.writer) == "Who was Aunt Lil?")
        // Another node, which never met the key, cannot open it either.
        #expect(throws: CipherError.unknownDataKey(ruthsKey, field: .messageContent, row: ruth.id)) {
            try Self.open(ruth.stored, .messageContent, row: ruth.id, with: FieldCipher(keyring: chats.cipher.keyring), in: chats.writer)
        }
        // The record of the erasure stays readable: it is sealed with the service's key.
        let record = try #require(try await chats.auditEntries(AuditFilter(userID: "u-ruth", actions: [.userPurge])).first)
        #expect(record.details?.contains(#""threads":1"#) == true)
    }

    @Test("purgeUser removes every copy: threads, messages, archive, turns, retained texts, stream journal, verdicts, tickets and their outbox rows")
    func erasureReachesEveryTable() async throws {
        let (_, chats) = try Self.stores()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let (question, reply) = try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        try await chats.archiveMessages(now: t0 + days(600))
        let (later, _) = try await exchange(chats, threadID: thread.id, question: "And Uncle Ray?", reply: "He drove.", at: t0 + days(600))
        _ = try await chats.editMessage(id: later.id, content: "And Aunt May?", ifMatch: "*", by: "u-ruth", now: t0 + days(600))
        try await chats.writeStreams(StreamJournalBatch(
            opened: [TurnStreamRecord(turnID: "t-s", userID: "u-ruth", threadID: thread.id, replyMessageID: reply.id, nodeID: "n", startedAt: t0)],
            events: [TurnStreamEvent(turnID: "t-s", number: 1, content: StreamEventContent(name: "delta", data: "She ran"))], at: t0))
        try await chats.recordVerdicts([SafetyVerdictRecord(at: t0, turnID: "t-1", threadID: thread.id, messageID: question.id, userID: "u-ruth", ipHash: nil,
                                                            stage: "crisis", score: 0.9, decision: "route", reason: "self-harm")])
        #expect(try count(chats, "reviewOutbox") == 1)

        try await chats.purgeUser(userID: "u-ruth", by: "u-admin", now: t0 + days(601))
        for table in ["thread", "message", "archivedMessage", "turn", "retainedText", "turnStream", "turnStreamEvent", "safetyVerdict",
                      "reviewTicket", "reviewOutbox"] {
            #expect(try count(chats, table) == 0, "\(table) keeps nothing of the user")
        }
        #expect(try count(chats, "dataKey", where: "scope = ?", ["user:u-ruth"]) == 0)
    }

    @Test("Deleting a message redacts the sealed turn snapshots and clears a thread title copied from it")
    func deleteRedactsSealedCopies() async throws {
        let (_, chats) = try Self.stores()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        let (question, reply) = try await exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: t0)
        try await chats.nameThread(id: thread.id, from: "Who was Aunt Lil?")
        #expect(try await chats.thread(id: thread.id)?.title == "Who was Aunt Lil?")
        try await chats.softDeleteMessage(id: reply.id, by: "u-ruth", now: t0 + 60)
        try await chats.softDeleteMessage(id: question.id, by: "u-ruth", now: t0 + 60)
        #expect(try await chats.thread(id: thread.id)?.title == "")
        let turn = try #require(try await chats.turns(threadID: thread.id, includingDeleted: true).first)
        #expect(!turn.snapshot.contains("ran the store") && turn.snapshot.contains(#""redacted_reply":"deleted""#))
        Self.expectSealed(try Self.raw(chats.writer, "SELECT snapshot FROM turn WHERE id = ?", [turn.id]), hiding: "redacted", "a redacted snapshot")
    }

    @Test("Turns are found by flag and low groundedness in their sealed snapshots")
    func turnFiltersReadSealedSnapshots() async throws {
        let (_, chats) = try Self.stores()
        let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        for (index, snapshot) in [#"{"flags":[{"kind":"crisis"}],"groundedness":0.9}"#, #"{"flags":[],"groundedness":0.2}"#, #"{"text":"x"}"#].enumerated() {
            let at = t0 + Double(index)
            let asked = try await chats.appendMessage(threadID: thread.id, role: .user, content: "q\(index)", now: at)
            try await chats.saveTurn(TurnRecord(id: "t-\(index)", threadID: thread.id, userMessageID: asked.id, assistantMessageID: nil, assistant: "griot",
                                                promptVersion: 1, promptHash: "h", provider: "p", model: "m", status: .complete, startedAt: at,
                                                finishedAt: at, snapshot: snapshot))
        }
        #expect(try await chats.recentTurns(TurnFilter(flag: "crisis")).map(\.id) == ["t-0"])
        #expect(try await chats.recentTurns(TurnFilter(lowGroundedness: true)).map(\.id) == ["t-1"])
        #expect(try await chats.recentTurns(TurnFilter()).map(\.id) == ["t-2", "t-1", "t-0"])
    }

    @Test("A non-public story's title, document and passages are sealed with the story's key and read back for the index; a public story stays plain; a delete shreds the key")
    func storiesAreSealedUnlessPublic() async throws {
        let (stories, _) = try Self.stores()
        func story(_ id: String, _ privacy: Privacy) -> (story: Story, passages: [Passage]) {
            let text = "Aunt Lil ran the store on Water Street."
            let story = Story(artifactID: id, title: "Lil's store \(id)", privacy: privacy, ownerUserID: "u-ruth", transcript: Transcript(text: text))
            return (story, [Passage(id: "\(id)-0", storyID: id, ordinal: 0, text: text, speaker: "Ruth", startSeconds: nil, endSeconds: nil,
                                    startOffset: 0, endOffset: text.unicodeScalars.count)])
        }
        _ = try await stories.save([story("s-private", .private), story("s-family", .familyOnly), story("s-public", .public)])
        let w = stories.writer
        for id in ["s-private", "s-family"] {
            Self.expectSealed(try Self.raw(w, "SELECT title FROM story WHERE id = ?", [id]), hiding: "Lil", "story.title")
            Self.expectSealed(try Self.raw(w, "SELECT document FROM story WHERE id = ?", [id]), hiding: "Lil", "story.document")
            Self.expectSealed(try Self.raw(w, "SELECT text FROM passage WHERE storyID = ?", [id]), hiding: "Lil", "passage.text")
            Self.expectSealed(try Self.raw(w, "SELECT speaker FROM passage WHERE storyID = ?", [id]), hiding: "Ruth", "passage.speaker")
        }
        #expect(try Self.raw(w, "SELECT title FROM story WHERE id = 's-public'") == "Lil's store s-public")
        #expect(try Self.raw(w, "SELECT text FROM passage WHERE storyID = 's-public'") == "Aunt Lil ran the store on Water Street.")

        #expect(try await stories.allStories().map(\.title) == ["Lil's store s-family", "Lil's store s-private", "Lil's store s-public"])
        #expect(try await stories.allPassages().map(\.text) == Array(repeating: "Aunt Lil ran the store on Water Street.", count: 3))
        #expect(try await stories.passage(id: "s-private-0")?.speaker == "Ruth")
        #expect(try await stories.passages(storyID: "s-family").map(\.speaker) == ["Ruth"])
        #expect(try await stories.story(id: "s-private")?.transcript.text == "Aunt Lil ran the store on Water Street.")

        let sealedTitle = try #require(try Self.raw(w, "SELECT title FROM story WHERE id = 's-private'"))
        #expect(try await stories.delete(storyID: "s-private"))
        #expect(try Self.raw(w, "SELECT COUNT(*) FROM dataKey WHERE scope = 'story:s-private'") == "0")
        #expect(throws: CipherError.self) { try Self.open(sealedTitle, .storyTitle, row: "s-private", with: stories.cipher, in: w) }
    }

    @Test("A database opened with another master key, the same id holding another key, or no key fails, naming the master key")
    func wrongOrMissingKeyFails() async throws {
        let database = try TemporaryDatabase()
        let keyring = try Self.keyring("mk-a")
        do {
            let stories = try SQLiteStoryStore(path: database.path, cipher: FieldCipher(keyring: keyring))
            let chats = try SQLiteChatStore(writer: stories.writer, cipher: stories.cipher)
            _ = try await chats.createThread(assistant: "griot", userID: "u-ruth", title: "Aunt Lil", now: t0)
        }
        #expect(throws: CipherError.missingMasterKey("mk-a", source: "test")) {
            _ = try SQLiteStoryStore(path: database.path, cipher: FieldCipher(keyring: try Self.keyring("mk-b")))
        }
        #expect(throws: CipherError.wrongMasterKey("mk-a", source: "test")) {
            _ = try SQLiteStoryStore(path: database.path, cipher: FieldCipher(keyring: try Self.keyring("mk-a")))
        }
        do {
            _ = try SQLiteStoryStore(path: database.path)
            Issue.record("a database with sealed text opened without a master key")
        } catch {
            #expect(String(describing: error).contains("mk-a"))
        }
        let plainChats = { try SQLiteChatStore(writer: DatabaseQueue(path: database.path)) }
        #expect(throws: CipherError.encryptedWithoutKeyring(masterKeyIDs: ["mk-a"])) { _ = try plainChats() }
        // The right key opens it.
        let reopened = try SQLiteStoryStore(path: database.path, cipher: FieldCipher(keyring: keyring))
        let chats = try SQLiteChatStore(writer: reopened.writer, cipher: reopened.cipher)
        #expect(try await chats.threads(userID: "u-ruth", assistant: "griot").map(\.title) == ["Aunt Lil"])
    }

    @Test("retentionDue counts what is past each job's limit and not yet removed, and a job's run empties its count")
    func retentionDueCounts() async throws {
        let (_, chats) = try Self.stores()
        let now = t0 + days(800)
        let old = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: t0)
        try await exchange(chats, threadID: old.id, question: "Old question", reply: "Old reply", at: t0)                    // 2 to archive
        let (recent, _) = try await exchange(chats, threadID: old.id, question: "Recent", reply: "Reply", at: now - days(10))
        let gone = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: now - days(40))
        try await exchange(chats, threadID: gone.id, question: "Delete me", reply: "Done", at: now - days(40))
        try await chats.softDeleteThread(id: gone.id, by: "u-ruth", now: now - days(35))                                      // 1 thread, 2 messages
        try await chats.softDeleteMessage(id: recent.id, by: "u-ruth", now: now - days(5))                                    // not due yet
        let (edited, _) = try await exchange(chats, threadID: old.id, question: "Typo", reply: "Fine", at: now - days(60))
        _ = try await chats.editMessage(id: edited.id, content: "Typo fixed", ifMatch: "*", by: "u-ruth", now: now - days(31))   // 1 retained text due
        try await chats.recordVerdicts([SafetyVerdictRecord(at: t0, turnID: "t-old", threadID: old.id, messageID: nil, userID: "u-ruth", ipHash: nil,
                                                            stage: "moderation", score: 0.1, decision: "allow", reason: "fine")])   // 1 verdict

        var due = try await chats.retentionDue(now: now)
        #expect(due.deletedThreads == 1)
        #expect(due.deletedMessages == 2)
        #expect(due.messagesToArchive == 2)
        #expect(due.verdicts == 1)
        #expect(due.retainedTexts == 3, "the two texts of the deleted thread's messages and the edit's")
        #expect(due.oldestDeletedAt == now - days(35))

        try await chats.purgeDeleted(now: now)
        try await chats.archiveMessages(now: now)
        try await chats.purgeVerdicts(now: now)
        due = try await chats.retentionDue(now: now)
        #expect(due == RetentionDue())

        // Each run that removed something left one entry with its count.
        #expect(try await chats.auditEntries(AuditFilter(actions: [.messageArchive])).first?.details?.contains(#""messages":2"#) == true)
        #expect(try await chats.auditEntries(AuditFilter(actions: [.verdictPurge])).count == 1)
        let retained = try #require(try await chats.auditEntries(AuditFilter(actions: [.retainedTextPurge])).first)
        #expect(retained.details?.contains(#""count":1"#) == true)
    }

    @Test("Expiring lapsed warning counts logs one entry with the count, and nothing when none lapsed")
    func expireIsLogged() async throws {
        let (_, chats) = try Self.stores()
        try await chats.addModerationWarning(userID: "u-ruth", now: t0)
        #expect(try await chats.expireWarnings(now: t0 + days(10)) == 0)
        #expect(try await chats.expireWarnings(now: t0 + days(100)) == 1)
        let entries = try await chats.auditEntries(AuditFilter(actions: [.warningExpire]))
        #expect(entries.count == 1 && entries.first?.details?.contains(#""count":1"#) == true)
    }
}
