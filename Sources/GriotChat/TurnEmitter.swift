import Foundation
import Synchronization

/// Sends a turn's events to its client and keeps a copy of each, so that the turn's snapshot
/// holds the events exactly as they were sent (name and JSON data, in order).
final class TurnEmitter: Sendable {
    private let continuation: AsyncStream<TurnEvent>.Continuation
    /// Kept as events; encoded once, when the turn is stored, not on the relaying path.
    private let log = Mutex<[TurnEvent]>([])

    init(_ continuation: AsyncStream<TurnEvent>.Continuation) {
        self.continuation = continuation
    }

    func yield(_ event: TurnEvent) {
        record(event)
        continuation.yield(event)
    }

    /// Keeps an event for the snapshot that is sent later (`done`, after the turn is stored).
    func record(_ event: TurnEvent) {
        log.withLock { $0.append(event) }
    }

    /// Sends an event already recorded.
    func send(_ event: TurnEvent) { continuation.yield(event) }

    func finish() { continuation.finish() }

    var sent: [TurnSnapshot.SentEvent] {
        log.withLock { $0 }.map { TurnSnapshot.SentEvent(event: $0.name, data: String(decoding: $0.jsonData(), as: UTF8.self)) }
    }
}
