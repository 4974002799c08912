/// When and after how long a failed provider call is tried again.
///
/// A call is retried only while nothing of the reply has been shown: a retryable error (5xx, 429,
/// a connection failure) before the first text. The wait before retry *n* (1, 2, …) is
/// exponential with equal jitter: half of `min(maximumDelay, baseDelay · 2ⁿ⁻¹)` plus a random
/// part of the other half, so concurrent callers spread out but none retries at once. When the
/// service said how long to wait (`Retry-After`), that is used instead, capped the same way.
///
/// ```swift
/// let policy = RetryPolicy()                           // 3 attempts, 0.5 s doubling, at most 8 s
/// policy.delay(beforeRetry: 2, retryAfter: nil)        // between 0.5 and 1.0 s
/// ```
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included.
    public var maximumAttempts: Int
    public var baseDelay: Double
    public var maximumDelay: Double
    /// A random number in 0..<1 for the jitter; injectable so tests can pin it.
    public var random: @Sendable () -> Double

    public init(maximumAttempts: Int = 3, baseDelay: Double = 0.5, maximumDelay: Double = 8,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.random = random
    }

    /// No retries: one attempt.
    public static let none = RetryPolicy(maximumAttempts: 1)

    /// Seconds to wait before retry number `retry` (1 for the second attempt).
    public func delay(beforeRetry retry: Int, retryAfter: Double?) -> Double {
        if let retryAfter, retryAfter.isFinite {
            return min(max(0, retryAfter), maximumDelay)
        }
        let ceiling = min(maximumDelay, baseDelay * Double(1 << min(max(0, retry - 1), 30)))
        let unit = min(max(random(), 0), 1)
        return ceiling / 2 + unit * ceiling / 2
    }
}
