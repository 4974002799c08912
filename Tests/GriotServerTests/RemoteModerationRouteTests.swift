import Foundation
import GriotArchive
import GriotChat
import GriotPrompts
import GriotSafety
import GriotServer
import GriotTestSupport
import Testing

/// The production moderation path (issue 35, item 3) through HTTP: `GRIOT_MODERATION_URL` set
/// to a stub that answers as OpenAI's `/v1/moderations` does, with the replies in
/// Tests/Fixtures/openai-moderations; the chat goes through the service's routes.
@Suite struct RemoteModerationRouteTests {
    static func fixture(_ name: String) throws -> Any {
        let url = packageRoot.appendingPathComponent("Tests/Fixtures/openai-moderations/\(name).json")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url))
    }

    /// A service with the offline responder whose moderation asks `server` (as configured from the environment).
    static func service(moderatingAt server: StubChatServer, timeout: String = "3") async throws -> TestService {
        let archive = await demoArchive
        let environment = ["GRIOT_MODERATION_URL": server.baseURL + "/moderations", "GRIOT_MODERATION_API_KEY": "sk-test",
                           "GRIOT_MODERATION_MODEL": "omni-moderation-latest", "GRIOT_MODERATION_TIMEOUT_SECONDS": timeout]
        let engine = ChatEngine(archive: archive, chats: try await TestDatabase.storage().chats,
                                prompts: try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts")),
                                provider: ExtractiveResponder(), counters: .bytePair,
                                safety: .standard(embedder: archive.embedder, environment: environment))
        return try await TestService(engine: engine)
    }

    static let unkind = "Nobody at the reunion wants you there, so stay home this year."
    static let quietIntent = "I have made up my mind about tonight and I am at peace with it."

    /// The moderation verdict stored with the user's latest turn.
    static func verdict(_ service: TestService, user: String) async throws -> SafetyVerdict? {
        let thread = try #require(try await service.engine.chats.threads(userID: user, assistant: "griot").first)
        let turn = try #require(try await service.engine.chats.turns(threadID: thread.id).last)
        return try TurnSnapshot.decode(turn.snapshot).safety.first { $0.stage == "moderation" }
    }

    @Test func theEndpointBlocksWhatTheLocalReadingAllows() async throws {
        // The local reading alone lets both through: the endpoint's flags are what stop them.
        #expect(!LocalModerator().classify(Self.unkind).blocks)
        #expect(!LocalModerator().classify(Self.quietIntent).needsCrisisResponse)
        let replies = [Self.unkind: "flags-harassment", Self.quietIntent: "flags-self-harm-intent"]
        try await StubChatServer.with(answering: { _, request in
            let input = request.json["input"] as? String ?? ""
            return .json(try! Self.fixture(replies[input] ?? "allows"))
        }) { server in
            let service = try await Self.service(moderatingAt: server)
            let maya = try await service.headers("u-maya")
            try await service.test(.router) { client in
                try await client.execute(uri: "/api/griot/chat", method: .post, headers: maya, body: body(["message": Self.unkind])) { response in
                    #expect(response.status == .unprocessableContent)
                }
                let blocked = try #require(try await Self.verdict(service, user: "u-maya"))
                #expect(blocked.decision == .block)
                #expect(blocked.reason.contains("remote omni-moderation-2024-09-26 and local, the stricter"), "\(blocked.reason)")
                #expect(blocked.reason.contains("remote flagged harassment"), "\(blocked.reason)")

                let crisis = try await client.execute(uri: "/api/griot/chat", method: .post, headers: maya,
                                                      body: body(["message": Self.quietIntent])) { response in
                    #expect(response.status == .ok)
                    return json(response.body)
                }
                #expect((crisis["content"] as? String ?? "").contains("988"), "the crisis reply: \(crisis)")

                try await client.execute(uri: "/api/griot/chat", method: .post, headers: maya,
                                         body: body(["message": "Who was Ida Mae Carter?"])) { response in
                    #expect(response.status == .ok)
                }
                let allowed = try #require(try await Self.verdict(service, user: "u-maya"))
                #expect(allowed.decision == .allow)
            }
            // The request each time: OpenAI's body, the key as a bearer token.
            let request = try #require(server.requests.first)
            #expect(request.uri == "/v1/moderations")
            #expect(request.headers["authorization"].first == "Bearer sk-test")
            #expect(Set(request.json.keys) == ["input", "model"])
            #expect(request.json["model"] as? String == "omni-moderation-latest")
            #expect(server.requests.count == 3)
        }
    }

    @Test func anEndpointThatTimesOutLeavesTheLocalReadingAndSaysSo() async throws {
        try await StubChatServer.with(answering: { _, _ in
            StubReply(status: 200, headers: [("content-type", "application/json")],
                      steps: [.send(SSE.json(try! Self.fixture("flags-harassment")))], headDelay: 3)
        }) { server in
            let service = try await Self.service(moderatingAt: server, timeout: "0.3")
            let maya = try await service.headers("u-maya")
            try await service.test(.router) { client in
                let started = ContinuousClock.now
                try await client.execute(uri: "/api/griot/chat", method: .post, headers: maya,
                                         body: body(["message": "Who was Ida Mae Carter?"])) { response in
                    #expect(response.status == .ok)
                }
                #expect(ContinuousClock.now - started < .seconds(3), "the turn did not wait for the endpoint")
                let fellBack = try #require(try await Self.verdict(service, user: "u-maya"))
                #expect(fellBack.decision == .allow)
                #expect(fellBack.reason.contains("from local (remote failed: no reply within 0.3 seconds)"), "\(fellBack.reason)")
                // The local reading still stops what it stops on its own.
                try await client.execute(uri: "/api/griot/chat", method: .post, headers: maya,
                                         body: body(["message": "You are a worthless idiot and I will hurt you."])) { response in
                    #expect(response.status == .unprocessableContent)
                }
                let local = try #require(try await Self.verdict(service, user: "u-maya"))
                #expect(local.decision == .block && local.reason.contains("remote failed"), "\(local.reason)")
            }
        }
    }
}

extension StubReply {
    /// A JSON reply with status 200, as a moderation endpoint answers.
    static func json(_ object: Any) -> StubReply {
        StubReply(status: 200, headers: [("content-type", "application/json")], steps: [.send(SSE.json(object))])
    }
}
