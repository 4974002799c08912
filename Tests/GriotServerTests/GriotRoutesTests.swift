import Foundation
import GriotTestSupport
import HTTPTypes
import GriotAuth
import GriotServer
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import Testing

@Suite struct HealthAndErrorTests {
    @Test func healthAndReadinessNeedNoToken() async throws {
        let service = try await TestService()
        try await service.test { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(json(response.body)["status"] as? String == "ok")
            }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
                let ready = json(response.body)
                #expect(ready["status"] as? String == "ready")
                #expect((ready["indexed_passages"] as? Int ?? 0) > 100)
                #expect(ready["database_writable"] as? Bool == true)
                #expect(ready["provider"] as? String == "griot-extractive")
            }
        }
    }

    @Test func everyAPIRouteWantsAValidTokenAndSaysSoInTheErrorShape() async throws {
        let service = try await TestService()
        try await service.test { client in
            try await client.execute(uri: "/api/griot/sessions", method: .get) { response in
                #expect(response.status == .unauthorized)
                let error = try #require(json(response.body)["error"] as? [String: Any])
                #expect(error["code"] as? String == "unauthenticated")
                #expect((error["message"] as? String ?? "").contains("Bearer"))
                #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            }
            try await client.execute(uri: "/api/griot/sessions", method: .get, headers: [.authorization: "Bearer not.a.token"]) { response in
                #expect(response.status == .unauthorized)
                #expect((json(response.body)["error"] as? [String: Any])?["code"] as? String == "invalid_token")
            }
        }
    }

    @Test func requestAndCorrelationIDsAreEchoed() async throws {
        let service = try await TestService()
        try await service.test { client in
            let headers: HTTPFields = [HTTPField.Name("X-Request-ID")!: "req-42", HTTPField.Name("X-Correlation-ID")!: "corr-7"]
            try await client.execute(uri: "/healthz", method: .get, headers: headers) { response in
                #expect(response.headers[HTTPField.Name("X-Request-ID")!] == "req-42")
                #expect(response.headers[HTTPField.Name("X-Correlation-ID")!] == "corr-7")
            }
            try await client.execute(uri: "/nowhere", method: .get) { response in
                #expect(response.status == .notFound)
                #expect((json(response.body)["error"] as? [String: Any])?["code"] as? String == "not_found")
                #expect(response.headers[HTTPField.Name("X-Request-ID")!]?.isEmpty == false, "a request id is made up when none is sent")
            }
        }
    }
}

@Suite struct AskTheGriotRouteTests {
    @Test func chatAnswersInTheMobileContractAndKeepsTheSession() async throws {
        let service = try await TestService()
        let ruth = try await service.headers("u-ruth-carter", families: ["fam-carter"])
        try await service.test { client in
            let sessionID = try await client.execute(uri: "/api/griot/chat", method: .post, headers: ruth,
                                                     body: body(["message": "What happened in Kelly Ingram Park?"])) { response in
                #expect(response.status == .ok)
                let reply = json(response.body)
                #expect((reply["message_id"] as? String)?.isEmpty == false)
                #expect((reply["content"] as? String ?? "").contains("[1]"))
                let citations = try #require(reply["citations"] as? [[String: Any]])
                let first = try #require(citations.first)
                #expect(first["video_id"] as? String == "odom-childrens-crusade-kelly-ingram-park")
                #expect(first["title"] as? String == "The Day the Water Hit")
                #expect(first["interviewee"] as? String == "Gloria Odom-Price")
                #expect((first["relevant_excerpt"] as? String)?.isEmpty == false)
                #expect(first["passage_id"] != nil && first["quote_start"] != nil)
                return try #require(reply["session_id"] as? String)
            }
            try await client.execute(uri: "/api/griot/chat", method: .post, headers: ruth,
                                     body: body(["session_id": sessionID, "message": "/summary"])) { response in
                #expect(response.status == .ok)
                #expect(json(response.body)["session_id"] as? String == sessionID)
            }
            try await client.execute(uri: "/api/griot/sessions", method: .get, headers: ruth) { response in
                let sessions = try #require(json(response.body)["sessions"] as? [[String: Any]])
                #expect(sessions.count == 1)
                #expect(sessions.first?["id"] as? String == sessionID)
                #expect(sessions.first?["message_count"] as? Int == 4)
                #expect(sessions.first?["title"] as? String == "What happened in Kelly Ingram Park?")
                #expect(sessions.first?["created_at"] != nil && sessions.first?["updated_at"] != nil)
            }
            try await client.execute(uri: "/api/griot/sessions/\(sessionID)", method: .get, headers: ruth) { response in
                #expect(response.status == .ok)
                #expect((json(response.body)["messages"] as? [[String: Any]])?.count == 4)
            }
            // Another user's session does not exist for them.
            let other = try await service.headers("u-someone-else")
            try await client.execute(uri: "/api/griot/sessions/\(sessionID)", method: .get, headers: other) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/griot/chat", method: .post, headers: other,
                                     body: body(["session_id": sessionID, "message": "hello"])) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/griot/sessions/\(sessionID)", method: .delete, headers: ruth) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/api/griot/sessions/\(sessionID)", method: .get, headers: ruth) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func badBodiesGetAClearError() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-1")
        try await service.test { client in
            try await client.execute(uri: "/api/griot/chat", method: .post, headers: headers, body: body(["message": "  "])) { response in
                #expect(response.status == .badRequest)
                #expect((json(response.body)["error"] as? [String: Any])?["code"] as? String == "empty_message")
            }
            try await client.execute(uri: "/api/griot/chat", method: .post, headers: headers, body: ByteBuffer(string: "{not json")) { response in
                #expect(response.status == .badRequest)
                #expect((json(response.body)["error"] as? [String: Any])?["code"] as? String == "invalid_body")
            }
        }
    }

    @Test func theStreamIsServerSentEventsWithIncreasingIDs() async throws {
        let service = try await TestService()
        let headers = try await service.headers("u-visitor")
        try await service.test(.live) { client in
            let response = try await live(client, .POST, "/api/griot/chat/stream", headers: headers, body: body(["message": "Who was Octavia Batiste?"]))
            #expect(response.status == 200)
            #expect(response.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            #expect(response.headers["x-accel-buffering"] == "no")
            let events = frames(response.text)
            let turnID = try #require(events.first?.data["turn_id"] as? String)
            #expect(events.map(\.id) == (1...events.count).map { "\(turnID):\($0)" }, "ids increase from 1")
            #expect(events.first?.event == "meta")
            #expect(events.last?.event == "done")
            let names = Set(events.map(\.event))
            #expect(names.isSuperset(of: ["delta", "citation", "budget", "chips"]))

            // Resuming after event 3 replays the rest of the (finished) turn.
            var resume = headers
            resume[HTTPField.Name("Last-Event-ID")!] = "\(turnID):3"
            let rest = try await live(client, .POST, "/api/griot/chat/stream", headers: resume, body: body(["message": "ignored"]))
            #expect(frames(rest.text).map(\.id) == (4...events.count).map { "\(turnID):\($0)" })
            resume[HTTPField.Name("Last-Event-ID")!] = "unknown-turn:3"
            #expect(try await live(client, .POST, "/api/griot/chat/stream", headers: resume, body: body(["message": "x"])).status == 404)
        }
    }
}

@Suite struct StoryRouteTests {
    @Test func searchIsFilteredByTheCallersAccess() async throws {
        let service = try await TestService()
        let visitor = try await service.headers("u-visitor")
        let family = try await service.headers("u-simone-batiste-reyes", families: ["fam-batiste"])
        try await service.test { client in
            let uri = "/api/stories/search?q=Sunday%20gumbo%20fil%C3%A9&k=10"
            try await client.execute(uri: uri, method: .get, headers: visitor) { response in
                #expect(response.status == .ok)
                let ids = (json(response.body)["results"] as? [[String: Any]] ?? []).compactMap { $0["story_id"] as? String }
                #expect(!ids.contains("batiste-octavia-sunday-gumbo-file"))
            }
            try await client.execute(uri: uri, method: .get, headers: family) { response in
                let results = json(response.body)["results"] as? [[String: Any]] ?? []
                #expect(results.contains { $0["story_id"] as? String == "batiste-octavia-sunday-gumbo-file" })
                #expect(results.contains { ($0["highlighted"] as? String ?? "").contains("**") })
            }
            try await client.execute(uri: "/api/stories/search", method: .get, headers: visitor) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test func nearFindsStoriesByPlace() async throws {
        let service = try await TestService()
        let visitor = try await service.headers("u-visitor")
        try await service.test { client in
            // Downtown Birmingham, Alabama.
            try await client.execute(uri: "/api/stories/near?lat=33.516&lon=-86.81&radius_km=10", method: .get, headers: visitor) { response in
                #expect(response.status == .ok)
                let stories = json(response.body)["stories"] as? [[String: Any]] ?? []
                #expect(!stories.isEmpty)
                #expect(stories.allSatisfy { ($0["distance_km"] as? Double ?? 99) <= 10 })
                #expect(stories.allSatisfy { ($0["story_id"] as? String ?? "").hasPrefix("odom-") })
            }
            try await client.execute(uri: "/api/stories/near?lat=200&lon=0", method: .get, headers: visitor) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test func onlyAdminsAddAndDeleteStories() async throws {
        let archive = try await StoryArchiveForWrites.make()
        let service = try await TestService(archive: archive)
        let story = body(["artifact_id": "test-porch", "title": "The Porch Swing", "privacy": "public",
                          "transcript": "We sat on the porch swing every evening in July and counted fireflies."])
        let client = try await service.headers("u-client")
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test { http in
            try await http.execute(uri: "/api/stories", method: .post, headers: client, body: story) { response in
                #expect(response.status == .forbidden)
            }
            try await http.execute(uri: "/api/stories", method: .post, headers: admin, body: story) { response in
                #expect(response.status == .created)
                #expect(json(response.body)["story_ids"] as? [String] == ["test-porch"])
            }
            try await http.execute(uri: "/api/stories/search?q=fireflies", method: .get, headers: client) { response in
                #expect((json(response.body)["results"] as? [[String: Any]])?.first?["story_id"] as? String == "test-porch")
            }
            try await http.execute(uri: "/api/stories", method: .post, headers: admin, body: body(["title": "No id"])) { response in
                #expect(response.status == .unprocessableContent)
            }
            try await http.execute(uri: "/api/stories/test-porch", method: .delete, headers: admin) { response in
                #expect(response.status == .noContent)
            }
            try await http.execute(uri: "/api/stories/test-porch", method: .delete, headers: admin) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}

import GriotArchive
import GriotEmbedding
import GriotStore

/// A small archive of its own for tests that change stories.
enum StoryArchiveForWrites {
    static func make() async throws -> StoryArchive {
        try StoryArchive(storage: try await TestDatabase.storage(), embedder: try SentenceEmbedder())
    }
}

@Suite struct RateLimitRouteTests {
    @Test func messagesOverTheLimitGet429WithRetryAfterAndAreNotStored() async throws {
        let service = try await TestService(limits: [.perMinute(2), .perDay(300)])
        let headers = try await service.headers("u-busy")
        try await service.test { client in
            for _ in 0..<2 {
                try await client.execute(uri: "/api/griot/chat", method: .post, headers: headers, body: body(["message": "Who was Tad?"])) { response in
                    #expect(response.status == .ok)
                }
            }
            try await client.execute(uri: "/api/griot/chat", method: .post, headers: headers, body: body(["message": "Who was Tad?"])) { response in
                #expect(response.status == .tooManyRequests)
                let retryAfter = try #require(response.headers[.retryAfter].flatMap { Int($0) })
                #expect((1...60).contains(retryAfter))
                let error = try #require(json(response.body)["error"] as? [String: Any])
                #expect(error["code"] as? String == "rate_limited")
                #expect((error["message"] as? String ?? "").contains("in the last minute"))
                #expect((error["details"] as? [String: Any])?["limit"] as? String == "per_minute")
            }
        }
        let stored = try await service.engine.chats.threads(userID: "u-busy", assistant: "griot")
        #expect(stored.count == 2, "the refused message started no thread")
    }
}
