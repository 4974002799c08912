import Foundation
import GRDB
import GriotArchive
import GriotAuth
@testable import GriotServer
import GriotStore
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOHTTP1
import Synchronization
import Testing

/// Issue 25, item 3: no caller can take the service down. Every route has a cost class and a
/// limit, per user (per address without a token); past it, 429 with `Retry-After` and the error
/// body, while other users are still served.
@Suite struct RouteLimitTests {
    /// Three requests of each class an hour: the fourth is over.
    static var tight: RouteLimits {
        var limits = RouteLimits()
        for cost in [CostClass.probe, .read, .search, .heavy] { limits[cost] = .init(requests: 3, seconds: 3600) }
        return limits
    }

    func expectRateLimited(_ response: LiveResponse, _ limit: String, scope: String, _ what: String) {
        #expect(response.status == 429, "\(what): \(response.status) \(response.text.prefix(200))")
        let retryAfter = Int(response.headers["retry-after"] ?? "") ?? 0
        #expect(retryAfter >= 1, "\(what): Retry-After \(response.headers["retry-after"] ?? "missing")")
        let error = object(response.text)["error"] as? [String: Any]
        let details = error?["details"] as? [String: Any]
        #expect(error?["code"] as? String == "rate_limited" && (error?["message"] as? String)?.contains("try again in") == true, "\(what): \(response.text)")
        #expect(details?["limit"] as? String == limit && details?["scope"] as? String == scope, "\(what): \(response.text)")
        #expect(details?["retry_after_seconds"] as? String == String(retryAfter), "\(what): \(response.text)")
    }

    @Test(arguments: [
        ("read", "/api/griot/sessions", CallerRole.client),
        ("search", "/api/stories/search?q=flood&k=100", .client),
        ("search", "/api/stories/near?lat=33.4&lon=-91.06&radius_km=500", .client),
        ("heavy", "/api/ops/turns?limit=5", .operator),
        ("heavy", "/api/audit?limit=5", .admin),
    ])
    func eachCostClassRefusesOneUserPastItsLimitWhileAnotherIsServed(limit: String, path: String, role: CallerRole) async throws {
        let service = try await TestService(routeLimits: Self.tight)
        let busy = try await service.headers("u-busy-\(role.rawValue)", role: role)
        let calm = try await service.headers("u-calm-\(role.rawValue)", role: role)
        try await service.test(.live) { client in
            for attempt in 1...3 {
                let response = try await live(client, .GET, path, headers: busy)
                #expect(response.status == 200, "\(path) attempt \(attempt): \(response.status) \(response.text.prefix(160))")
            }
            expectRateLimited(try await live(client, .GET, path, headers: busy), limit, scope: "user", path)
            #expect(try await live(client, .GET, path, headers: calm).status == 200, "another user is still served")
            expectRateLimited(try await live(client, .GET, path, headers: busy), limit, scope: "user", "\(path), again")
        }
    }

    /// Chat keeps its own limit, per user and shared through the database.
    @Test func chatRefusesOneUserPastTheMessageLimitWhileAnotherIsServed() async throws {
        let service = try await TestService(limits: [.perMinute(1)])
        let busy = try await service.headers("u-busy-chat")
        let calm = try await service.headers("u-calm-chat")
        try await service.test(.live) { client in
            #expect(try await live(client, .POST, "/api/griot/chat", headers: busy, body: body(["message": "Who kept bees?"])).status == 200)
            let refused = try await live(client, .POST, "/api/griot/chat", headers: busy, body: body(["message": "And then?"]))
            #expect(refused.status == 429 && Int(refused.headers["retry-after"] ?? "") ?? 0 >= 1)
            #expect((object(refused.text)["error"] as? [String: Any])?["code"] as? String == "rate_limited")
            #expect(try await live(client, .POST, "/api/griot/chat", headers: calm, body: body(["message": "Who kept bees?"])).status == 200)
        }
    }

    @Test func anonymousProbesPastTheirPerAddressLimitGet429() async throws {
        let service = try await TestService(routeLimits: Self.tight)
        let signedIn = try await service.headers("u-reader")
        try await service.test(.live) { client in
            for path in ["/readyz", "/healthz", "/metrics"] {
                #expect(try await live(client, .GET, path).status == 200, "\(path)")
            }
            expectRateLimited(try await live(client, .GET, "/readyz"), "probe", scope: "address", "/readyz")
            expectRateLimited(try await live(client, .GET, "/openapi.yaml"), "probe", scope: "address", "/openapi.yaml")
            // Probes spend the address's budget, not a user's: the API still answers the same address.
            #expect(try await live(client, .GET, "/api/griot/sessions", headers: signedIn).status == 200)
        }
    }

    // SQLite only: counts the rows changed on SQLite's one connection (total_changes()).
    @Test(.enabled(if: TestDatabase.isSQLite)) func readinessWritesNothingToTheDatabase() async throws {
        let store = try SQLiteStoryStore.inMemory()
        let archive = try StoryArchive(storage: try store.storage(), embedder: nil)
        let service = try await TestService(archive: archive)
        // One connection (an in-memory queue): total_changes() counts every row any statement changed.
        let changes = { try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT total_changes()") ?? -1 } }
        let before = try changes()
        try await service.test(.live) { client in
            for _ in 0..<5 {
                let ready = try await live(client, .GET, "/readyz")
                #expect(ready.status == 200, "\(ready.text)")
                #expect(object(ready.text)["database_writable"] as? Bool == true)
            }
        }
        #expect(try changes() == before, "readiness changed rows")
        #expect(try await store.metaValue("ready_check") == nil)
    }

    /// A database that would not take a write (another writer holds its lock past the 5 s busy
    /// timeout) is reported, and found out without writing. SQLite only: the lock is SQLite's file lock.
    @Test(.enabled(if: TestDatabase.isSQLite)) func readinessReportsADatabaseThatTakesNoWrites() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-ready-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("griot.sqlite").path
        let store = try SQLiteStoryStore(path: path)
        let service = try await TestService(archive: try StoryArchive(storage: try store.storage(), embedder: nil))
        try await store.checkWritable()
        // Another process's writer: holds the write lock until told to let go.
        let other = try DatabaseQueue(path: path)
        let lock = Mutex((held: false, release: false, done: false))
        let holder = Thread {
            try? other.write { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS lockHolder (x)")
                lock.withLock { $0.held = true }
                while !lock.withLock({ $0.release }) { Thread.sleep(forTimeInterval: 0.02) }
            }
            lock.withLock { $0.done = true }
        }
        holder.start()
        while !lock.withLock({ $0.held }) { try await Task.sleep(for: .milliseconds(10)) }
        try await service.test(.live) { client in
            let ready = try await live(client, .GET, "/readyz")
            #expect(ready.status == 503)
            #expect(object(ready.text)["database_writable"] as? Bool == false, "\(ready.text)")
        }
        lock.withLock { $0.release = true }
        while !lock.withLock({ $0.done }) { try await Task.sleep(for: .milliseconds(10)) }
        try await store.checkWritable()
    }

    // MARK: The limiter itself

    final class ManualClock: Sendable {
        let now = Mutex(0.0)
        func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
    }

    @Test func aUserMayHaveOnlyInFlightSearchOrHeavyRequestsRunningAtOnce() throws {
        let clock = ManualClock()
        var limits = RouteLimits()
        limits.inFlight = 2
        let limiter = RouteLimiter(limits: limits, sweepInterval: 10) { clock.now.withLock { $0 } }
        let first = try limiter.admit(.search, key: .user("u-a"))
        let second = try limiter.admit(.heavy, key: .user("u-a"))
        let refusal = #expect(throws: APIError.self) { try limiter.admit(.search, key: .user("u-a")) }
        #expect(refusal?.status == .tooManyRequests && refusal?.details["limit"] == "search_in_flight" && refusal?.headers[.retryAfter] == "1")
        _ = try limiter.admit(.search, key: .user("u-b"))
        _ = try limiter.admit(.read, key: .user("u-a"))
        limiter.release(first)
        let third = try limiter.admit(.search, key: .user("u-a"))
        limiter.release(second)
        limiter.release(third)
    }

    @Test func aBucketRefillsEvenlyAndSaysHowLongToWait() throws {
        let clock = ManualClock()
        var limits = RouteLimits()
        limits.search = .init(requests: 2, seconds: 4)
        let limiter = RouteLimiter(limits: limits, sweepInterval: 10) { clock.now.withLock { $0 } }
        for _ in 0..<2 { limiter.release(try limiter.admit(.search, key: .user("u-a"))) }
        let refusal = #expect(throws: APIError.self) { try limiter.admit(.search, key: .user("u-a")) }
        #expect(refusal?.headers[.retryAfter] == "2", "one request comes back every 2 s")
        clock.advance(1.5)
        #expect(throws: APIError.self) { try limiter.admit(.search, key: .user("u-a")) }
        clock.advance(0.5)
        limiter.release(try limiter.admit(.search, key: .user("u-a")))
    }

    @Test func refilledBucketsAreDroppedSoMemoryFollowsTrafficNotTime() throws {
        let clock = ManualClock()
        let limiter = RouteLimiter(limits: .defaults, sweepInterval: 10) { clock.now.withLock { $0 } }
        for user in 0..<1_000 { limiter.release(try limiter.admit(.read, key: .address("10.0.\(user / 256).\(user % 256)"))) }
        #expect(limiter.bucketCount == 1_000)
        clock.advance(61)
        _ = try limiter.admit(.probe, key: .address("10.9.9.9"))
        #expect(limiter.bucketCount == 1, "every bucket that refilled went at the sweep")
    }

    @Test func theLimitsAreReadFromTheEnvironment() throws {
        let limits = try RouteLimits(environment: ["GRIOT_ROUTE_LIMITS": "search=10/1, heavy=5/60 in_flight=4"])
        #expect(limits.search == .init(requests: 10, seconds: 1) && limits.heavy == .init(requests: 5, seconds: 60) && limits.inFlight == 4)
        #expect(limits.read == RouteLimits.defaults.read)
        #expect(try RouteLimits(environment: [:]) == .defaults)
        for wrong in ["search=fast", "chat=5/60", "heavy=0/60", "in_flight=0", "search"] {
            let error = #expect(throws: ConfigurationError.self) { try RouteLimits(environment: ["GRIOT_ROUTE_LIMITS": wrong]) }
            #expect(error?.description.contains("GRIOT_ROUTE_LIMITS") == true, "\(wrong)")
        }
    }
}
