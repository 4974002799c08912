import Foundation
import GriotChat
import GriotStore
import GriotTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The safety stages as an HTTP client meets them: a blocked message, flags in the stream and
/// in the JSON reply, and the counters at /metrics.
@Suite struct SafetyRouteTests {
    @Test func aBlockedMessageIs422AndCountedAtMetrics() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-rude")
        try await service.test(.live) { client in
            let blocked = try await live(client, .POST, "/api/griot/chat", headers: headers,
                                         body: body(["message": "Shut up, you idiot. You are worthless trash.", "is_voice": true]))
            #expect(blocked.status == 422)
            let error = try #require(object(blocked.text)["error"] as? [String: Any])
            #expect(error["code"] as? String == "message_blocked")
            #expect((error["message"] as? String)?.hasPrefix("Message violates policy") == true)
            let metrics = try await live(client, .GET, "/metrics")
            #expect(metrics.text.contains("griot_moderation_flags_total{category=\"harassment\"} 1"))
            #expect(metrics.text.contains("griot_safety_verdicts_total{stage=\"moderation\",decision=\"block\"} 1"))
        }
        #expect(try await service.engine.chats.moderationWarnings(userID: "u-rude") == 1)
    }

    @Test func flagsArriveAsStreamEventsAndInTheJSONReply() async throws {
        let pieces = ["Call the archive at 212-555-0199 ", "to book a visit. ", "It opens at nine."]
        try await StubChatServer.with({ _ in .stream(pieces, model: "stub-model") }) { stub in
            let service = try await TestService(provider: try RemoteProviderForTests.make(stub.baseURL))
            let headers = try await service.headers("u-visitor")
            try await service.test(.live) { client in
                let stream = try await live(client, .POST, "/api/griot/chat/stream", headers: headers, body: body(["message": "How do I visit?"]))
                let events = frames(stream.text)
                let flag = try #require(events.first { $0.event == "flag" })
                #expect(flag.data["kind"] as? String == "pii_masked")
                #expect(!stream.text.contains("555-0199"))
                let done = try #require(events.last?.data)
                #expect((done["text"] as? String)?.contains("Call the archive at [PHONE] to book a visit.") == true)

                let reply = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["message": "How do I visit?"]))
                #expect(reply.status == 200)
                let flags = try #require(object(reply.text)["flags"] as? [[String: Any]])
                #expect(flags.contains { $0["kind"] as? String == "pii_masked" })
                #expect(!reply.text.contains("555-0199"))
            }
        }
    }
}
