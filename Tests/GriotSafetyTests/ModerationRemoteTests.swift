import Foundation
import GriotSafety
import GriotTestSupport
import Testing

/// The remote provider against the loopback stub: mapped scores when it answers, the local
/// classifier (and a `source` that says why) when it fails.
struct ModerationRemoteTests {
    static func json(_ object: Any, status: Int = 200, headDelay: Double = 0) -> StubReply {
        StubReply(status: status, headers: [("content-type", "application/json")], steps: [.send(SSE.json(object))], headDelay: headDelay)
    }

    static var openAIReply: [String: Any] { [
        "id": "modr-1", "model": "omni-moderation-latest",
        "results": [[
            "flagged": true,
            "categories": ["hate": true],
            "category_scores": [
                "harassment": 0.30, "harassment/threatening": 0.45,
                "hate": 0.20, "hate/threatening": 0.91,
                "sexual": 0.01, "sexual/minors": 0.02,
                "violence": 0.10, "violence/graphic": 0.60,
                "self-harm": 0.05, "self-harm/intent": 0.07, "self-harm/instructions": 0.03,
                "illicit": 0.99,
            ],
        ]],
    ] }

    static func configuration(_ server: StubChatServer, timeout: Duration = .seconds(3)) -> RemoteModerationConfiguration {
        RemoteModerationConfiguration(url: server.baseURL + "/moderations", apiKey: "test-key", model: "omni-moderation-latest", timeout: timeout)
    }

    @Test func mapsTheEndpointsCategoriesToOursTakingTheHighestSubcategory() async throws {
        try await StubChatServer.with({ _ in Self.json(Self.openAIReply) }) { server in
            let result = await RemoteModerator(configuration: Self.configuration(server)).moderate("some message")
            #expect(result.source == "remote omni-moderation-latest and local, the stricter")
            #expect(result.flagged == [.hate])
            #expect(result.harassment == 0.45)
            #expect(result.hate == 0.91)
            #expect(result.sexual == 0.02)
            #expect(result.violence == 0.60)
            #expect(result.selfHarm == 0.07)
            #expect(result.blocks)

            let request = try #require(server.requests.first)
            #expect(request.method == .POST)
            #expect(request.uri == "/v1/moderations")
            #expect(request.headers["authorization"].first == "Bearer test-key")
            #expect(request.json["input"] as? String == "some message")
            #expect(request.json["model"] as? String == "omni-moderation-latest")
        }
    }

    /// Each category at the higher of the two readings; a category the endpoint flags blocks
    /// under our threshold; an endpoint that allows does not unblock what the local reading stops.
    @Test func theStricterOfTheTwoReadingsWins() async throws {
        let lowScores: [String: Any] = [
            "id": "modr-2", "model": "omni-moderation-latest",
            "results": [["flagged": false, "categories": ["harassment": false, "violence": false],
                         "category_scores": ["harassment": 0.01, "violence": 0.02, "self-harm": 0.0]]],
        ]
        let flaggedLow: [String: Any] = [
            "id": "modr-3", "model": "omni-moderation-latest",
            "results": [["flagged": true, "categories": ["harassment": true, "illicit": true, "self-harm/intent": false],
                         "category_scores": ["harassment": 0.31, "illicit": 0.7, "self-harm/intent": 0.2]]],
        ]
        let toxic = "You are a worthless idiot and I will hurt you."
        #expect(LocalModerator().classify(toxic).blocks)
        let replies = [Self.json(lowScores), Self.json(flaggedLow)]
        try await StubChatServer.with({ n in replies[min(n, 1)] }) { server in
            let moderator = RemoteModerator(configuration: Self.configuration(server))
            let allowedRemotely = await moderator.moderate(toxic)
            #expect(allowedRemotely.blocks, "the local reading's block stands")
            #expect(allowedRemotely.violence == LocalModerator().classify(toxic).violence)
            let flagged = await moderator.moderate("hello there")
            #expect(flagged.harassment == 0.31 && flagged.flagged == [.harassment])
            #expect(flagged.blocks, "flagged by the endpoint, under our threshold")
            #expect(!flagged.needsCrisisResponse)
            #expect(flagged.reasons.contains("remote flagged illicit (no category here; not blocked)"))
        }
    }

    @Test func fallsBackToTheLocalClassifierOnAServerError() async throws {
        try await StubChatServer.with({ _ in .error(status: 500, message: "overloaded") }) { server in
            let text = "I want to end it all"
            let result = await RemoteModerator(configuration: Self.configuration(server)).moderate(text)
            #expect(result.source == "local (remote failed: HTTP 500)")
            var local = LocalModerator().classify(text)
            local.source = result.source
            #expect(result == local)
            #expect(result.needsCrisisResponse)
        }
    }

    @Test func fallsBackWhenTheEndpointIsTooSlow() async throws {
        try await StubChatServer.with({ _ in Self.json(Self.openAIReply, headDelay: 3) }) { server in
            let started = ContinuousClock.now
            let result = await RemoteModerator(configuration: Self.configuration(server, timeout: .milliseconds(200))).moderate("hello")
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(result.source.hasPrefix("local (remote failed: no reply within"))
            #expect(!result.blocks)
        }
    }

    @Test func fallsBackOnAReplyThatIsNotModerationJSON() async throws {
        let replies: [StubReply] = [
            StubReply(status: 200, headers: [("content-type", "application/json")], steps: [.send(Array("not json".utf8))]),
            Self.json(["results": [[String: Any]]()]),
            Self.json(["results": [["category_scores": ["hate": "high"]]]]),
        ]
        try await StubChatServer.with({ replies[$0] }) { server in
            for _ in replies.indices {
                let result = await RemoteModerator(configuration: Self.configuration(server)).moderate("hello")
                #expect(result.source.hasPrefix("local (remote failed: bad JSON"), "\(result.source)")
            }
        }
    }

    @Test func fallsBackWhenNothingListens() async {
        let configuration = RemoteModerationConfiguration(url: "http://127.0.0.1:9/v1/moderations", timeout: .milliseconds(500))
        let result = await RemoteModerator(configuration: configuration).moderate("hello")
        #expect(result.source.hasPrefix("local (remote failed:"))
    }

    @Test func configurationComesFromTheEnvironment() throws {
        #expect(RemoteModerationConfiguration.fromEnvironment([:]) == nil)
        #expect(RemoteModerationConfiguration.fromEnvironment(["GRIOT_MODERATION_URL": " "]) == nil)
        let defaults = try #require(RemoteModerationConfiguration.fromEnvironment(["GRIOT_MODERATION_URL": "http://localhost:8080/v1/moderations"]))
        #expect(defaults.timeout == .seconds(3))
        #expect(defaults.apiKey == nil && defaults.model == nil)
        let full = try #require(RemoteModerationConfiguration.fromEnvironment([
            "GRIOT_MODERATION_URL": "https://api.example.com/v1/moderations", "GRIOT_MODERATION_API_KEY": "k",
            "GRIOT_MODERATION_MODEL": "omni-moderation-latest", "GRIOT_MODERATION_TIMEOUT_SECONDS": "1.5",
        ]))
        #expect(full.url == "https://api.example.com/v1/moderations")
        #expect(full.apiKey == "k" && full.model == "omni-moderation-latest")
        #expect(full.timeout == .milliseconds(1500))
        let bad = try #require(RemoteModerationConfiguration.fromEnvironment(["GRIOT_MODERATION_URL": "http://x", "GRIOT_MODERATION_TIMEOUT_SECONDS": "soon"]))
        #expect(bad.timeout == .seconds(3))
        // Once a trap: 1e300 seconds in whole milliseconds does not fit an Int.
        let huge = try #require(RemoteModerationConfiguration.fromEnvironment(["GRIOT_MODERATION_URL": "http://x", "GRIOT_MODERATION_TIMEOUT_SECONDS": "1e300"]))
        #expect(huge.timeout == .seconds(3))
    }
}
