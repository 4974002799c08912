import Foundation
import GriotArchive
import GriotChat
import GriotProviders
import GriotStore
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 25 items 4, 6 and 8: what the model server says stays inside (its error body is
/// logged, not sent), what it sends is read only up to the token limit the request asked for,
/// and a refused request leaves no session behind.
@Suite struct ModelBoundaryTests {
    /// The service on the demo archive answering from `stub` through the real provider.
    func service(answeringFrom stub: StubChatServer) async throws -> TestService {
        let environment = [
            "GRIOT_PROMPTS": packageRoot.appendingPathComponent("prompts").path, "GRIOT_PROVIDER": "openai",
            "OPENAI_BASE_URL": stub.baseURL, "OPENAI_MODEL": "stub-model", "OPENAI_API_KEY": "sk-proj-test-key-1234567890abcdefghijklmnop",
        ]
        let configuration = try GriotConfiguration.load(file: nil, environment: environment)
        let engine = try await ChatEngine.open(archive: demoArchive, configuration: configuration, environment: environment,
                                               chats: try await TestDatabase.storage().chats)
        return try await TestService(engine: engine)
    }

    static let leakyBody = "Incorrect API key provided: sk-proj-test-key-1234567890abcdefghijklmnop. Upstream llm-gw.internal.example:8443 refused."

    /// Nothing the model server wrote, and no hint naming our settings, in what a client reads.
    func expectNothingInternal(_ text: String, _ what: String) {
        for secret in ["sk-proj", "1234567890abcdef", "llm-gw", "internal.example", "OPENAI_API_KEY", "AZURE", "HTTP 401", "Incorrect API key"] {
            #expect(!text.contains(secret), "\(what) carries \(secret): \(text.prefix(400))")
        }
    }

    @Test func aProviderErrorBodyReachesNeitherTheJSONReplyNorTheStream() async throws {
        try await StubChatServer.with({ _ in .error(status: 401, message: Self.leakyBody) }) { stub in
            let service = try await service(answeringFrom: stub)
            let headers = try await service.headers("u-provider-error")
            try await service.test(.live) { client in
                var requestHeaders = headers
                requestHeaders[HTTPField.Name("X-Request-ID")!] = "req-provider-401"
                let reply = try await live(client, .POST, "/api/griot/chat", headers: requestHeaders, body: body(["message": "Who was Tad Carter?"]))
                #expect(reply.status == 502, "\(reply.text)")
                expectNothingInternal(reply.text, "the 502 body")
                let error = object(reply.text)["error"] as? [String: Any]
                #expect(error?["code"] as? String == "provider_error")
                // The fixed words, with the request id to quote to support.
                #expect((error?["message"] as? String)?.contains("req-provider-401") == true, "\(reply.text)")
                #expect((error?["details"] as? [String: String])?["request_id"] == "req-provider-401")

                let stream = try await live(client, .POST, "/api/griot/chat/stream", headers: headers, body: body(["message": "Who was Tad Carter?"]))
                #expect(stream.text.contains("event: error"), "\(stream.text.prefix(400))")
                expectNothingInternal(stream.text, "the stream")

                // Nor in what is stored and shown later.
                let session = try #require(object(reply.text)["error"].flatMap { ($0 as? [String: Any])?["details"] as? [String: String] }?["session_id"])
                let stored = try await live(client, .GET, "/api/griot/sessions/\(session)", headers: headers)
                expectNothingInternal(stored.text, "the stored session")
            }
        }
    }

    @Test func theRedactedDetailKeepsWhatAnOperatorNeeds() {
        let redacted = ProviderError.redacted("The AI service answered with HTTP 401: \(Self.leakyBody) Bearer abc.def.ghi key=topsecret123")
        #expect(!redacted.contains("sk-proj-test-key"))
        #expect(!redacted.contains("abc.def.ghi"))
        #expect(!redacted.contains("topsecret123"))
        #expect(redacted.contains("HTTP 401") && redacted.contains("llm-gw.internal.example:8443"))
    }

    /// A server that ignores `max_tokens`: 3,000 one-word chunks, 2 ms apart.
    @Test func aReplyIsReadOnlyUpToItsTokenLimitAndMarkedTruncated() async throws {
        let words = (0..<3_000).map { "word\($0) " }
        try await StubChatServer.with({ _ in .stream(words, pause: 0.002) }) { stub in
            let service = try await service(answeringFrom: stub)
            let headers = try await service.headers("u-long-reply")
            try await service.test(.live) { client in
                let reply = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["message": "Tell me everything about the flood."]))
                #expect(reply.status == 200, "\(reply.text.prefix(300))")
                let answer = object(reply.text)
                let content = try #require(answer["content"] as? String)
                let asked = try #require(stub.requests.first?.json["max_tokens"] as? Int)
                let words = content.split(separator: " ").count
                // Each "wordN " is two or three tokens: the reply stops near max_tokens plus the margin.
                #expect(words < asked + max(64, asked / 4), "\(words) words for max_tokens \(asked)")
                #expect(!content.contains("word2999"))
                let flags = (answer["flags"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
                #expect(flags.contains("truncated"), "\(flags)")
                #expect(answer["status"] as? String == "complete")
                // The upstream was told to stop: the connection closed while it was still sending.
                #expect(await stub.waitUntil { $0.first?.clientDisconnected == true }, "the upstream was read to its end")
            }
        }
    }

    /// One 300 kB chunk: cut at the limit without being read into the reply whole.
    @Test func aSingleHugeChunkIsCutAtTheLimit() async throws {
        let huge = String(repeating: "The levee held. ", count: 20_000)
        try await StubChatServer.with({ _ in .stream([huge]) }) { stub in
            let service = try await service(answeringFrom: stub)
            let headers = try await service.headers("u-huge-chunk")
            try await service.test(.live) { client in
                let reply = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["message": "Did the levee hold?"]))
                #expect(reply.status == 200, "\(reply.text.prefix(300))")
                let content = try #require(object(reply.text)["content"] as? String)
                #expect(content.utf8.count < 8_000, "\(content.utf8.count) bytes kept of \(huge.utf8.count)")
                let flags = (object(reply.text)["flags"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
                #expect(flags.contains("truncated"))
            }
        }
    }

    @Test func aChatRefusedByTheRateLimitCreatesNoSession() async throws {
        let service = try await TestService(limits: [.perMinute(2)])
        let headers = try await service.headers("u-limited")
        try await service.test(.live) { client in
            for index in 0..<2 {
                let allowed = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["message": "Who was Tad?", "session_id": "allowed-\(index)"]))
                #expect(allowed.status == 200, "\(allowed.text)")
            }
            for index in 0..<5 {
                for path in ["/api/griot/chat", "/api/griot/chat/stream"] {
                    let refused = try await live(client, .POST, path, headers: headers, body: body(["message": "Who was Tad?", "session_id": "refused-\(index)"]))
                    #expect(refused.status == 429, "\(refused.text)")
                    #expect(refused.headers["retry-after"] != nil)
                }
                #expect(try await service.engine.chats.threadExists(id: "refused-\(index)") == false)
            }
            let sessions = try await live(client, .GET, "/api/griot/sessions", headers: headers)
            let ids = (object(sessions.text)["sessions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(Set(ids) == ["allowed-0", "allowed-1"])
        }
    }
}
