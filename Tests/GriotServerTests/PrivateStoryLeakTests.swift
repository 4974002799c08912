import Foundation
import GriotArchive
import GriotChat
import GriotEmbedding
import GriotExport
import GriotStore
import GriotStories
import GriotTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// A family-only story holds a relative's phone number and address. A family member asks about
/// her; the model repeats both and cites the story. What the gate masks in the reply is masked
/// everywhere else the turn goes: every stream event (citation quotes included), the JSON
/// reply's `relevant_excerpt`, the stored message and turn snapshot (its events and the model's
/// recorded reply), a thread export and a replay.
@Suite struct PrivateStoryLeakTests {
    static let story = Story(
        artifactID: "okafor-aunt-adaeze", title: "Where Aunt Adaeze Lives Now", interviewees: ["Grace Okafor"],
        people: ["Adaeze Okafor", "Grace Okafor"], privacy: .familyOnly, ownerUserID: "u-grace", familyGroupIDs: ["fam-okafor"],
        transcript: Transcript(text: """
            My sister Adaeze Okafor lives at 4417 Larchmont Avenue, Dayton, OH 45402 since the spring. \
            You can call her at (937) 555-0148 any evening after supper. \
            She keeps the family Bible and the photographs from Enugu in a cedar chest.
            """))

    /// The unmasked values, and pieces of them a partial leak would show.
    static let secrets = ["555-0148", "555 0148", "5550148", "4417 Larchmont", "Larchmont Avenue", "45402"]

    static let reply = [
        "Aunt Adaeze lives at 4417 Larchmont ", "Avenue, Dayton, OH 45402 [1]. ",
        "Grace says her number is (937) 555-", "0148, any evening [1]. ",
        "She keeps “the family Bible and the photographs from Enugu” [1].",
    ]

    /// A public story (archival text anyone may read) with a 1930s street address.
    static let archival = Story(
        artifactID: "dryades-shoe-shop", title: "The Shoe Shop on Dryades", interviewees: ["Lucille Marchand"],
        privacy: .public,
        transcript: Transcript(text: """
            In 1936 we lived over the shop at 1412 Dryades Street, New Orleans, Louisiana. \
            Papa mended shoes downstairs and Mama kept the books at the kitchen table.
            """))

    static let archiveLoad = Task {
        let archive = StoryArchive(storage: try! await TestDatabase.storage(), embedder: try! SentenceEmbedder())
        _ = try! await archive.ingest([story, archival])
        return archive
    }
    /// Waits for `archiveLoad` (built once, by the first test that asks).
    static var archive: StoryArchive { get async { await archiveLoad.value } }

    func expectNoSecret(_ text: String, _ place: String) {
        for secret in Self.secrets {
            #expect(!text.contains(secret), "\(place) holds \(secret)")
        }
    }

    @Test func nothingTheGateMasksLeaksThroughTheStreamTheJSONReplyTheStoreAnExportOrAReplay() async throws {
        try await StubChatServer.with({ _ in .stream(Self.reply, model: "stub-model") }) { stub in
            let service = try await TestService(provider: try RemoteProviderForTests.make(stub.baseURL), archive: Self.archive)
            let headers = try await service.headers("u-ben", families: ["fam-okafor"])
            let question = "How can I reach Aunt Adaeze?"
            try await service.test(.live) { client in
                let stream = try await live(client, .POST, "/api/griot/chat/stream", headers: headers,
                                            body: body(["message": question, "session_id": "okafor-leak-1"]))
                #expect(stream.status == 200)
                expectNoSecret(stream.text, "the stream")
                let events = frames(stream.text)
                let citation = try #require(events.first { $0.event == "citation" }?.data)
                #expect(citation["story_id"] as? String == "okafor-aunt-adaeze")
                #expect((citation["quote"] as? String)?.contains("[ADDRESS]") == true, "the quote is masked as the reply is")
                let done = try #require(events.last { $0.event == "done" }?.data)
                let text = try #require(done["text"] as? String)
                #expect(text.contains("[PHONE]") && text.contains("[ADDRESS]"))
                #expect(text.contains("Enugu"), "the rest of the reply is as the model wrote it")
                let flags = (done["flags"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
                #expect(flags.contains("pii_masked"))
                #expect(!flags.contains("low_groundedness"), "a masked sentence does not read as invented: \(flags)")
                #expect(!flags.contains("citation_unsupported"), "\(flags)")

                let reply = try await live(client, .POST, "/api/griot/chat", headers: headers,
                                           body: body(["message": question, "session_id": "okafor-leak-1"]))
                #expect(reply.status == 200)
                expectNoSecret(reply.text, "the JSON reply")
                let excerpts = (object(reply.text)["citations"] as? [[String: Any]] ?? []).compactMap { $0["relevant_excerpt"] as? String }
                #expect(excerpts.contains { $0.contains("[ADDRESS]") }, "\(excerpts)")

                let session = try await live(client, .GET, "/api/griot/sessions/okafor-leak-1", headers: headers)
                #expect(session.status == 200)
                expectNoSecret(session.text, "the stored session")
            }

            let chats = service.engine.chats
            let thread = try #require(try await chats.thread(id: "okafor-leak-1"))
            let messages = try await chats.recentMessages(threadID: thread.id, limit: 50)
            #expect(messages.count == 4)
            for message in messages where message.role == .assistant { expectNoSecret(message.content, "a stored reply") }
            let turns = try await chats.turns(threadID: thread.id)
            #expect(turns.count == 2)
            for turn in turns {
                expectNoSecret(turn.snapshot, "turn \(turn.id)'s snapshot")
                let snapshot = try TurnSnapshot.decode(turn.snapshot)
                #expect(snapshot.recording?.events.isEmpty == false, "the model's reply is recorded, masked")
                #expect(snapshot.events?.isEmpty == false)
            }
            let export = ThreadExport(thread: thread, messages: messages, courseTitle: nil, exportedBy: "u-admin", exportedAt: Date())
            expectNoSecret(String(decoding: try export.json(), as: UTF8.self), "the JSON export")

            let operatorHeaders = try await service.headers("u-ops", role: .operator)
            try await service.test(.live) { client in
                for cassette in [true, false] {
                    let replay = try await live(client, .POST, "/api/ops/replay", headers: operatorHeaders,
                                                body: body(["id": turns[0].id, "cassette": cassette]))
                    #expect(replay.status == 200, "\(replay.text)")
                    expectNoSecret(replay.text, cassette ? "a cassette replay" : "a live replay")
                    #expect(replay.text.contains("[PHONE]"))
                }
            }
        }
    }

    /// A value the user wrote in the thread is theirs to see again, in the reply and in the quote.
    @Test func aNumberTheAskerSharedStaysInTheReplyAndTheQuote() async throws {
        let reply = ["Yes, Grace says her number is still (937) 555-0148, any evening [1]."]
        try await StubChatServer.with({ _ in .stream(reply, model: "stub-model") }) { stub in
            let service = try await TestService(provider: try RemoteProviderForTests.make(stub.baseURL), archive: Self.archive)
            let headers = try await service.headers("u-ben", families: ["fam-okafor"])
            try await service.test(.live) { client in
                let stream = try await live(client, .POST, "/api/griot/chat/stream", headers: headers,
                                            body: body(["message": "Is Aunt Adaeze's number still 937-555-0148?"]))
                let events = frames(stream.text)
                let done = try #require(events.last { $0.event == "done" }?.data)
                #expect((done["text"] as? String)?.contains("(937) 555-0148") == true)
                let quote = try #require(events.first { $0.event == "citation" }?.data["quote"] as? String)
                #expect(quote == "You can call her at (937) 555-0148 any evening after supper.")
            }
        }
    }

    /// The rule for public archival text: a value written in a public story the viewer was
    /// given is not personal data the reply leaks (anyone may read that passage), so it stays
    /// as written, in the text and in the quote, and the answer built on it is not flagged.
    @Test func anAddressInAPublicStoryStaysAsWrittenAndTheAnswerIsNotFlagged() async throws {
        let reply = ["In 1936 the Marchands lived over the shop at 1412 Dryades Street, ", "New Orleans, Louisiana [1]. ",
                     "Papa mended shoes downstairs [1]."]
        try await StubChatServer.with({ _ in .stream(reply, model: "stub-model") }) { stub in
            let service = try await TestService(provider: try RemoteProviderForTests.make(stub.baseURL), archive: Self.archive)
            let headers = try await service.headers("u-visitor")
            try await service.test(.live) { client in
                let stream = try await live(client, .POST, "/api/griot/chat/stream", headers: headers,
                                            body: body(["message": "Where was the shoe shop on Dryades?"]))
                let events = frames(stream.text)
                let done = try #require(events.last { $0.event == "done" }?.data)
                #expect((done["text"] as? String)?.contains("1412 Dryades Street, New Orleans, Louisiana [1].") == true, "\(done["text"] ?? "")")
                let flags = (done["flags"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
                #expect(!flags.contains("pii_masked"), "\(flags)")
                #expect(!flags.contains("low_groundedness"), "\(flags)")
                let quote = try #require(events.first { $0.event == "citation" }?.data["quote"] as? String)
                #expect(quote.contains("1412 Dryades Street"))
            }
        }
    }
}
