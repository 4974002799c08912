import Foundation
import GriotStore
import Testing

/// Services' API keys (`APIKeyStore`), on each backend.
@Suite("Chat store: API keys")
struct APIKeyConformanceTests {
    typealias F = ChatFixtures

    @Test("A key is stored with only its secret's hash, listed newest first, found by id, and reads back equal",
          arguments: StoreBackend.allCases)
    func createListAndFind(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let keys = storage.keys
            let (older, olderToken) = APIKey.make(name: "nightly export", role: "coach", families: ["fam-carter", "fam/odom"],
                                                  courses: ["course-7"], expiresAt: F.t0 + F.days(90), requestsPerMinute: 60, now: F.t0)
            let (newer, _) = APIKey.make(name: "Łukasz's bot 🤖", role: "client", now: F.t0 + 60)
            #expect(try await keys.createAPIKey(older) == older)
            try await keys.createAPIKey(newer)

            #expect(try await keys.apiKeys() == [newer, older])
            let found = try #require(try await keys.apiKey(id: older.id))
            #expect(found == older)
            #expect(found.families == ["fam-carter", "fam/odom"] && found.courses == ["course-7"] && found.requestsPerMinute == 60)
            #expect(found.expiresAt == F.t0 + F.days(90) && found.lastUsedAt == nil && found.revokedAt == nil)
            #expect(try await keys.apiKey(id: newer.id)?.courses == [])
            #expect(try await keys.apiKey(id: "0000000000000000") == nil)

            let (id, secret) = try #require(APIKey.parse(olderToken))
            #expect(id == older.id)
            #expect(found.secretHash == APIKey.hash(secret: secret) && !found.secretHash.contains(secret), "only the hash is stored")
            #expect(found.matches(secret: secret))
            #expect(!found.matches(secret: String(secret.reversed())))
        }
    }

    @Test("A key is revoked once and stays listed; revoking an unknown key finds none", arguments: StoreBackend.allCases)
    func revoke(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let keys = storage.keys
            let (key, _) = APIKey.make(name: "exporter", role: "admin", now: F.t0)
            try await keys.createAPIKey(key)
            let revoked = try #require(try await keys.revokeAPIKey(id: key.id, at: F.t0 + 300))
            #expect(revoked.revokedAt == F.t0 + 300)
            #expect(revoked.standing(at: F.t0 + 301) == .revoked(at: F.t0 + 300))
            #expect(try await keys.revokeAPIKey(id: key.id, at: F.t0 + 400)?.revokedAt == F.t0 + 300, "revoked once")
            #expect(try await keys.revokeAPIKey(id: "ffffffffffffffff", at: F.t0) == nil)
            #expect(try await keys.apiKey(id: key.id) == revoked)
            #expect(try await keys.apiKeys() == [revoked], "a revoked key stays listed")
        }
    }

    @Test("A use is recorded at most once a minute, and a later use after that is recorded again", arguments: StoreBackend.allCases)
    func lastUse(_ backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let keys = storage.keys
            let (key, _) = APIKey.make(name: "poller", role: "client", now: F.t0)
            try await keys.createAPIKey(key)
            #expect(try await keys.recordAPIKeyUse(id: key.id, at: F.t0 + 10, interval: 60))
            #expect(try await !keys.recordAPIKeyUse(id: key.id, at: F.t0 + 40, interval: 60), "30 s later: not written")
            #expect(try await keys.apiKey(id: key.id)?.lastUsedAt == F.t0 + 10)
            #expect(try await keys.recordAPIKeyUse(id: key.id, at: F.t0 + 70, interval: 60), "a minute later: written")
            #expect(try await keys.apiKey(id: key.id)?.lastUsedAt == F.t0 + 70)
            #expect(try await !keys.recordAPIKeyUse(id: "ffffffffffffffff", at: F.t0, interval: 60))
        }
    }
}
