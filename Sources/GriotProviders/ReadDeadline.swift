import Foundation
import Synchronization

/// Gives up on a response body that stays silent for too long.
///
/// AsyncHTTPClient's per-request deadline covers only the wait for the headers, and its read
/// timeout belongs to the whole client (so to every user of a shared one); a stream that stops
/// mid-reply would otherwise hang until the model's turn times out. Keep-alive comments count
/// as activity, so a slow model that keeps its connection warm is not cut off.
///
/// ```swift
/// try await ReadDeadline.run(seconds: 60) { deadline in
///     for try await chunk in body { deadline.touch(); … }
/// }
/// ```
/// The times are atomics rather than an actor's state: `touch()` runs for every chunk of every
/// reply, and an actor would cost each chunk a hop to it and back.
final class ReadDeadline: Sendable {
    /// Nanoseconds of silence allowed.
    private let limit: Atomic<Int64>
    /// When bytes last arrived, in nanoseconds of the monotonic clock.
    private let lastActivity = Atomic<Int64>(ReadDeadline.now())
    /// The longest the watch sleeps at a time, so that a `shorten(to:)` takes effect soon.
    private static let watchInterval = 1_000_000_000 as Int64

    private init(seconds: Double) {
        limit = Atomic(Self.nanoseconds(seconds))
    }

    /// Records that bytes arrived.
    func touch() { lastActivity.store(Self.now(), ordering: .relaxed) }

    /// From now on allows at most `seconds` of silence (counted from now).
    func shorten(to seconds: Double) {
        limit.store(min(limit.load(ordering: .relaxed), Self.nanoseconds(seconds)), ordering: .relaxed)
        touch()
    }

    /// Runs `body`; throws `ProviderError.connection` (and cancels `body`) once `seconds` pass
    /// without a `touch()`.
    static func run(seconds: Double, _ body: @escaping @Sendable (ReadDeadline) async throws -> Void) async throws {
        let deadline = ReadDeadline(seconds: seconds)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await body(deadline) }
            group.addTask { try await deadline.watch() }
            // Whichever ends first decides: the body finishing (or failing), or the watch expiring.
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func watch() async throws {
        while true {
            let limit = limit.load(ordering: .relaxed)
            let now = Self.now()
            let expiry = lastActivity.load(ordering: .relaxed) + limit
            if now >= expiry {
                throw ProviderError.connection("the service sent nothing for \(Self.format(Double(limit) / 1e9)) s")
            }
            try await Task.sleep(nanoseconds: UInt64(min(expiry - now, Self.watchInterval)))
        }
    }

    private static func now() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds) }

    private static func nanoseconds(_ seconds: Double) -> Int64 { Int64(seconds * 1_000_000_000) }

    /// "60" for whole seconds, "0.3" otherwise.
    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
