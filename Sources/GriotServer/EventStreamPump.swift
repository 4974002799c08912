import NIOCore

/// What a long-lived Server-Sent Events response waits on besides its own data: a comment line
/// every `keepAlive` (so proxies keep a quiet stream open) and the client's hang-up. Both feed
/// one stream with the response's own items (`source`), so its writer waits in one place, and
/// every task started here ends with the response.
///
/// ```swift
/// try await EventStreamPump(keepAlive: .seconds(15), closed: closed, beat: .heartbeat, end: .end).run { continuation in
///     for await event in events { continuation.yield(.event(event)) }
///     continuation.yield(.end)
/// } body: { items, _ in
///     for await item in items { … }
/// }
/// ```
struct EventStreamPump<Item: Sendable>: Sendable {
    let keepAlive: Duration
    /// Completes when the client's connection closes; `end` is then sent at once.
    let closed: EventLoopFuture<Void>?
    let beat: Item
    let end: Item

    func run(source: @escaping @Sendable (AsyncStream<Item>.Continuation) async -> Void,
             body: (AsyncStream<Item>, AsyncStream<Item>.Continuation) async throws -> Void) async throws {
        let (items, continuation) = AsyncStream.makeStream(of: Item.self)
        let feeding = Task { await source(continuation) }
        let beating = Task { [keepAlive, beat] in
            while !Task.isCancelled {
                try? await Task.sleep(for: keepAlive)
                if Task.isCancelled { break }
                continuation.yield(beat)
            }
        }
        let hangUp = Task { [closed, end] in
            guard let closed else { return }
            try? await closed.get()
            continuation.yield(end)
        }
        defer {
            hangUp.cancel()
            beating.cancel()
            feeding.cancel()
            continuation.finish()
        }
        try await body(items, continuation)
    }
}
