import Foundation
import GriotChat
import GriotStore
import Logging

/// The turns this node is running or has just finished, with their numbered events, so that a
/// client can stop a turn by its thread, and resume a broken stream with `Last-Event-ID`.
///
/// ```swift
/// await registry.register(turn, owner: caller.userID)
/// for await event in await registry.resume(turnID: turn.id, owner: caller.userID, after: 0)! { … }
/// ```
/// When the last listener goes away while the turn runs, the turn is stopped after `grace`
/// seconds unless someone resumes it first (0 stops it at once).
///
/// With a `StreamFleet` (nodes sharing a database), every event is written to the shared
/// journal before it is sent, and a turn this node does not know is resumed from the journal:
/// its stored events, then the rest as its node writes them, or an end marked `interrupted`
/// once that node has stopped beating its heart (`StreamFleet.deadAfter`).
public actor TurnRegistry {
    /// An event as sent: its number in the turn (from 1) and its SSE name and data.
    public struct StreamedEvent: Sendable, Hashable {
        public var number: Int
        public var content: StreamEventContent
    }

    final class Entry {
        let turn: ChatTurn
        let owner: String
        var events: [TurnEvent] = []
        var contents: [StreamEventContent] = []
        var finished = false
        var finishedAt: Date?
        var listeners: [UUID: AsyncStream<StreamedEvent>.Continuation] = [:]
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
    /// The shared journal and this node's name in it; nil on a node alone.
    public let fleet: StreamFleet?
    private let writer: StreamJournalWriter?
    private var entries: [String: Entry] = [:]

    public init(retention: Double = 300, grace: Double = 10, fleet: StreamFleet? = nil, logger: Logger = Logger(label: "griot.streams")) {
        self.retention = retention
        self.grace = grace
        self.fleet = fleet
        writer = fleet.map { StreamJournalWriter(journal: $0.journal, logger: logger) }
    }

    /// Starts recording a turn's events; they are kept even while nobody listens. `finished`
    /// gets all of them once the turn is done (for metrics).
    public func register(_ turn: ChatTurn, owner: String, finished: (@Sendable ([TurnEvent]) -> Void)? = nil) async {
        prune()
        let entry = Entry(turn: turn, owner: owner)
        entries[turn.id] = entry
        if let writer, let fleet {
            await writer.open(TurnStreamRecord(turnID: turn.id, userID: owner, threadID: turn.threadID, replyMessageID: turn.replyMessageID,
                                               nodeID: fleet.nodeID, startedAt: Date()))
        }
        Task { [weak self, writer] in
            var number = 0
            for await event in turn.events {
                number += 1
                let content = event.content
                // Stored before it is sent: an event a client holds is one a resume can find.
                await writer?.write(TurnStreamEvent(turnID: turn.id, number: number, content: content))
                await self?.record(event, content: content, turnID: turn.id)
            }
            await writer?.finish(turnID: turn.id)
            if let events = await self?.close(turnID: turn.id) { finished?(events) }
        }
    }

    /// The events after `after` (replayed), then the live ones: of a turn of this node, or,
    /// with a fleet, of a turn another node streams or streamed. Nil when the turn is unknown
    /// or belongs to someone else.
    public func resume(turnID: String, owner: String, after: Int) async -> AsyncStream<StreamedEvent>? {
        guard let fleet else { return subscribe(turnID: turnID, owner: owner, after: after) }
        let stream = try? await fleet.journal.stream(turnID: turnID)
        if let entry = entries[turnID], entry.owner == owner {
            // Another node ended this turn while this node was silent (its heartbeats did not
            // reach the database): the journal's ending stands, and the turn stops here.
            guard !entry.finished, stream?.finishedAt != nil else { return subscribe(turnID: turnID, owner: owner, after: after) }
            entry.turn.stop()
        }
        guard let stream, stream.userID == owner else { return nil }
        return StreamFollower(fleet: fleet, stream: stream).follow(after: after)
    }

    /// The events after `after` of a turn of this node, then the live ones; nil when the turn
    /// is not this node's or belongs to someone else.
    public func subscribe(turnID: String, owner: String, after: Int) -> AsyncStream<StreamedEvent>? {
        guard let entry = entries[turnID], entry.owner == owner else { return nil }
        let (stream, continuation) = AsyncStream.makeStream(of: StreamedEvent.self)
        for (index, content) in entry.contents.enumerated() where index + 1 > after {
            continuation.yield(StreamedEvent(number: index + 1, content: content))
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

    /// Stops this node's running turns among `turnIDs` (their stop was asked for on another node).
    public func stop(turnIDs: [String]) {
        for id in turnIDs {
            if let entry = entries[id], !entry.finished { entry.turn.stop() }
        }
    }

    public var runningCount: Int { entries.values.filter { !$0.finished }.count }

    /// The turns still running, of one user or of everyone (for erasure and for shutdown).
    public func runningTurns(owner: String? = nil) -> [ChatTurn] {
        entries.values.filter { !$0.finished && (owner == nil || $0.owner == owner) }.map(\.turn)
    }

    private func record(_ event: TurnEvent, content: StreamEventContent, turnID: String) {
        guard let entry = entries[turnID] else { return }
        entry.events.append(event)
        entry.contents.append(content)
        let streamed = StreamedEvent(number: entry.contents.count, content: content)
        for listener in entry.listeners.values { listener.yield(streamed) }
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
        if grace <= 0, fleet == nil {
            entry.turn.stop()
            return
        }
        scheduleOrphanCheck(turnID: turnID, since: orphaned)
    }

    private func scheduleOrphanCheck(turnID: String, since: Date) {
        Task { [weak self, grace] in
            try? await Task.sleep(for: .milliseconds(Int(grace * 1000)))
            await self?.stopIfStillOrphaned(turnID: turnID, since: since)
        }
    }

    /// Stops a turn nobody has listened to for `grace`; with a fleet, a client following it from
    /// another node (`StreamFollower`, which marks it listened every second) keeps it going.
    private func stopIfStillOrphaned(turnID: String, since: Date) async {
        guard let entry = entries[turnID], !entry.finished, entry.orphanedAt == since else { return }
        if let fleet, let stream = try? await fleet.journal.stream(turnID: turnID), let listened = stream.listenedAt,
           Date().timeIntervalSince(listened) < max(grace, 3) {
            scheduleOrphanCheck(turnID: turnID, since: since)
            return
        }
        guard entry.orphanedAt == since else { return }
        entry.turn.stop()
    }

    private func prune() {
        let cutoff = Date().addingTimeInterval(-retention)
        entries = entries.filter { !$0.value.finished || ($0.value.finishedAt ?? Date()) > cutoff }
    }
}
