import Foundation
import GriotArchive
import GriotAuth
import GriotChat
import GriotEmbedding
import GriotEval
import GriotStore
import GriotStories
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 26, item 4: what operators may read. An operator replaying a turn that cited a private
/// story sees a masked excerpt of it, and the full text only while the story's owner has a
/// support grant in force; each read is in the audit log on the owner, and the owner sees the
/// grant and the reads made under it.
@Suite struct OperatorAccessTests {
    static let story = Story(
        artifactID: "quist-letters-under-the-floor", title: "Tobias Quist's Letters Under the Floor", interviewees: ["Ruth Quist"],
        people: ["Ruth Quist", "Tobias Quist"], privacy: .private, ownerUserID: "u-ruth",
        transcript: Transcript(text: """
            In 1952 my father Tobias Quist hid forty letters from his brother under the kitchen floorboards of the farmhouse \
            near Lindsborg, and nobody found them until the winter my mother sold the stove and the men lifting it heard the \
            boards knock hollow. Every letter was written in Swedish and signed with a little drawing of a heron.
            """))

    /// Words of the story beyond any excerpt of it.
    static let beyondTheExcerpt = ["knock hollow", "drawing of a heron"]

    static let archiveLoad = Task {
        let archive = StoryArchive(storage: try! await TestDatabase.storage(), embedder: try! SentenceEmbedder())
        _ = try! await archive.ingest([story])
        return archive
    }
    /// Waits for `archiveLoad` (built once, by the first test that asks).
    static var archive: StoryArchive { get async { await archiveLoad.value } }

    /// The replay's whole body, and the original's first citation quote and title, as the operator gets them.
    func replay(_ client: some TestClientProtocol, _ turnID: String, headers: HTTPFields) async throws -> (text: String, quote: String, title: String) {
        try await client.execute(uri: "/api/ops/replay", method: .post, headers: headers, body: body(["id": turnID, "cassette": true])) { response in
            #expect(response.status == .ok)
            let text = String(buffer: response.body)
            let result = try #require((json(response.body)["results"] as? [[String: Any]])?.first)
            let original = try #require(result["original"] as? [String: Any])
            #expect(original["events"] == nil && original["recording"] == nil, "operators get no events or recording")
            let citation = try #require((original["citations"] as? [[String: Any]])?.first)
            return (text, try #require(citation["quote"] as? String), try #require(citation["title"] as? String))
        }
    }

    @Test func anOperatorSeesAMaskedExcerptWithoutTheOwnersGrantAndTheFullTextWithIt() async throws {
        let service = try await TestService(archive: Self.archive)
        let ruth = try await service.headers("u-ruth")
        let ops = try await service.headers("u-ops", role: .operator)
        try await service.test(.router) { client in
            let session = try await client.execute(uri: "/api/griot/chat", method: .post, headers: ruth,
                                                   body: body(["message": "What did Tobias Quist hide under the kitchen floorboards?"])) { response in
                #expect(response.status == .ok)
                let reply = json(response.body)
                #expect((reply["citations"] as? [[String: Any]])?.first?["story_id"] as? String == Self.story.artifactID)
                return try #require(reply["session_id"] as? String)
            }
            let turnID = try #require(try await service.engine.chats.turns(threadID: session).first?.id)
            try await client.execute(uri: "/api/griot/chat", method: .post, headers: ruth,
                                     body: body(["message": "Thank you. Call me at 415-555-0132.", "session_id": session])) { response in
                #expect(response.status == .ok)
            }
            let stored = try await TurnSnapshot.decode(try #require(try service.engine.chats.turn(id: turnID)).snapshot)
            let fullQuote = try #require(stored.citations.first?.quote)
            #expect(stored.text.contains("Tobias") || fullQuote.contains("Tobias"))

            // The list of turns: the question, with the asker's number masked.
            try await client.execute(uri: "/api/ops/turns", method: .get, headers: ops) { response in
                let questions = (json(response.body)["turns"] as? [[String: Any]])?.compactMap { $0["question"] as? String } ?? []
                #expect(questions == ["Thank you. Call me at [PHONE].", "What did Tobias Quist hide under the kitchen floorboards?"], "\(questions)")
            }

            // No grant: a masked excerpt.
            let masked = try await replay(client, turnID, headers: ops)
            for words in Self.beyondTheExcerpt { #expect(!masked.text.contains(words), "without a grant the operator read “\(words)”") }
            #expect(!masked.quote.contains("Tobias") && masked.title == "[PERSON]'s Letters Under the Floor", "\(masked.quote) \(masked.title)")
            #expect(!masked.text.contains("415-555-0132"))
            #expect(masked.quote.contains("[PERSON]"))
            #expect(masked.quote.split(separator: " ").count <= OperatorView.excerptWords + 1)

            // The owner grants support access for two hours.
            let grant = try await client.execute(uri: "/api/support-grants", method: .post, headers: ruth, body: body(["hours": 2])) { response in
                #expect(response.status == .created)
                let grant = json(response.body)
                #expect(grant["active"] as? Bool == true && grant["story_ids"] == nil)
                return try #require(grant["id"] as? String)
            }
            let full = try await replay(client, turnID, headers: ops)
            #expect(full.quote == fullQuote, "with the grant, the quote as stored")
            #expect(full.title == Self.story.title)
            #expect(full.text.contains("knock hollow"))

            // Both reads are audited on the owner, with the operator and how they read.
            let reads = try await service.engine.chats.auditEntries(AuditFilter(userID: "u-ruth", actions: [.storyRead]))
            #expect(reads.count == 2)
            #expect(reads.allSatisfy { $0.actorID == "u-ops" && $0.details?.contains(Self.story.artifactID) == true })
            #expect(reads.last?.details?.contains("\"access\":\"masked\"") == true, "\(reads.map(\.details))")
            #expect(reads.first?.details?.contains("\"access\":\"granted\"") == true && reads.first?.details?.contains(grant) == true)

            // The owner sees the grant and the read made under it, and ends it.
            try await client.execute(uri: "/api/support-grants", method: .get, headers: ruth) { response in
                let grants = json(response.body)["grants"] as? [[String: Any]] ?? []
                #expect(grants.count == 1)
                let read = (grants.first?["reads"] as? [[String: Any]])?.first
                #expect(read?["actor_id"] as? String == "u-ops" && read?["story_id"] as? String == Self.story.artifactID)
            }
            // Nobody else sees or ends it.
            try await client.execute(uri: "/api/support-grants/\(grant)", method: .delete, headers: ops) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/support-grants/\(grant)", method: .delete, headers: ruth) { response in
                #expect(response.status == .ok)
                #expect(json(response.body)["active"] as? Bool == false)
            }
            let again = try await replay(client, turnID, headers: ops)
            for words in Self.beyondTheExcerpt { #expect(!again.text.contains(words), "after the revoke the operator read “\(words)”") }
        }
    }

    @Test func aGrantIsBadWhenItNeverEndsOrCoversAnotherOwnersStory() async throws {
        let service = try await TestService(archive: Self.archive)
        let ben = try await service.headers("u-ben")
        try await service.test(.router) { client in
            for (request, code) in [(["hours": 0], "invalid_hours"), (["hours": 1_000], "invalid_hours"),
                                    (["story_ids": [Self.story.artifactID]], "story_not_yours")] as [([String: Any], String)] {
                try await client.execute(uri: "/api/support-grants", method: .post, headers: ben, body: body(request)) { response in
                    #expect(response.status == .badRequest)
                    #expect((json(response.body)["error"] as? [String: Any])?["code"] as? String == code)
                }
            }
        }
        // A grant covers its owner's listed stories while it is in force.
        let now = Date()
        let grant = SupportGrant(ownerUserID: "u-ruth", stories: ["a"], createdAt: now, expiresAt: now.addingTimeInterval(60))
        #expect(grant.covers(storyID: "a", owner: "u-ruth", at: now))
        #expect(!grant.covers(storyID: "b", owner: "u-ruth", at: now))
        #expect(!grant.covers(storyID: "a", owner: "u-ben", at: now))
        #expect(!grant.covers(storyID: "a", owner: "u-ruth", at: now.addingTimeInterval(61)))

        // A user's erasure takes their grants with it.
        try await service.engine.chats.createSupportGrant(grant)
        #expect(try await service.engine.chats.supportGrants(ownerUserID: "u-ruth").count == 1)
        try await service.engine.chats.purgeUser(userID: "u-ruth")
        #expect(try await service.engine.chats.supportGrants(ownerUserID: "u-ruth").isEmpty)
    }
}

/// The README's table "What operators may read" is `OperatorView.rules`, row for row.
@Test func theReadmeStatesTheOperatorsRuleAsTheCodeHasIt() throws {
    let text = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let section = try #require(text.components(separatedBy: "<!-- operator-access -->").dropFirst().first)
    let rows = section.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| data ") }
    let written = OperatorView.rules.map { "| \($0.data) | \($0.operators) |" }
    #expect(rows.map(String.init) == written)
}
