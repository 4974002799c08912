import Foundation
import GriotPostgres
import GriotStore
import GriotTestSupport
import Testing

@Suite("Rate limiter: the same limits on every backend")
struct RateLimiterConformanceTests {
    /// A fixed moment in whole seconds, so every wait below is exact in binary floating point.
    static let t0 = Date(timeIntervalSince1970: 1_764_000_000)

    @Test("30 messages in a minute are admitted; the 31st is refused with the exact wait and a message that says it",
          arguments: StoreBackend.allCases)
    func thirtyAMinute(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let limiter = try await storage.rateLimiter()
            #expect(limiter.limits == RateLimit.defaults)
            for second in 0..<30 {
                let decision = try await limiter.admit(userID: "u-ruth", now: Self.t0 + Double(second))
                #expect(decision == .allowed(remaining: 29 - second))
            }
            guard case .refused(let refusal) = try await limiter.admit(userID: "u-ruth", now: Self.t0 + 37) else {
                Issue.record("the 31st message in a minute was admitted")
                return
            }
            #expect(refusal.limit == .perMinute(30))
            #expect(refusal.sent == 30)
            #expect(refusal.retryAfter == 23)
            #expect(refusal.retryAfterSeconds == 23)
            #expect(refusal.message == "You have sent 30 messages in the last minute; try again in 23 s.")
        }
    }

    @Test("Each user has a window of their own", arguments: StoreBackend.allCases)
    func usersAreCountedApart(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let limiter = try await storage.rateLimiter([.perMinute(2)])
            #expect(try await limiter.admit(userID: "u-ruth", now: Self.t0).isAllowed)
            #expect(try await limiter.admit(userID: "u-ruth", now: Self.t0 + 1).isAllowed)
            #expect(try await !limiter.admit(userID: "u-ruth", now: Self.t0 + 2).isAllowed)
            #expect(try await limiter.admit(userID: "u-simone", now: Self.t0 + 2) == .allowed(remaining: 1))
            #expect(try await limiter.admit(userID: "Zofia Łukasiewicz 李秀英", now: Self.t0 + 2).isAllowed)
        }
    }

    @Test("The window rolls: a message frees its place exactly a minute after it was sent, and refusals do not count",
          arguments: StoreBackend.allCases)
    func windowRolls(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let limiter = try await storage.rateLimiter()
            for second in 0..<30 { _ = try await limiter.admit(userID: "u-ruth", now: Self.t0 + Double(second)) }
            for second in 30..<60 { #expect(try await !limiter.admit(userID: "u-ruth", now: Self.t0 + Double(second)).isAllowed) }
            #expect(try await limiter.admit(userID: "u-ruth", now: Self.t0 + 60).isAllowed)
            guard case .refused(let refusal) = try await limiter.admit(userID: "u-ruth", now: Self.t0 + 60.5) else {
                Issue.record("admitted a 31st message within the minute")
                return
            }
            #expect(refusal.retryAfter == 0.5)
            #expect(refusal.retryAfterSeconds == 1)
            #expect(try await limiter.admit(userID: "u-ruth", now: Self.t0 + 61).isAllowed)
        }
    }

    @Test("300 messages a day are admitted; the 301st waits for the day's oldest, and the day limit is named",
          arguments: StoreBackend.allCases)
    func threeHundredADay(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let limiter = try await storage.rateLimiter()
            for index in 0..<300 {
                #expect(try await limiter.admit(userID: "u-ruth", now: Self.t0 + Double(index) * 240).isAllowed)
            }
            guard case .refused(let refusal) = try await limiter.admit(userID: "u-ruth", now: Self.t0 + 72_000) else {
                Issue.record("the 301st message in a day was admitted")
                return
            }
            #expect(refusal.limit.name == "per_day")
            #expect(refusal.sent == 300)
            #expect(refusal.retryAfter == 14_400)
            #expect(refusal.message == "You have sent 300 messages in the last day; try again in 4 h.")
            #expect(try await limiter.admit(userID: "u-ruth", now: Self.t0 + 86_400).isAllowed)
        }
    }

    @Test("When both limits are full, the one that frees later is reported", arguments: StoreBackend.allCases)
    func laterLimitWins(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let limiter = try await storage.rateLimiter([.perMinute(2), .perDay(3)])
            for offset in [0.0, 100, 101] { #expect(try await limiter.admit(userID: "u-ruth", now: Self.t0 + offset).isAllowed) }
            guard case .refused(let refusal) = try await limiter.admit(userID: "u-ruth", now: Self.t0 + 102) else {
                Issue.record("admitted a fourth message in a day limited to three")
                return
            }
            #expect(refusal.limit.name == "per_day")
            #expect(refusal.retryAfter == 86_400 - 102)
        }
    }

    @Test("Fractions of a second are kept: a window frees at the exact instant", arguments: StoreBackend.allCases)
    func subsecondTimes(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let limiter = try await storage.rateLimiter([.perMinute(1)])
            let sent = Self.t0 + 0.123_456_789
            #expect(try await limiter.admit(userID: "u-ruth", now: sent).isAllowed)
            guard case .refused(let refusal) = try await limiter.admit(userID: "u-ruth", now: sent + 59.9) else {
                Issue.record("admitted a second message in a minute limited to one")
                return
            }
            #expect(refusal.retryAfter == sent.timeIntervalSince1970 + 60 - (sent + 59.9).timeIntervalSince1970)
            #expect(try await limiter.admit(userID: "u-ruth", now: sent + 60).isAllowed)
        }
    }

    @Test("Pruning removes every user's rows older than the longest window, and only those", arguments: StoreBackend.allCases)
    func pruneOldRows(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let limiter = try await storage.rateLimiter([.perMinute(2)])
            _ = try await limiter.admit(userID: "u-ruth", now: Self.t0)
            _ = try await limiter.admit(userID: "u-simone", now: Self.t0 + 30)
            _ = try await limiter.admit(userID: "u-maya", now: Self.t0 + 50)
            #expect(try await limiter.prune(now: Self.t0 + 60) == 1)
            #expect(try await limiter.prune(now: Self.t0 + 60) == 0)
            #expect(try await limiter.prune(now: Self.t0 + 100) == 1)
            // Maya's message is still inside her minute, so it still counts.
            #expect(try await limiter.admit(userID: "u-maya", now: Self.t0 + 100) == .allowed(remaining: 0))
        }
    }

    @Test("40 concurrent messages of one user with a limit of 30 admit exactly 30", arguments: StoreBackend.allCases)
    func concurrentAdmitsNeverOvershoot(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let limiter = try await storage.rateLimiter([.perMinute(30)])
            let decisions = try await Self.admitConcurrently(40, of: "u-maya", through: [limiter], at: Self.t0)
            #expect(decisions.filter(\.isAllowed).count == 30)
            #expect(decisions.filter { !$0.isAllowed }.count == 10)
        }
    }

    @Test("Two PostgreSQL nodes on one database share a user's count: 40 messages at once across both admit exactly 30")
    func nodesShareTheCount() async throws {
        let schema = try await TestSchema.create()
        let first = try await PostgresDatabase.open(url: schema.url)
        let second = try await PostgresDatabase.open(url: schema.url)
        let limiters = try await [first.storage(environment: [:]).rateLimiter([.perMinute(30)]),
                                  second.storage(environment: [:]).rateLimiter([.perMinute(30)])]
        let decisions = try await Self.admitConcurrently(40, of: "u-maya", through: limiters, at: Self.t0)
        #expect(decisions.filter(\.isAllowed).count == 30)
        #expect(try await limiters[1].admit(userID: "u-maya", now: Self.t0 + 1).isAllowed == false)
        await first.close()
        await second.close()
        try await schema.drop()
    }

    /// `count` admits of one user at once, spread over `limiters` in turn.
    static func admitConcurrently(_ count: Int, of userID: String, through limiters: [any RateLimiter], at now: Date) async throws -> [RateDecision] {
        try await withThrowingTaskGroup(of: RateDecision.self) { group in
            for index in 0..<count {
                let limiter = limiters[index % limiters.count]
                group.addTask { try await limiter.admit(userID: userID, now: now) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}
