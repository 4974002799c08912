import Foundation

/// Per-user message limits over rolling windows, counted in the shared database so that every
/// service node using it agrees: 30 a minute is 30 across the fleet. Refused attempts are not
/// recorded, so retrying does not push the wait further out.
///
/// ```swift
/// if case .refused(let refusal) = try await limiter.admit(userID: user.id, now: Date()) {
///     throw HTTPError(.tooManyRequests, headers: [.retryAfter: "\(refusal.retryAfterSeconds)"], message: refusal.message)
/// }
/// ```
public protocol RateLimiter: Sendable {
    var limits: [RateLimit] { get }
    /// Admits and counts one message of `userID` at `now`, or refuses it with the limit that is
    /// full and the exact wait. Two nodes can never both see room for the last place.
    func admit(userID: String, now: Date) async throws -> RateDecision
    /// Removes every user's rows older than the longest window, for a scheduled job.
    func prune(now: Date) async throws -> Int
}

extension RateLimiter {
    public func admit(userID: String) async throws -> RateDecision {
        try await admit(userID: userID, now: Date())
    }

    @discardableResult
    public func prune() async throws -> Int {
        try await prune(now: Date())
    }
}
