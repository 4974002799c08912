import Foundation
import GriotStore
import Hummingbird

extension RateLimiter {
    /// Counts one message of the user, or refuses it with 429, `Retry-After` and which limit was hit;
    /// with the key's own limit when the caller is an API key that has one (`KeyChatLimits`).
    /// A refusal is counted on the dashboard when this is the service's limiter (`CountingRateLimiter`).
    func check(_ userID: String) async throws {
        guard case .refused(let refusal) = try await (KeyChatLimits.current ?? self).admit(userID: userID) else { return }
        (self as? CountingRateLimiter)?.rollups.refused()
        throw APIError(.tooManyRequests, code: "rate_limited", refusal.message,
                       details: ["limit": refusal.limit.name, "retry_after_seconds": String(refusal.retryAfterSeconds)],
                       headers: [.retryAfter: String(refusal.retryAfterSeconds)])
    }
}

/// The service's message limiter: the database's, unchanged, with the dashboard counting what
/// `check` refuses (the key's own limits included).
struct CountingRateLimiter: RateLimiter {
    let base: any RateLimiter
    let rollups: TurnRollupRecorder

    var limits: [RateLimit] { base.limits }

    func admit(userID: String, now: Date) async throws -> RateDecision {
        try await base.admit(userID: userID, now: now)
    }

    func prune(now: Date) async throws -> Int {
        try await base.prune(now: now)
    }
}
