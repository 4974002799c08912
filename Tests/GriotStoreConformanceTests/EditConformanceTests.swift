import Foundation
import GriotStore
import Testing

/// Edits made safe by ETags, soft deletes, and where the old text goes: the retained texts
/// (an admin's audited read), out of the turn snapshots and the thread's title.
@Suite("Chat store: edits, deletes and retained texts")
struct EditConformanceTests {
    typealias F = ChatFixtures

    @Test("An edit with the current ETag stores the text and a new version; the old ETag is then a conflict, * is not",
          arguments: StoreBackend.allCases)
    func staleETagConflicts(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let original = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?", now: F.t0)
            #expect(original.etag == "\"m-\(original.id)-v1\"")
            let edited = try await chats.editMessage(id: original.id, content: "Who was Aunt Lillian?", ifMatch: original.etag, by: "u-ruth", now: F.t0 + 5)
            #expect(edited.content == "Who was Aunt Lillian?")
            #expect(edited.version == 2 && edited.updatedAt == F.t0 + 5 && edited.createdAt == F.t0)
            #expect(try await chats.message(id: original.id) == edited)

            let stale = await #expect(throws: ChatStoreError.self) {
                try await chats.editMessage(id: original.id, content: "Who was Lil?", ifMatch: original.etag, by: "u-ruth", now: F.t0 + 6)
            }
            #expect(stale?.kind == .conflict)
            #expect(stale?.currentETag == edited.etag)
            #expect(stale?.description.contains("fetch it again") == true)
            #expect(try await chats.message(id: original.id)?.content == "Who was Aunt Lillian?")
            let listed = "\"x\", \(edited.etag)"
            #expect(try await chats.editMessage(id: original.id, content: "Who was Lil?", ifMatch: listed, by: "u-ruth", now: F.t0 + 7).version == 3)
            #expect(try await chats.editMessage(id: original.id, content: "Lil?", ifMatch: "*", by: "u-ruth", now: F.t0 + 8).version == 4)
            let weak = await #expect(throws: ChatStoreError.self) {
                try await chats.editMessage(id: original.id, content: "x", ifMatch: "W/\"m-\(original.id)-v4\"", by: "u-ruth", now: F.t0 + 9)
            }
            #expect(weak?.kind == .conflict)
        }
    }

    @Test("Of ten edits sent at once with the same ETag, exactly one succeeds", arguments: StoreBackend.allCases)
    func concurrentEditsWithOneETag(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let message = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?", now: F.t0)
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        (try? await chats.editMessage(id: message.id, content: "edit \(index)", ifMatch: message.etag, by: "u-ruth", now: F.t0 + 1)) != nil
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1)
            #expect(try await chats.message(id: message.id)?.version == 2)
            #expect(try await chats.readRetainedTexts(messageID: message.id, by: "u-admin").count == 1)
        }
    }

    @Test("Writing a reply moves its version, so an ETag taken mid-stream goes stale; a reply still streaming cannot be edited",
          arguments: StoreBackend.allCases)
    func repliesMoveVersions(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let reply = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "", status: .streaming, now: F.t0)
            let streaming = await #expect(throws: ChatStoreError.self) {
                try await chats.editMessage(id: reply.id, content: "x", ifMatch: "*", by: "u-coach")
            }
            #expect(streaming?.kind == .conflict)
            #expect(streaming?.currentETag == reply.etag)
            try await chats.finishMessage(id: reply.id, content: "Done.", status: .complete, now: F.t0 + 1)
            let stale = await #expect(throws: ChatStoreError.self) {
                try await chats.editMessage(id: reply.id, content: "x", ifMatch: reply.etag, by: "u-coach")
            }
            #expect(stale?.kind == .conflict)
            #expect(stale?.currentETag == "\"m-\(reply.id)-v2\"")
        }
    }

    @Test("Editing a deleted, archived or missing message, or one in a deleted thread, is not found; empty text is invalid",
          arguments: StoreBackend.allCases)
    func editNotFound(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let message = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?", now: F.t0 + days(600))
            for blank in ["", "  \n"] {
                let empty = await #expect(throws: ChatStoreError.self) {
                    try await chats.editMessage(id: message.id, content: blank, ifMatch: message.etag, by: "u-ruth")
                }
                #expect(empty?.kind == .invalid)
            }
            let nul = await #expect(throws: ChatStoreError.self) {
                try await chats.editMessage(id: message.id, content: "a\u{0}", ifMatch: message.etag, by: "u-ruth")
            }
            #expect(nul?.kind == .invalid)
            try await chats.softDeleteMessage(id: message.id, by: "u-ruth", now: F.t0 + days(601))
            let deleted = await #expect(throws: ChatStoreError.self) {
                try await chats.editMessage(id: message.id, content: "Who was Lil?", ifMatch: "*", by: "u-ruth")
            }
            #expect(deleted?.kind == .notFound)
            let missing = await #expect(throws: ChatStoreError.self) {
                try await chats.editMessage(id: "no-such-message", content: "Who was Lil?", ifMatch: "*", by: "u-ruth")
            }
            #expect(missing?.kind == .notFound)

            let old = try await chats.appendMessage(threadID: thread.id, role: .user, content: "An old question", now: F.t0)
            let other = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0 + days(600))
            let hidden = try await chats.appendMessage(threadID: other.id, role: .user, content: "In a deleted thread", now: F.t0 + days(600))
            _ = try await chats.deleteThread(id: other.id, now: F.t0 + days(600))
            try await chats.archiveMessages(olderThan: DateComponents(month: 18), now: F.t0 + days(600))
            #expect(try await chats.archivedMessages(threadID: thread.id).map(\.id) == [old.id])
            for id in [old.id, hidden.id] {
                let gone = await #expect(throws: ChatStoreError.self) {
                    try await chats.editMessage(id: id, content: "Edited", ifMatch: "*", by: "u-ruth")
                }
                #expect(gone?.kind == .notFound)
            }
        }
    }

    @Test("A delete with a stale If-Match is a conflict and deletes nothing; a repeated delete is false; a missing one not found",
          arguments: StoreBackend.allCases)
    func conditionalDelete(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let message = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Who was Aunt Lil?", now: F.t0)
            let edited = try await chats.editMessage(id: message.id, content: "Who was Lil?", ifMatch: message.etag, by: "u-ruth", now: F.t0 + 1)
            let stale = await #expect(throws: ChatStoreError.self) {
                try await chats.softDeleteMessage(id: message.id, by: "u-ruth", ifMatch: message.etag, now: F.t0 + 2)
            }
            #expect(stale?.kind == .conflict && stale?.currentETag == edited.etag)
            #expect(try await chats.message(id: message.id) != nil)
            #expect(try await chats.softDeleteMessage(id: message.id, by: "u-ruth", ifMatch: edited.etag, now: F.t0 + 3))
            #expect(try await !chats.softDeleteMessage(id: message.id, by: "u-ruth", ifMatch: edited.etag, now: F.t0 + 4))
            let missing = await #expect(throws: ChatStoreError.self) { try await chats.softDeleteMessage(id: "no-such-message", by: "u-ruth") }
            #expect(missing?.kind == .notFound)
        }
    }

    @Test("A deleted message hides at once and keeps no text: the text moves to the retained texts, out of the snapshots and the title",
          arguments: StoreBackend.allCases)
    func softDeleteMovesTheText(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let first = try await F.exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: F.t0)
            let second = try await F.exchange(chats, threadID: thread.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: F.t0 + 60)
            try await chats.nameThread(id: thread.id, from: "Who was Aunt Lil?")

            let deletions = try await AuditContext.$current.withValue(AuditContext(actorID: "u-ruth", ipHash: "ip-1")) {
                [try await chats.softDeleteMessage(id: first.question.id, by: "u-ruth", now: F.t0 + 120),
                 try await chats.softDeleteMessage(id: first.reply.id, by: "u-ruth", now: F.t0 + 121)]
            }
            #expect(deletions == [true, true])
            let deleted = try #require(try await chats.message(id: first.reply.id, includingDeleted: true))
            #expect(deleted.content == "" && deleted.deletedAt == F.t0 + 121 && deleted.version == first.reply.version)
            #expect(try await chats.message(id: first.reply.id) == nil)
            #expect(try await chats.recentMessages(threadID: thread.id, limit: 10).map(\.id) == [second.question.id, second.reply.id])
            #expect(try await chats.thread(id: thread.id)?.title == "", "the title copied the deleted question")

            // The turn that asked the question loses it, and the reply's turn its text, events and recording.
            let asked = try F.json(try #require(try await chats.turn(id: first.turn.id, includingDeleted: true)).snapshot)
            #expect(asked["question"] == nil)
            #expect(asked["redacted_question"] as? String == "deleted")
            #expect(asked["redacted_reply"] as? String == "deleted")
            #expect(asked["text"] as? String == "")
            #expect(asked["events"] == nil && asked["recording"] == nil)
            #expect((asked["citations"] as? [Any])?.isEmpty == true)
            #expect((asked["flags"] as? [Any]) != nil, "the rest of the snapshot stays")
            let untouched = try F.json(try #require(try await chats.turn(id: second.turn.id)).snapshot)
            #expect(untouched["question"] as? String == "And Uncle Ray?" && untouched["text"] as? String == "He drove the truck.")

            let retained = try await chats.readRetainedTexts(messageID: first.reply.id, by: "u-admin", now: F.t0 + 200)
            #expect(retained.count == 1)
            let kept = try #require(retained.first)
            #expect(kept.content == "She ran the store." && kept.reason == "deleted" && kept.role == "assistant" && kept.version == 1)
            #expect(kept.messageID == first.reply.id && kept.keptAt == F.t0 + 121 && kept.purgeAfter == F.t0 + 121 + F.days(30))
            let read = try #require(try await chats.auditEntries(AuditFilter(actions: [.retainedTextRead])).first)
            #expect(read.actorID == "u-admin" && read.userID == "u-ruth" && read.threadID == thread.id && read.messageID == first.reply.id)
            #expect(read.details == #"{"texts":1}"#)

            let deletion = try #require(try await chats.auditEntries(AuditFilter(messageID: first.question.id, actions: [.messageDelete])).first)
            #expect(deletion.details == #"{"role":"user","version":1}"#)
            #expect(deletion.actorID == "u-ruth" && deletion.ipHash == "ip-1" && deletion.userID == "u-ruth")
            #expect(try await chats.auditEntries().allSatisfy { !($0.details ?? "").contains("store") }, "the log never holds the text")

            // Reading a message that kept nothing is audited too.
            #expect(try await chats.readRetainedTexts(messageID: second.reply.id, by: "u-admin", now: F.t0 + 201).isEmpty)
            let empty = try #require(try await chats.auditEntries(AuditFilter(messageID: second.reply.id, actions: [.retainedTextRead])).first)
            #expect(empty.userID == "u-ruth" && empty.threadID == thread.id && empty.details == #"{"texts":0}"#)
            #expect(try await chats.readRetainedTexts(messageID: "no-such-message", by: "u-admin").isEmpty)
        }
    }

    @Test("An edit keeps the text before it for review, redacts the turn's copy as edited, and logs the moderation it passed",
          arguments: StoreBackend.allCases)
    func editRetainsTheOldText(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let first = try await F.exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: F.t0)
            let edited = try await AuditContext.$current.withValue(AuditContext(actorID: "u-ruth", ipHash: "ip-2")) {
                try await chats.editMessage(id: first.question.id, content: "Who was Aunt Lillian?", ifMatch: first.question.etag, by: "u-ruth",
                                            now: F.t0 + 10, moderation: #"{"harassment":0.01}"#, decision: "allow")
            }
            let snapshot = try F.json(try #require(try await chats.turn(id: first.turn.id)).snapshot)
            #expect(snapshot["question"] == nil && snapshot["redacted_question"] as? String == "edited")
            #expect(snapshot["text"] as? String == "She ran the store.", "the reply is not the edited message")
            let retained = try await chats.readRetainedTexts(messageID: first.question.id, by: "u-admin", now: F.t0 + 20)
            #expect(retained.map(\.content) == ["Who was Aunt Lil?"])
            #expect(retained.map(\.reason) == ["edited"] && retained.map(\.version) == [1])

            let entries = try await chats.auditEntries(AuditFilter(messageID: first.question.id, actions: [.messageUpdate, .messageModerate]))
            #expect(Set(entries.map(\.action)) == [.messageUpdate, .messageModerate])
            let update = try #require(entries.first { $0.action == .messageUpdate })
            #expect(update.details == #"{"reason":"edit","version":\#(edited.version)}"#)
            #expect(update.moderation == #"{"harassment":0.01}"# && update.ipHash == "ip-2" && update.actorID == "u-ruth")
            let moderated = try #require(entries.first { $0.action == .messageModerate })
            #expect(moderated.details == #"{"decision":"allow","input":"text","write":"edit"}"#)
        }
    }

    @Test("A deleted thread hides with all its messages at once; their texts are retained and the deletion logged with the count",
          arguments: StoreBackend.allCases)
    func softDeleteThread(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let other = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let lost = try await F.exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: F.t0)
            try await chats.softDeleteMessage(id: lost.question.id, by: "u-ruth", now: F.t0 + 30)
            try await F.exchange(chats, threadID: other.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: F.t0)

            #expect(try await chats.softDeleteThread(id: thread.id, by: "u-ruth", now: F.t0 + 60))
            #expect(try await !chats.softDeleteThread(id: thread.id, by: "u-ruth", now: F.t0 + 61))
            let missing = await #expect(throws: ChatStoreError.self) { try await chats.softDeleteThread(id: "no-such-thread", by: "u-ruth") }
            #expect(missing?.kind == .notFound)
            #expect(try await chats.thread(id: thread.id) == nil)
            #expect(try await chats.threads(userID: "u-ruth", assistant: "griot").map(\.id) == [other.id])
            #expect(try await chats.message(id: lost.reply.id, includingDeleted: true)?.content == "")
            #expect(try await chats.message(id: lost.reply.id, includingDeleted: true)?.deletedAt == F.t0 + 60)
            #expect(try await chats.readRetainedTexts(messageID: lost.reply.id, by: "u-admin").map(\.content) == ["She ran the store."])
            let deletion = try #require(try await chats.auditEntries(AuditFilter(actions: [.threadDelete])).first)
            #expect(deletion.threadID == thread.id && deletion.userID == "u-ruth" && deletion.details == #"{"messages":1}"#)
            #expect(try await chats.messages(threadID: other.id).messages.count == 2)
        }
    }

    @Test("Appends, edits, deletes, read markers and a thread delete racing on one thread all end, none with a database error",
          arguments: StoreBackend.allCases)
    func racingWritesOnOneThread(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            var messages: [MessageRecord] = []
            for index in 0..<8 {
                messages.append(try await chats.appendMessage(threadID: thread.id, role: index % 2 == 0 ? .user : .assistant,
                                                              content: "m\(index)", now: F.t0 + Double(index)))
            }
            let written = messages
            // Each write either happens or is refused with a ChatStoreError (e.g. not found once
            // the thread is deleted): a deadlock or a duplicate sequence would be another error.
            let failures = await withTaskGroup(of: String?.self) { group in
                func run(_ write: @escaping @Sendable () async throws -> Void) {
                    group.addTask {
                        do { try await write() } catch is ChatStoreError { return nil } catch { return String(reflecting: error) }
                        return nil
                    }
                }
                for index in 0..<6 {
                    run { _ = try await chats.appendMessage(threadID: thread.id, role: .user, content: "new \(index)", now: F.t0 + 100) }
                }
                for message in written {
                    run { _ = try await chats.editMessage(id: message.id, content: "edited", ifMatch: "*", by: "u-ruth", now: F.t0 + 101) }
                    run { _ = try await chats.softDeleteMessage(id: message.id, by: "u-ruth", now: F.t0 + 102) }
                    run { try await chats.markRead(threadID: thread.id, messageID: message.id) }
                }
                run { _ = try await chats.softDeleteThread(id: thread.id, by: "u-ruth", now: F.t0 + 103) }
                return await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
            }
            #expect(failures.isEmpty)
            #expect(try await chats.thread(id: thread.id) == nil)
        }
    }

    private func days(_ count: Double) -> TimeInterval { F.days(count) }
}
