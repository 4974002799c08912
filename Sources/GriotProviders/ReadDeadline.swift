/// Gives up on a response body that stays silent for too long.
///
/// AsyncHTTPClient's per-request deadline covers only the wait for the headers, and its read
/// timeout belongs to the whole client (so to every user of a shared one); a stream that stops
/// mid-reply would otherwise hang until the model's turn times out. Keep-alive comments count
/// as activity, so a slow model that keeps its connection warm is not cut off.
///
/// ```swift
/// try await ReadDeadline.run(seconds: 60) { deadline in
///     for try await chunk in body { await deadline.touch(); … }
/// }
/// ```
actor ReadDeadline {
    private var limit: Duration
    private var lastActivity = ContinuousClock.now
    /// The longest the watch sleeps at a time, so that a `shorten(to:)` takes effect soon.
    private static let watchInterval = Duration.seconds(1)

    private init(seconds: Double) {
        limit = .nanoseconds(Int64(seconds * 1_000_000_000))
    }

    /// Records that bytes arrived.
    func touch() { lastActivity = .now }

    /// From now on allows at most `seconds` of silence (counted from now).
    func shorten(to seconds: Double) {
        limit = min(limit, .nanoseconds(Int64(seconds * 1_000_000_000)))
        lastActivity = .now
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
            let expiry = lastActivity + limit
            if ContinuousClock.now >= expiry {
                let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
                throw ProviderError.connection("the service sent nothing for \(Self.format(seconds)) s")
            }
            try await Task.sleep(until: min(expiry, ContinuousClock.now + Self.watchInterval), clock: .continuous)
        }
    }

    /// "60" for whole seconds, "0.3" otherwise.
    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
