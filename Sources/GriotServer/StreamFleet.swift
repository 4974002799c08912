import Foundation
import GriotChat
import GriotStore

/// The nodes of one shared database, as their streams see each other: this node's name in the
/// `StreamJournal`, how often it says it is alive, and how long a silent node counts as alive.
///
/// ```swift
/// let fleet = StreamFleet(journal: storage.chats)       // a fresh node id
/// let turns = TurnRegistry(fleet: fleet)
/// ```
public struct StreamFleet: Sendable {
    public let journal: any StreamJournal
    public let nodeID: String
    /// How often the node beats its heart and looks for stops asked of it.
    public let heartbeat: Duration
    /// Seconds without a heartbeat after which a node's running streams are ended `interrupted`
    /// by whichever node a client resumes on (or by the sweep).
    public let deadAfter: Double
    /// How often a follower on another node looks for new events.
    public let pollInterval: Duration

    public init(journal: any StreamJournal, nodeID: String = UUID().uuidString.lowercased(), heartbeat: Duration = .seconds(1),
                deadAfter: Double = 5, pollInterval: Duration = .milliseconds(100)) {
        self.journal = journal
        self.nodeID = nodeID
        self.heartbeat = heartbeat
        self.deadAfter = deadAfter
        self.pollInterval = pollInterval
    }
}

/// Follows a stream another node runs, or ran, from the journal, for a client that resumed here:
/// the stored events after the client's last, then new ones as they are committed, until the
/// stream's `done`; or, when its node has stopped beating its heart, the `interrupted` ending,
/// appended once to the journal (so every client resuming it gets the same events, numbered alike).
struct StreamFollower: Sendable {
    let fleet: StreamFleet
    let stream: TurnStreamRecord

    func follow(after: Int) -> AsyncStream<TurnRegistry.StreamedEvent> {
        let (events, continuation) = AsyncStream.makeStream(of: TurnRegistry.StreamedEvent.self)
        let task = Task { await run(after: after, into: continuation) }
        continuation.onTermination = { _ in task.cancel() }
        return events
    }

    private func run(after: Int, into continuation: AsyncStream<TurnRegistry.StreamedEvent>.Continuation) async {
        defer { continuation.finish() }
        let journal = fleet.journal
        var last = after
        var lastListened = Date.distantPast
        func send(_ events: [TurnStreamEvent]) -> Bool {
            for event in events {
                continuation.yield(TurnRegistry.StreamedEvent(number: event.number, content: event.content))
                last = event.number
                if event.content.name == "done" { return true }
            }
            return false
        }
        while !Task.isCancelled {
            do {
                // Read before looking at the stream's state: events committed before it finished
                // are all read by the pass that sees it finished.
                let current = try await journal.stream(turnID: stream.turnID)
                let events = try await journal.streamEvents(turnID: stream.turnID, after: last, limit: 1000)
                if send(events) { return }
                if events.count == 1000 { continue }
                guard let current else { return }   // pruned: nothing more will come
                if current.finishedAt != nil {
                    if send(try await journal.streamEvents(turnID: stream.turnID, after: last, limit: 100_000)) { return }
                    return
                }
                let now = Date()
                if now.timeIntervalSince(lastListened) >= 1 {
                    lastListened = now
                    try await journal.markStreamListened(turnID: stream.turnID, at: now)
                }
                let heartbeat = try await journal.lastHeartbeat(nodeID: current.nodeID)
                if heartbeat.map({ now.timeIntervalSince($0) > fleet.deadAfter }) ?? (now.timeIntervalSince(current.startedAt) > fleet.deadAfter) {
                    if try await StreamFollower.interrupt(current, journal: journal, now: now) != nil {
                        _ = send(try await journal.streamEvents(turnID: stream.turnID, after: last, limit: 100_000))
                        return
                    }
                    continue   // another node ended it first: its ending is read next pass
                }
            } catch {
                // The database is unreachable for a moment: try again after the interval.
            }
            try? await Task.sleep(for: fleet.pollInterval)
        }
    }

    /// Ends `stream`, whose node stopped, with the `interrupted` ending after its stored events
    /// (and marks its reply interrupted); nil when it had already ended.
    @discardableResult
    static func interrupt(_ stream: TurnStreamRecord, journal: any StreamJournal, now: Date = Date()) async throws -> [TurnStreamEvent]? {
        let stored = try await journal.streamEvents(turnID: stream.turnID, after: 0, limit: 100_000)
        let ending = TurnEvent.interruptedEnding(turnID: stream.turnID, replyMessageID: stream.replyMessageID,
                                                 after: stored.map(\.content), startedAt: stream.startedAt, now: now)
        guard case .done(let summary) = ending.last else { return nil }
        // It ended, but its node died before marking it so: end it without a second ending.
        let ended = stored.last?.content.name == "done"
        return try await journal.interruptStream(turnID: stream.turnID, ending: ended ? [] : ending.map(\.content),
                                                 replyText: summary.text, at: now)
    }
}
