import Foundation
import GriotStore
import Testing

/// What every `ChatStore` does, on each backend: threads, messages and their sequences,
/// replies being written, scrollback, read markers, turns, courses and profiles.
@Suite("Chat store: threads, messages and turns")
struct ChatStoreConformanceTests {
    typealias F = ChatFixtures

    @Test("A thread is created, read, listed most recently active first, named once and hidden by deleteThread", arguments: StoreBackend.allCases)
    func threadsLifecycle(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let older = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let newer = try await chats.createThread(assistant: "griot", userID: "u-ruth", title: "Set", now: F.t0 + 10)
            try await chats.createThread(assistant: "coach", userID: "u-ruth", now: F.t0)
            try await chats.createThread(assistant: "griot", userID: "u-simone", now: F.t0)
            #expect(try await chats.thread(id: older.id) == older)
            #expect(try await chats.threads(userID: "u-ruth", assistant: "griot").map(\.id) == [newer.id, older.id])

            // A message touches its thread, which then lists first.
            try await chats.appendMessage(threadID: older.id, role: .user, content: "Who was Aunt Lil?", now: F.t0 + 20)
            #expect(try await chats.threads(userID: "u-ruth", assistant: "griot").map(\.id) == [older.id, newer.id])
            #expect(try await chats.thread(id: older.id)?.updatedAt == F.t0 + 20)

            // Named after allowed text, trimmed and cut to the title length, and only while untitled.
            let long = "  " + String(repeating: "a", count: 100) + "\n"
            try await chats.nameThread(id: older.id, from: long)
            try await chats.nameThread(id: older.id, from: "Another name")
            try await chats.nameThread(id: newer.id, from: "Another name")
            #expect(try await chats.thread(id: older.id)?.title == String(repeating: "a", count: ThreadRecord.titleLength))
            #expect(try await chats.thread(id: newer.id)?.title == "Set")

            let summaries = try await chats.threadSummaries(userID: "u-ruth", assistant: "griot")
            #expect(summaries.map(\.thread.id) == [older.id, newer.id])
            #expect(summaries.map(\.messageCount) == [1, 0])

            #expect(try await chats.deleteThread(id: older.id, now: F.t0 + 30))
            #expect(try await !chats.deleteThread(id: older.id, now: F.t0 + 40))
            #expect(try await !chats.deleteThread(id: "no-such-thread"))
            #expect(try await chats.thread(id: older.id) == nil)
            #expect(try await chats.threadExists(id: older.id), "a deleted thread's id stays taken")
            #expect(try await !chats.threadExists(id: "no-such-thread"))
            #expect(try await chats.recentMessages(threadID: older.id, limit: 10).isEmpty)
            #expect(try await chats.threadSummaries(userID: "u-ruth", assistant: "griot").map(\.thread.id) == [newer.id])
        }
    }

    @Test("Ten requests racing for a user's course thread all get the one thread", arguments: StoreBackend.allCases)
    func courseThreadRace(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let threads = try await withThrowingTaskGroup(of: ThreadRecord.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await chats.courseThread(assistant: "coach", userID: "u-maya", courseID: "c-1", title: "Course 1") }
                }
                return try await group.reduce(into: [ThreadRecord]()) { $0.append($1) }
            }
            #expect(threads.count == 10)
            #expect(Set(threads.map(\.id)).count == 1)
            #expect(try await chats.threads(userID: "u-maya", assistant: "coach").count == 1)
            let first = try #require(threads.first)
            #expect(first.courseID == "c-1" && first.title == "Course 1")
            // Another course, user or assistant has a thread of its own; a deleted one is replaced.
            #expect(try await chats.courseThread(assistant: "coach", userID: "u-maya", courseID: "c-2").id != first.id)
            #expect(try await chats.courseThread(assistant: "coach", userID: "u-amos", courseID: "c-1").id != first.id)
            try await chats.deleteThread(id: first.id)
            let replacement = try await chats.courseThread(assistant: "coach", userID: "u-maya", courseID: "c-1")
            #expect(replacement.id != first.id)
            #expect(try await chats.courseThread(assistant: "coach", userID: "u-maya", courseID: "c-1").id == replacement.id)
        }
    }

    @Test("Twenty messages appended to one thread at once take twenty distinct places, 1 to 20", arguments: StoreBackend.allCases)
    func concurrentAppends(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let messages = try await withThrowingTaskGroup(of: MessageRecord.self) { group in
                for index in 0..<20 {
                    group.addTask { try await chats.appendMessage(threadID: thread.id, role: .user, content: "m\(index)", now: F.t0 + Double(index)) }
                }
                return try await group.reduce(into: [MessageRecord]()) { $0.append($1) }
            }
            #expect(messages.map(\.sequence).sorted() == Array(1...20))
            let stored = try await chats.recentMessages(threadID: thread.id, limit: 50)
            #expect(stored.map(\.sequence) == Array(1...20))
            #expect(Set(stored.map(\.id)) == Set(messages.map(\.id)))
            #expect(try await chats.auditEntries(AuditFilter(threadID: thread.id, limit: 100)).count == 20)
        }
    }

    @Test("An appended message is stored as returned, with its input mode; text with a NUL is refused", arguments: StoreBackend.allCases)
    func appendStoresWhatItReturns(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "coach", userID: "u-maya", now: F.t0)
            let spoken = try await chats.appendMessage(threadID: thread.id, role: .user, content: "hello from the car", turnID: "turn-1",
                                                       now: F.t0 + 1, inputMode: "voice")
            #expect(spoken.sequence == 1 && spoken.version == 1 && spoken.status == .complete && spoken.turnID == "turn-1")
            #expect(spoken.createdAt == F.t0 + 1 && spoken.updatedAt == F.t0 + 1 && spoken.deletedAt == nil && spoken.error == nil)
            #expect(try await chats.message(id: spoken.id) == spoken)
            #expect(try await chats.inputMode(messageID: spoken.id) == "voice")
            let typed = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "Hi", now: F.t0 + 2)
            #expect(try await chats.inputMode(messageID: typed.id) == "text")
            #expect(try await chats.inputMode(messageID: "no-such-message") == nil)
            #expect(try await chats.message(id: "no-such-message") == nil)

            let refused = await #expect(throws: ChatStoreError.self) {
                try await chats.appendMessage(threadID: thread.id, role: .user, content: "a\u{0}b", now: F.t0 + 3)
            }
            #expect(refused?.kind == .invalid)
            #expect(refused?.description.contains("NUL") == true)
            #expect(try await chats.recentMessages(threadID: thread.id, limit: 10).count == 2)
            await #expect(throws: (any Error).self, "a message needs its thread") {
                try await chats.appendMessage(threadID: "no-such-thread", role: .user, content: "Hello", now: F.t0)
            }
        }
    }

    @Test("A reply is written while it streams, moving its version; only its end is logged, and an ended reply keeps its text",
          arguments: StoreBackend.allCases)
    func streamingReplies(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let reply = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "", status: .streaming, now: F.t0)
            let other = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "", status: .streaming, now: F.t0)
            try await chats.saveStreamingTexts([(id: reply.id, content: "Aunt"), (id: other.id, content: "Uncle")], now: F.t0 + 1)
            try await chats.saveStreamingTexts([], now: F.t0 + 1)
            #expect(try await chats.message(id: reply.id)?.content == "Aunt")
            #expect(try await chats.message(id: reply.id)?.version == 2)
            try await chats.finishMessage(id: reply.id, content: "Aunt Lil", status: .streaming, now: F.t0 + 2)
            try await chats.finishMessage(id: reply.id, content: "Aunt Lil ran the store.", status: .complete, now: F.t0 + 3)
            try await chats.finishMessage(id: other.id, content: "Uncle R", status: .failed, error: "The provider broke off.", now: F.t0 + 3)
            try await chats.saveStreamingTexts([(id: reply.id, content: "late flush")], now: F.t0 + 4)

            let finished = try #require(try await chats.message(id: reply.id))
            #expect(finished.content == "Aunt Lil ran the store.")
            #expect(finished.status == .complete && finished.version == 4 && finished.updatedAt == F.t0 + 3)
            let failed = try #require(try await chats.message(id: other.id))
            #expect(failed.status == .failed && failed.error == "The provider broke off.")

            let updates = try await chats.auditEntries(AuditFilter(actions: [.messageUpdate]))
            #expect(updates.count == 2)
            let update = try #require(updates.first { $0.messageID == reply.id })
            #expect(update.details == #"{"reason":"reply","status":"complete","version":4}"#)
            #expect(update.userID == "u-ruth" && update.threadID == thread.id && update.actorID == nil)
            // Finishing a message that is not there does nothing.
            try await chats.finishMessage(id: "no-such-message", content: "x", status: .complete)
            #expect(try await chats.auditEntries(AuditFilter(actions: [.messageUpdate])).count == 2)
        }
    }

    @Test("Scrollback pages go back oldest first to the start; recent messages and user texts leave deleted ones out",
          arguments: StoreBackend.allCases)
    func scrollback(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            var messages: [MessageRecord] = []
            for index in 0..<7 {
                messages.append(try await chats.appendMessage(threadID: thread.id, role: index % 2 == 0 ? .user : .assistant,
                                                              content: "m\(index)", now: F.t0 + Double(index)))
            }
            let newest = try await chats.messages(threadID: thread.id, limit: 3)
            #expect(newest.messages.map(\.content) == ["m4", "m5", "m6"])
            #expect(newest.earlier == 5)
            let middle = try await chats.messages(threadID: thread.id, before: newest.earlier, limit: 3)
            #expect(middle.messages.map(\.content) == ["m1", "m2", "m3"])
            let first = try await chats.messages(threadID: thread.id, before: middle.earlier, limit: 3)
            #expect(first.messages.map(\.content) == ["m0"])
            #expect(first.earlier == nil)
            #expect(try await chats.messages(threadID: thread.id, limit: 7).earlier == nil)
            #expect(try await chats.messages(threadID: thread.id, limit: 0).messages.map(\.content) == ["m6"], "a page holds at least one")

            #expect(try await chats.recentMessages(threadID: thread.id, limit: 2).map(\.content) == ["m5", "m6"])
            #expect(try await chats.recentMessages(threadID: thread.id, limit: 2, beforeSequence: 3).map(\.content) == ["m0", "m1"])
            #expect(try await chats.recentMessages(threadID: thread.id, limit: -1).count == 7, "a negative limit is none")

            try await chats.softDeleteMessage(id: messages[2].id, by: "u-ruth", now: F.t0 + 10)
            #expect(try await chats.messages(threadID: thread.id, limit: 10).messages.map(\.content) == ["m0", "m1", "m3", "m4", "m5", "m6"])
            #expect(try await chats.userTexts(threadID: thread.id) == ["m0", "m4", "m6"])
            // A paging cursor outlives a delete of the message it names.
            #expect(try await chats.sequence(ofMessage: messages[2].id, inThread: thread.id) == 3)
            #expect(try await chats.sequence(ofMessage: messages[2].id, inThread: "another-thread") == nil)
            #expect(try await chats.sequence(ofMessage: "no-such-message", inThread: thread.id) == nil)
        }
    }

    @Test("Unread counts the replies after the read marker, which only moves forward", arguments: StoreBackend.allCases)
    func unreadAndReadMarker(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let first = try await F.exchange(chats, threadID: thread.id, question: "Who was Aunt Lil?", reply: "She ran the store.", at: F.t0)
            let second = try await F.exchange(chats, threadID: thread.id, question: "And Uncle Ray?", reply: "He drove the truck.", at: F.t0 + 60)
            #expect(try await chats.unreadCount(threadID: thread.id) == 2)
            try await chats.markRead(threadID: thread.id, messageID: first.reply.id)
            #expect(try await chats.unreadCount(threadID: thread.id) == 1)
            try await chats.markRead(threadID: thread.id, messageID: second.question.id)
            #expect(try await chats.unreadCount(threadID: thread.id) == 1)
            try await chats.markRead(threadID: thread.id, messageID: second.reply.id)
            #expect(try await chats.unreadCount(threadID: thread.id) == 0)
            try await chats.markRead(threadID: thread.id, messageID: first.reply.id)
            #expect(try await chats.thread(id: thread.id)?.lastReadMessageID == second.reply.id)
            try await chats.appendMessage(threadID: thread.id, role: .user, content: "Thanks", now: F.t0 + 120)
            #expect(try await chats.unreadCount(threadID: thread.id) == 0, "the user's own message is not unread")

            let other = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let elsewhere = try await chats.appendMessage(threadID: other.id, role: .assistant, content: "Hi", now: F.t0)
            let wrongThread = await #expect(throws: ChatStoreError.self) { try await chats.markRead(threadID: thread.id, messageID: elsewhere.id) }
            #expect(wrongThread?.kind == .notFound)
            let noThread = await #expect(throws: ChatStoreError.self) { try await chats.unreadCount(threadID: "no-such-thread") }
            #expect(noThread?.kind == .notFound)
            let noMarkThread = await #expect(throws: ChatStoreError.self) { try await chats.markRead(threadID: "no-such-thread", messageID: elsewhere.id) }
            #expect(noMarkThread?.kind == .notFound)
        }
    }

    @Test("Replies left streaming by a stopped service become interrupted with their turns; live and ended ones are left alone",
          arguments: StoreBackend.allCases)
    func interruptedSweeps(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let stale = try await F.exchange(chats, threadID: thread.id, question: "q1", reply: "partial", at: F.t0, status: .streaming)
            let live = try await F.exchange(chats, threadID: thread.id, question: "q2", reply: "writing", at: F.t0 + 55, status: .streaming)
            let done = try await F.exchange(chats, threadID: thread.id, question: "q3", reply: "whole", at: F.t0)

            #expect(try await chats.markInterruptedReplies(staleAfter: 30, now: F.t0 + 60) == 1)
            let interrupted = try #require(try await chats.message(id: stale.reply.id))
            #expect(interrupted.status == .interrupted && interrupted.updatedAt == F.t0 + 60)
            #expect(interrupted.error?.contains("ask again") == true)
            #expect(try await chats.turn(id: stale.turn.id)?.status == .interrupted)
            #expect(try await chats.turn(id: stale.turn.id)?.finishedAt == F.t0 + 60)
            #expect(try await chats.message(id: live.reply.id)?.status == .streaming)
            #expect(try await chats.turn(id: live.turn.id)?.status == .streaming)
            #expect(try await chats.markInterruptedReplies(staleAfter: 30, now: F.t0 + 60) == 0)

            // At shutdown: the node's own replies, streaming or stopped; a complete one stays.
            try await chats.finishMessage(id: live.reply.id, content: "writ", status: .stopped, now: F.t0 + 70)
            #expect(try await chats.markInterrupted(replyIDs: [live.reply.id, done.reply.id, "no-such-message"], now: F.t0 + 80) == 1)
            #expect(try await chats.markInterrupted(replyIDs: [], now: F.t0 + 80) == 0)
            #expect(try await chats.message(id: live.reply.id)?.status == .interrupted)
            #expect(try await chats.message(id: live.reply.id)?.error?.contains("restarted") == true)
            #expect(try await chats.turn(id: live.turn.id)?.status == .interrupted)
            #expect(try await chats.message(id: done.reply.id)?.status == .complete)
            #expect(try await chats.turn(id: done.turn.id)?.status == .complete)
        }
    }

    @Test("A turn is saved, replaced by its id, listed in order, and filtered by assistant, status, time, flag and groundedness",
          arguments: StoreBackend.allCases)
    func turnsAndFilters(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: F.t0)
            let coach = try await chats.createThread(assistant: "coach", userID: "u-maya", now: F.t0)
            let plain = try await F.exchange(chats, threadID: thread.id, question: "q1", reply: "r1", at: F.t0, groundedness: 0.9)
            let flagged = try await F.exchange(chats, threadID: thread.id, question: "q2", reply: "r2", at: F.t0 + 60,
                                               flags: ["pii_masked", "low_groundedness"], groundedness: 0.2)
            let failed = try await F.exchange(chats, threadID: thread.id, question: "q3", reply: "r3", at: F.t0 + 120, status: .failed)
            let coached = try await F.exchange(chats, threadID: coach.id, question: "q4", reply: "r4", at: F.t0 + 180, assistant: "coach",
                                               flags: ["crisis"], groundedness: 0.39)

            #expect(try await chats.turn(id: plain.turn.id) == plain.turn)
            #expect(try await chats.turns(threadID: thread.id).map(\.id) == [plain.turn.id, flagged.turn.id, failed.turn.id])
            var replaced = failed.turn
            replaced.status = .complete
            replaced.model = "griot-extractive-2"
            replaced.finishedAt = F.t0 + 130
            try await chats.saveTurn(replaced)
            #expect(try await chats.turn(id: failed.turn.id) == replaced)

            func ids(_ filter: TurnFilter) async throws -> [String] { try await chats.recentTurns(filter).map(\.id) }
            #expect(try await ids(TurnFilter()) == [coached.turn.id, failed.turn.id, flagged.turn.id, plain.turn.id])
            #expect(try await ids(TurnFilter(assistant: "coach")) == [coached.turn.id])
            #expect(try await ids(TurnFilter(status: .complete, limit: 2)) == [coached.turn.id, failed.turn.id])
            #expect(try await ids(TurnFilter(since: F.t0 + 60, until: F.t0 + 180)) == [failed.turn.id, flagged.turn.id])
            #expect(try await ids(TurnFilter(flag: "pii_masked")) == [flagged.turn.id])
            #expect(try await ids(TurnFilter(flag: "crisis")) == [coached.turn.id])
            #expect(try await ids(TurnFilter(flag: "copyright_review")).isEmpty)
            #expect(try await ids(TurnFilter(lowGroundedness: true)) == [coached.turn.id, flagged.turn.id])
            #expect(try await ids(TurnFilter(assistant: "griot", flag: "low_groundedness", lowGroundedness: true)) == [flagged.turn.id])
            #expect(try await ids(TurnFilter(limit: 0)) == [coached.turn.id], "at least one")

            // A turn whose reply was deleted is left out of every list, and shown to an admin.
            try await chats.softDeleteMessage(id: flagged.reply.id, by: "u-ruth", now: F.t0 + 200)
            #expect(try await ids(TurnFilter(flag: "pii_masked")).isEmpty)
            #expect(try await chats.turn(id: flagged.turn.id) == nil)
            #expect(try await chats.turn(id: flagged.turn.id, includingDeleted: true) != nil)
            #expect(try await chats.turns(threadID: thread.id).map(\.id) == [plain.turn.id, failed.turn.id])
            #expect(try await chats.turns(threadID: thread.id, includingDeleted: true).count == 3)
        }
    }

    @Test("Courses and profiles are saved, replaced and read back", arguments: StoreBackend.allCases)
    func coursesAndProfiles(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let course = CourseRecord(id: "c-1", title: "Oral history", summary: "Interviews", customInstructions: "Be brief.", updatedAt: F.t0)
            try await chats.saveCourse(course)
            #expect(try await chats.course(id: "c-1") == course)
            let changed = CourseRecord(id: "c-1", title: "Oral history II", updatedAt: F.t0 + 60)
            try await chats.saveCourse(changed)
            #expect(try await chats.course(id: "c-1") == changed)
            #expect(try await chats.course(id: "c-2") == nil)

            let profile = ProfileRecord(userID: "u-ruth", displayName: "Ruth", bio: "I grew up in Greenville.", updatedAt: F.t0)
            try await chats.saveProfile(profile)
            #expect(try await chats.profile(userID: "u-ruth") == profile)
            let anonymous = ProfileRecord(userID: "u-ruth", displayName: nil, bio: "", updatedAt: F.t0 + 60)
            try await chats.saveProfile(anonymous)
            #expect(try await chats.profile(userID: "u-ruth") == anonymous)
            #expect(try await chats.profile(userID: "u-simone") == nil)
        }
    }

    /// Found by the server suite on PostgreSQL (HostileInputTests): a NUL in a course's
    /// instructions was a bare PSQLError there, so the course route answered 500. Refused as
    /// invalid now on both backends, as a message's NUL is (SQLite had stored such a course and
    /// read it back cut short at the NUL).
    @Test("A course or profile holding a NUL character is refused whole as invalid, naming the NUL", arguments: StoreBackend.allCases)
    func nulInCoursesAndProfiles(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            try await Self.expectNULRefused(by: storage.chats)
        }
    }

    static func expectNULRefused(by chats: any ChatStore) async throws {
        let course = await #expect(throws: ChatStoreError.self) {
            try await chats.saveCourse(CourseRecord(id: "c-1", title: "Oral history", customInstructions: "Be\u{0}brief.", updatedAt: F.t0))
        }
        #expect(course?.kind == .invalid && course?.description.contains("NUL") == true)
        #expect(try await chats.course(id: "c-1") == nil)
        let profile = await #expect(throws: ChatStoreError.self) {
            try await chats.saveProfile(ProfileRecord(userID: "u-ruth", displayName: "Ruth", bio: "Green\u{0}ville", updatedAt: F.t0))
        }
        #expect(profile?.kind == .invalid && profile?.description.contains("NUL") == true)
        #expect(try await chats.profile(userID: "u-ruth") == nil)
    }

    @Test("Text in any script is stored, edited, named and read back exactly", arguments: StoreBackend.allCases)
    func textInManyScripts(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            for (index, text) in F.scripts.enumerated() {
                let thread = try await chats.createThread(assistant: "griot", userID: "u-\(text)", title: "", now: F.t0)
                let message = try await chats.appendMessage(threadID: thread.id, role: .user, content: text, now: F.t0 + Double(index))
                try await chats.nameThread(id: thread.id, from: text)
                // Scalar by scalar: Swift's == would take a precomposed é for e and a combining accent.
                let read = try #require(try await chats.message(id: message.id))
                #expect(Array(read.content.unicodeScalars) == Array(text.unicodeScalars))
                #expect(try await chats.thread(id: thread.id).map { Array($0.title.unicodeScalars) } == Array(text.unicodeScalars))
                #expect(try await chats.threads(userID: "u-\(text)", assistant: "griot").map(\.id) == [thread.id])
                #expect(try await chats.userTexts(threadID: thread.id) == [text])

                let edited = text + " — " + F.scripts[(index + 1) % F.scripts.count]
                let stored = try await chats.editMessage(id: message.id, content: edited, ifMatch: message.etag, by: "u-\(text)", now: F.t0 + 100)
                #expect(stored.content == edited)
                #expect(try await chats.message(id: message.id).map { Array($0.content.unicodeScalars) } == Array(edited.unicodeScalars))
                // The thread was named after the old text, so the edit took the title with it.
                #expect(try await chats.thread(id: thread.id)?.title == "")
                let retained = try await chats.readRetainedTexts(messageID: message.id, by: "u-admin", now: F.t0 + 200)
                #expect(retained.map { Array($0.content.unicodeScalars) } == [Array(text.unicodeScalars)])

                let turn = TurnRecord(id: "turn-\(index)", threadID: thread.id, userMessageID: "elsewhere", assistantMessageID: nil, assistant: "griot",
                                      promptVersion: 1, promptHash: "h", provider: "p", model: "m", status: .complete, startedAt: F.t0,
                                      finishedAt: nil, snapshot: F.snapshot(question: text, reply: edited))
                try await chats.saveTurn(turn)
                #expect(try await chats.turn(id: turn.id)?.snapshot == turn.snapshot)
                try await chats.saveCourse(CourseRecord(id: "c-\(index)", title: text, summary: edited, customInstructions: text, updatedAt: F.t0))
                #expect(try await chats.course(id: "c-\(index)")?.title == text)
                try await chats.saveProfile(ProfileRecord(userID: "u-\(text)", displayName: text, bio: edited, updatedAt: F.t0))
                #expect(try await chats.profile(userID: "u-\(text)")?.displayName == text)
            }
        }
    }

    @Test("Dates come back to the millisecond", arguments: StoreBackend.allCases)
    func millisecondDates(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let moment = F.t0 + 0.25
            let thread = try await chats.createThread(assistant: "griot", userID: "u-ruth", now: moment)
            let message = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Hello", now: moment + 0.5)
            let created = try #require(try await chats.thread(id: thread.id)?.createdAt)
            #expect(abs(created.timeIntervalSince(moment)) < 0.000_001)
            let sent = try #require(try await chats.message(id: message.id)?.createdAt)
            #expect(abs(sent.timeIntervalSince(moment + 0.5)) < 0.000_001)
            let odd = Date(timeIntervalSince1970: 1_750_000_000.1234)
            let later = try await chats.appendMessage(threadID: thread.id, role: .user, content: "Again", now: odd)
            let read = try #require(try await chats.message(id: later.id)?.createdAt)
            #expect(abs(read.timeIntervalSince(odd)) < 0.001)
        }
    }
}
