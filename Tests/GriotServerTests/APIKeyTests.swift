import Foundation
import GriotAuth
@testable import GriotServer
import GriotStore
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 36, item 3: API keys for services. An admin makes a key (shown once), a service sends
/// it as `Authorization: Bearer griot_…` on any route under the same access table, the list
/// shows its last use and never its secret, and a revoked, expired or unknown key is 401.
@Suite struct APIKeyTests {
    /// A key made through the route: its id and the bearer token (the secret, shown once).
    struct MadeKey {
        var id: String
        var token: String
        var reply: [String: Any]

        var headers: HTTPFields { [.authorization: "Bearer \(token)", .contentType: "application/json"] }
    }

    static var tokenShape: Regex<Substring> { /^griot_[0-9a-f]{16}_[0-9a-f]{64}$/ }

    func make(_ client: any TestClientProtocol, _ service: TestService, _ fields: [String: Any]) async throws -> MadeKey {
        let admin = try await service.headers("u-admin", role: .admin)
        return try await client.execute(uri: "/api/admin/keys", method: .post, headers: admin, body: body(fields)) { response in
            #expect(response.status == .created, "\(String(buffer: response.body))")
            let reply = json(response.body)
            return MadeKey(id: try #require(reply["id"] as? String), token: try #require(reply["key"] as? String), reply: reply)
        }
    }

    func expectUnauthorized(_ client: any TestClientProtocol, _ headers: HTTPFields, saying words: String, reason: String) async throws {
        try await client.execute(uri: "/api/griot/sessions", method: .get, headers: headers) { response in
            #expect(response.status == .unauthorized)
            let error = json(response.body)["error"] as? [String: Any]
            #expect(error?["code"] as? String == "invalid_token", "\(String(buffer: response.body))")
            #expect((error?["message"] as? String)?.contains(words) == true, "\(String(buffer: response.body))")
            #expect((error?["message"] as? String)?.contains("ask an admin for a new one") == true)
            #expect((error?["details"] as? [String: Any])?["reason"] as? String == reason)
            #expect(response.headers[.wwwAuthenticate]?.contains("invalid_token") == true)
        }
    }

    @Test func anAdminMakesAKeyAServiceUsesItAndTheListShowsItsLastUseButNeverTheSecret() async throws {
        let service = try await TestService()
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test { client in
            let key = try await make(client, service, ["name": "nightly export", "role": "client", "family_ids": ["fam-carter"],
                                                        "course_ids": ["course-7"], "expires_at": "2099-01-01T00:00:00Z", "requests_per_minute": 50])
            #expect(key.token.wholeMatch(of: Self.tokenShape) != nil, "\(key.token)")
            #expect(key.token.contains(key.id))
            #expect(key.reply["name"] as? String == "nightly export" && key.reply["role"] as? String == "client")
            #expect(key.reply["family_ids"] as? [String] == ["fam-carter"] && key.reply["course_ids"] as? [String] == ["course-7"])
            #expect(key.reply["expires_at"] as? String == "2099-01-01T00:00:00Z" && key.reply["requests_per_minute"] as? Int == 50)
            #expect(key.reply["created_at"] is String && key.reply["last_used_at"] is NSNull && key.reply["revoked_at"] is NSNull)

            try await client.execute(uri: "/api/griot/sessions", method: .get, headers: key.headers) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                #expect((json(response.body)["sessions"] as? [Any])?.isEmpty == true)
            }
            let sessionID = try await client.execute(uri: "/api/griot/chat", method: .post, headers: key.headers,
                                                     body: body(["message": "What happened in Kelly Ingram Park?"])) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return try #require(json(response.body)["session_id"] as? String)
            }
            #expect(try await service.engine.chats.thread(id: sessionID)?.userID == "key:\(key.id)", "the key is its own caller")

            try await client.execute(uri: "/api/admin/keys", method: .get, headers: admin) { response in
                #expect(response.status == .ok)
                let text = String(buffer: response.body)
                #expect(!text.contains(String(key.token.split(separator: "_").last!)), "no secret in the list")
                let keys = try #require(json(response.body)["keys"] as? [[String: Any]])
                #expect(keys.count == 1)
                let listed = try #require(keys.first)
                #expect(listed["id"] as? String == key.id && listed["key"] == nil)
                #expect(listed["last_used_at"] is String, "\(listed)")
                #expect(listed["revoked_at"] is NSNull && listed["name"] as? String == "nightly export")
            }
            let made = try await service.engine.chats.auditEntries(AuditFilter(actions: [.apiKeyCreate]))
            #expect(made.count == 1 && made.first?.actorID == "u-admin" && made.first?.userID == "key:\(key.id)")
            #expect(made.first?.details?.contains(key.id) == true && made.first?.details?.contains(key.token) == false)
        }
    }

    @Test func aKeysFamiliesDecideWhichFamilyStoriesItsRequestsFind() async throws {
        let service = try await TestService()
        try await service.test { client in
            let family = try await make(client, service, ["name": "carter app", "role": "client", "family_ids": ["fam-carter"]])
            let stranger = try await make(client, service, ["name": "other app", "role": "client"])
            for (key, found) in [(family, true), (stranger, false)] {
                try await client.execute(uri: "/api/stories/search?q=army%20overcoat%20Maxwell%20Street", method: .get, headers: key.headers) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body).contains("carter-first-winter-bronzeville") == found, "family_only story, found: \(found)")
                }
            }
        }
    }

    @Test func aRevokedKeyIs401SayingSoAndRevokingIsAudited() async throws {
        let service = try await TestService()
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test { client in
            let key = try await make(client, service, ["name": "retired bot", "role": "coach"])
            try await client.execute(uri: "/api/griot/sessions", method: .get, headers: key.headers) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/admin/keys/\(key.id)", method: .delete, headers: admin) { #expect($0.status == .noContent) }
            try await expectUnauthorized(client, key.headers, saying: "was revoked at", reason: "revokedKey")
            try await client.execute(uri: "/api/admin/keys/\(key.id)", method: .delete, headers: admin) { #expect($0.status == .noContent, "again: no change") }
            try await client.execute(uri: "/api/admin/keys/0123456789abcdef", method: .delete, headers: admin) { response in
                #expect(response.status == .notFound)
                #expect((json(response.body)["error"] as? [String: Any])?["code"] as? String == "key_not_found")
            }
            try await client.execute(uri: "/api/admin/keys", method: .get, headers: admin) { response in
                let listed = (json(response.body)["keys"] as? [[String: Any]])?.first
                #expect(listed?["revoked_at"] is String, "a revoked key stays listed, with when")
            }
            let revoked = try await service.engine.chats.auditEntries(AuditFilter(actions: [.apiKeyRevoke]))
            #expect(revoked.count == 1 && revoked.first?.actorID == "u-admin" && revoked.first?.userID == "key:\(key.id)")
        }
    }

    @Test func anExpiredKeyIs401SayingSo() async throws {
        let service = try await TestService()
        let (key, token) = APIKey.make(name: "short lived", role: "client", expiresAt: Date().addingTimeInterval(-60), now: Date().addingTimeInterval(-3600))
        try await service.engine.chats.createAPIKey(key)
        try await service.test { client in
            try await expectUnauthorized(client, [.authorization: "Bearer \(token)"], saying: "expired at", reason: "expiredKey")
        }
    }

    @Test func anUnknownOrMangledKeyIs401AndJWTsWorkBesideKeys() async throws {
        let service = try await TestService()
        try await service.test { client in
            let key = try await make(client, service, ["name": "real", "role": "client"])
            let wrongSecret = String(key.token.dropLast(4)) + "0000"
            for token in [wrongSecret, "griot_0123456789abcdef_" + String(repeating: "a", count: 64), "griot_nounderscore", "griot__"] {
                try await expectUnauthorized(client, [.authorization: "Bearer \(token)"], saying: "not one this server knows", reason: "unknownKey")
            }
            try await client.execute(uri: "/api/griot/sessions", method: .get, headers: try await service.headers("u-ruth")) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/griot/sessions", method: .get, headers: key.headers) { #expect($0.status == .ok) }
        }
    }

    @Test func aClientKeyIs403OnAdminRoutesAndAnAdminKeyIsAnAdmin() async throws {
        let service = try await TestService()
        try await service.test { client in
            let clientKey = try await make(client, service, ["name": "app", "role": "client"])
            let adminKey = try await make(client, service, ["name": "ops bot", "role": "admin"])
            for (uri, method) in [("/api/admin/keys", HTTPRequest.Method.get), ("/api/admin/keys", .post), ("/api/audit", .get),
                                  ("/api/admin/keys/\(adminKey.id)", .delete)] {
                try await client.execute(uri: uri, method: method, headers: clientKey.headers, body: body(["name": "x", "role": "admin"])) { response in
                    #expect(response.status == .forbidden, "\(method) \(uri): \(String(buffer: response.body))")
                }
            }
            try await client.execute(uri: "/api/admin/keys", method: .get, headers: adminKey.headers) { response in
                #expect(response.status == .ok)
                #expect((json(response.body)["keys"] as? [Any])?.count == 2)
            }
        }
    }

    @Test(arguments: [
        ([:], "invalid_name", "name is required"),
        (["name": "  ", "role": "client"], "invalid_name", "name is required"),
        (["name": "bot", "role": "superuser"], "invalid_role", "one of client, coach, admin, operator"),
        (["name": "bot"], "invalid_role", "role is required"),
        (["name": "bot", "role": "client", "expires_at": "next tuesday"], "invalid_expires_at", "RFC 3339"),
        (["name": "bot", "role": "client", "expires_at": "2001-01-01T00:00:00Z"], "invalid_expires_at", "not in the future"),
        (["name": "bot", "role": "client", "requests_per_minute": 0], "invalid_requests_per_minute", "from 1 to 100000"),
        (["name": "bot", "role": "client", "family_ids": [""]], "invalid_family_ids", "1 to 128 characters"),
        (["name": "bot", "role": "client", "course_ids": "course-7"], "invalid_body", "must be JSON"),
    ] as [([String: any Sendable], String, String)])
    func badInputIs400SayingWhatToDo(fields: [String: any Sendable], code: String, words: String) async throws {
        let service = try await TestService()
        let admin = try await service.headers("u-admin", role: .admin)
        try await service.test { client in
            try await client.execute(uri: "/api/admin/keys", method: .post, headers: admin, body: body(fields)) { response in
                #expect(response.status == .badRequest)
                let error = json(response.body)["error"] as? [String: Any]
                #expect(error?["code"] as? String == code, "\(String(buffer: response.body))")
                #expect((error?["message"] as? String)?.contains(words) == true, "\(String(buffer: response.body))")
            }
            #expect(try await service.engine.chats.apiKeys().isEmpty)
        }
    }

    /// Each key is its own caller, so it has its own budgets: one key past its read budget is
    /// refused while another is served.
    @Test func twoKeysHaveSeparateRouteBudgets() async throws {
        let service = try await TestService(routeLimits: RouteLimitTests.tight)
        try await service.test { client in
            let busy = try await make(client, service, ["name": "busy", "role": "client"])
            let calm = try await make(client, service, ["name": "calm", "role": "client"])
            for attempt in 1...3 {
                try await client.execute(uri: "/api/griot/sessions", method: .get, headers: busy.headers) { #expect($0.status == .ok, "attempt \(attempt)") }
            }
            try await client.execute(uri: "/api/griot/sessions", method: .get, headers: busy.headers) { response in
                #expect(response.status == .tooManyRequests)
                #expect((json(response.body)["error"] as? [String: Any])?["code"] as? String == "rate_limited")
            }
            try await client.execute(uri: "/api/griot/sessions", method: .get, headers: calm.headers) { #expect($0.status == .ok, "another key is served") }
        }
    }

    /// `requests_per_minute` is the key's chat limit in place of the service's, lower or higher:
    /// here the service allows one message a minute.
    @Test func aKeysRequestsPerMinuteIsItsOwnChatLimit() async throws {
        let service = try await TestService(limits: [.perMinute(1), .perDay(300)])
        try await service.test { client in
            let tight = try await make(client, service, ["name": "tight", "role": "client", "requests_per_minute": 2])
            let roomy = try await make(client, service, ["name": "roomy", "role": "client", "requests_per_minute": 3])
            let plain = try await make(client, service, ["name": "plain", "role": "client"])
            func chat(_ key: MadeKey) async throws -> TestResponse {
                try await client.execute(uri: "/api/griot/chat", method: .post, headers: key.headers, body: body(["message": "Who kept bees?"]))
            }
            for _ in 1...2 { #expect(try await chat(tight).status == .ok) }
            let refused = try await chat(tight)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter].flatMap { Int($0) } ?? 0 >= 1)
            let error = json(refused.body)["error"] as? [String: Any]
            #expect(error?["code"] as? String == "rate_limited" && (error?["message"] as? String)?.contains("2 messages in the last minute") == true,
                    "\(String(buffer: refused.body))")
            for attempt in 1...3 { #expect(try await chat(roomy).status == .ok, "above the service's limit: \(attempt)") }
            #expect(try await chat(roomy).status == .tooManyRequests)
            #expect(try await chat(plain).status == .ok)
            #expect(try await chat(plain).status == .tooManyRequests, "a key without its own limit has the service's")
        }
    }

    @Test func aKeysLastUseIsWrittenAtMostOnceAMinute() async throws {
        let service = try await TestService()
        try await service.test { client in
            let key = try await make(client, service, ["name": "poller", "role": "client"])
            let longAgo = Date().addingTimeInterval(-120)
            try await service.engine.chats.recordAPIKeyUse(id: key.id, at: longAgo)
            try await client.execute(uri: "/api/griot/sessions", method: .get, headers: key.headers) { #expect($0.status == .ok) }
            let first = try #require(try await service.engine.chats.apiKey(id: key.id)?.lastUsedAt)
            #expect(first.timeIntervalSince(longAgo) > 100, "a use two minutes on is written")
            for _ in 1...3 {
                try await client.execute(uri: "/api/griot/sessions", method: .get, headers: key.headers) { #expect($0.status == .ok) }
            }
            #expect(try await service.engine.chats.apiKey(id: key.id)?.lastUsedAt == first, "uses within the minute are not written")
        }
    }
}
