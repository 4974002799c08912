import Foundation

/// A clock for tests: it stands still until told to move, and a sleep returns at once after
/// recording how long it was asked for and moving the time on by that much.
///
/// ```swift
/// let clock = ManualResilienceClock()
/// clock.advance(by: 120)      // the breaker's open period is over
/// #expect(clock.sleeps == [0.4, 0.9])
/// ```
public final class ManualResilienceClock: ResilienceClock, @unchecked Sendable {
    // A lock rather than an actor because `now()` is synchronous; NSLock because the package's
    // macOS 14 floor rules out `Mutex` and this target does not depend on NIOConcurrencyHelpers.
    private let lock = NSLock()
    private var current: Double
    private var recordedSleeps: [Double] = []

    public init(now: Double = 1_000_000) {
        current = now
    }

    public func now() -> Double {
        lock.withLock { current }
    }

    /// Every sleep asked for so far, in order (the backoff delays).
    public var sleeps: [Double] {
        lock.withLock { recordedSleeps }
    }

    public func advance(by seconds: Double) {
        lock.withLock { current += seconds }
    }

    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        lock.withLock {
            recordedSleeps.append(seconds)
            current += max(0, seconds)
        }
    }
}
