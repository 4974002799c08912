import Foundation
import GriotStore
import Logging

/// Writes the events of this node's streams to the shared `StreamJournal` before they are
/// sent: every stream waiting on a write joins the same transaction (a group commit), so the
/// database sees one commit per round, not one per event, whatever the number of replies.
///
/// ```swift
/// await writer.open(stream)                // with the next round
/// await writer.write(event)                // returns once the event is committed
/// await writer.finish(turnID: stream.turnID)
/// ```
/// A write the database refuses is logged, and the event is still sent: the reply goes on for
/// the client that reads it here; only a resume on another node would then miss it.
actor StreamJournalWriter {
    let journal: any StreamJournal
    let logger: Logger
    private var pending = StreamJournalBatch()
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var flushing = false
    private var lastFailureLogged: Date?

    init(journal: any StreamJournal, logger: Logger) {
        self.journal = journal
        self.logger = logger
    }

    /// Queues a new stream's record; it is committed with the next round (before its first event).
    func open(_ stream: TurnStreamRecord) {
        pending.opened.append(stream)
    }

    /// Returns once `event` is committed (or its round failed).
    func write(_ event: TurnStreamEvent) async {
        pending.events.append(event)
        await awaitRound()
    }

    /// Marks the stream finished; returns once committed.
    func finish(turnID: String) async {
        pending.finished.append(turnID)
        await awaitRound()
    }

    private func awaitRound() async {
        await withCheckedContinuation { continuation in
            waiters.append(continuation)
            if !flushing {
                flushing = true
                Task { await self.flush() }
            }
        }
    }

    /// Commits rounds until nothing is pending: what arrives during a commit goes in the next.
    private func flush() async {
        while !pending.isEmpty || !waiters.isEmpty {
            var batch = pending
            batch.at = Date()
            pending = StreamJournalBatch()
            let released = waiters
            waiters = []
            do {
                try await journal.writeStreams(batch)
            } catch {
                let now = Date()
                if lastFailureLogged.map({ now.timeIntervalSince($0) > 10 }) ?? true {
                    lastFailureLogged = now
                    logger.error("could not journal \(batch.events.count) stream events: \(error); they are sent, but a resume on another node will miss them")
                }
            }
            for waiter in released { waiter.resume() }
        }
        flushing = false
    }
}
