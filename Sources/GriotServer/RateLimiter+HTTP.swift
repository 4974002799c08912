import GriotStore
import Hummingbird

extension RateLimiter {
    /// Counts one message of the user, or refuses it with 429, `Retry-After` and which limit was hit;
    /// with the key's own limit when the caller is an API key that has one (`KeyChatLimits`).
    func check(_ userID: String) async throws {
        guard case .refused(let refusal) = try await (KeyChatLimits.current ?? self).admit(userID: userID) else { return }
        throw APIError(.tooManyRequests, code: "rate_limited", refusal.message,
                       details: ["limit": refusal.limit.name, "retry_after_seconds": String(refusal.retryAfterSeconds)],
                       headers: [.retryAfter: String(refusal.retryAfterSeconds)])
    }
}
