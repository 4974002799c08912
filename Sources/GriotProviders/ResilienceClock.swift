import Foundation

/// The time that retries and the circuit breaker see, so tests can move it by hand.
///
/// ```swift
/// let opened = clock.now()
/// try await clock.sleep(seconds: 0.5)   // a backoff delay
/// ```
public protocol ResilienceClock: Sendable {
    /// Seconds on this clock's scale; only differences between two readings matter.
    func now() -> Double
    /// Waits `seconds`; throws `CancellationError` when the task is cancelled.
    func sleep(seconds: Double) async throws
}

/// Real time. `now()` is wall-clock seconds since 1970, so the breaker's opened-at and
/// retry-at read as dates in health checks and metrics.
public struct SystemResilienceClock: ResilienceClock {
    public init() {}

    public func now() -> Double { Date().timeIntervalSince1970 }

    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
