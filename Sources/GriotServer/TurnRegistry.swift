import Foundation
import GriotChat

/// The turns this node is running or has just finished, with their numbered events, so that a
/// client can stop a turn by its thread, and resume a broken stream with `Last-Event-ID`.
///
/// ```swift
/// let entry = await registry.register(turn, owner: caller.userID)
/// for await (number, event) in await registry.subscribe(turnID: turn.id, after: 0)! { … }
/// ```
/// When the last listener goes away while the turn runs, the turn is stopped after `grace`
/// seconds unless someone resumes it first (0 stops it at once).
public actor TurnRegistry {
    public typealias NumberedEvent = (number: Int, event: TurnEvent)

    final class Entry {
        let turn: ChatTurn
        let owner: String
        var events: [TurnEvent] = []
        var finished = false
        var finishedAt: Date?
        var listeners: [UUID: AsyncStream<NumberedEvent>.Continuation] = [:]
        var orphanedAt: Date?

        init(turn: ChatTurn, owner: String) {
            self.turn = turn
            self.owner = owner
        }
    }

    /// Seconds a finished turn's events stay available for resuming.
    public let retention: Double
    /// Seconds a running turn without listeners waits for a resume before it is stopped.
    public let grace: Double
    private var entries: [String: Entry] = [:]

    public init(retention: Double = 300, grace: Double = 10) {
        self.retention = retention
        self.grace = grace
    }

    /// Starts recording a turn's events; they are kept even while nobody listens. `finished`
    /// gets all of them once the turn is done (for metrics).
    public func register(_ turn: ChatTurn, owner: String, finished: (@Sendable ([TurnEvent]) -> Void)? = nil) {
        prune()
        let entry = Entry(turn: turn, owner: owner)
        entries[turn.id] = entry
        Task { [weak self] in
            for await event in turn.events { await self?.record(event, turnID: turn.id) }
            if let events = await self?.close(turnID: turn.id) { finished?(events) }
        }
    }

    /// The events after `after` (replayed), then the live ones; nil when the turn is unknown here
    /// or belongs to someone else.
    public func subscribe(turnID: String, owner: String, after: Int) -> AsyncStream<NumberedEvent>? {
        guard let entry = entries[turnID], entry.owner == owner else { return nil }
        let (stream, continuation) = AsyncStream.makeStream(of: NumberedEvent.self)
        for (index, event) in entry.events.enumerated() where index + 1 > after {
            continuation.yield((index + 1, event))
        }
        if entry.finished {
            continuation.finish()
            return stream
        }
        let key = UUID()
        entry.listeners[key] = continuation
        entry.orphanedAt = nil
        continuation.onTermination = { [weak self] _ in
            Task { await self?.leave(turnID: turnID, key: key) }
        }
        return stream
    }

    /// The running turn of a thread, for stop.
    public func runningTurn(threadID: String) -> ChatTurn? {
        entries.values.first { $0.turn.threadID == threadID && !$0.finished }?.turn
    }

    public var runningCount: Int { entries.values.filter { !$0.finished }.count }

    /// The turns still running, of one user or of everyone (for erasure and for shutdown).
    public func runningTurns(owner: String? = nil) -> [ChatTurn] {
        entries.values.filter { !$0.finished && (owner == nil || $0.owner == owner) }.map(\.turn)
    }

    private func record(_ event: TurnEvent, turnID: String) {
        guard let entry = entries[turnID] else { return }
        entry.events.append(event)
        for listener in entry.listeners.values { listener.yield((entry.events.count, event)) }
    }

    private func close(turnID: String) -> [TurnEvent]? {
        guard let entry = entries[turnID] else { return nil }
        entry.finished = true
        entry.finishedAt = Date()
        for listener in entry.listeners.values { listener.finish() }
        entry.listeners = [:]
        return entry.events
    }

    private func leave(turnID: String, key: UUID) {
        guard let entry = entries[turnID] else { return }
        entry.listeners[key] = nil
        guard entry.listeners.isEmpty, !entry.finished else { return }
        let orphaned = Date()
        entry.orphanedAt = orphaned
        if grace <= 0 {
            entry.turn.stop()
            return
        }
        Task { [weak self, grace] in
            try? await Task.sleep(for: .milliseconds(Int(grace * 1000)))
            await self?.stopIfStillOrphaned(turnID: turnID, since: orphaned)
        }
    }

    private func stopIfStillOrphaned(turnID: String, since: Date) {
        guard let entry = entries[turnID], !entry.finished, entry.orphanedAt == since else { return }
        entry.turn.stop()
    }

    private func prune() {
        let cutoff = Date().addingTimeInterval(-retention)
        entries = entries.filter { !$0.value.finished || ($0.value.finishedAt ?? Date()) > cutoff }
    }
}
