import Foundation
import GriotStore
import Synchronization

/// Writes the text of streaming replies that has reached the client to the database from a
/// thread of its own, so that relaying a reply never waits for SQLite, and so that text a
/// client has seen is stored within a fraction of a second whatever the reply's sentence lengths.
///
/// ```swift
/// let checkpoints = ReplyCheckpoints(chats: chats)
/// checkpoints.save(messageID: reply.id, text: sentSoFar, releasedAt: [.now])   // returns at once
/// checkpoints.close(messageID: reply.id)                                      // before the final write
/// ```
/// SQLite has one writer. Written from the task that relays a reply, a checkpoint blocked a
/// cooperative thread whenever another write (a new chat's messages, a finished turn, a WAL
/// checkpoint) held the lock, and with 1,000 replies the two cooperative threads of a 2-core
/// machine could both be waiting. Here a reply's newest text replaces one still queued, every
/// queued reply is written in one transaction (so the write rate follows the database's pace,
/// not the number of replies), and `close` guarantees that no checkpoint lands after it.
///
/// Each queued text carries when its deltas left for the client, so the lag from a delta being
/// sent to its text being stored (and, with `syncAfterWrite`, synced to disk) is measured for
/// every delta and handed to the lag observer (the service's `/metrics`).
public final class ReplyCheckpoints: Sendable {
    private struct Checkpoint {
        var text: String
        /// When the deltas this text holds that no earlier checkpoint held were sent.
        var releasedAt: [ContinuousClock.Instant]
    }

    private struct Queue {
        var checkpoints: [String: Checkpoint] = [:]
        var order: [String] = []
        var threadStarted = false
        /// The replies of the batch being written, and the `close` calls waiting for it.
        var writing: Set<String> = []
        var closing: [CheckedContinuation<Void, Never>] = []
    }

    private struct Hooks: Sendable {
        var syncAfterWrite: (@Sendable () -> Void)?
        var lagObserver: (@Sendable ([Duration]) -> Void)?
    }

    private let chats: any ChatStore
    /// Guards the queued texts and the batch being written; never held while writing.
    private let queue = NSCondition()
    private nonisolated(unsafe) var pending = Queue()
    private let hooks = Mutex(Hooks())

    public init(chats: any ChatStore) {
        self.chats = chats
    }

    /// Makes every batch of checkpoints durable before its lag is measured (the service passes
    /// its `WALSyncer.syncNow`: one `fdatasync` of the WAL for the whole batch, on this thread).
    public func syncAfterWrite(_ sync: @escaping @Sendable () -> Void) {
        hooks.withLock { $0.syncAfterWrite = sync }
    }

    /// Receives, after each batch is stored, the lag of every delta the batch made durable.
    public func observeLag(_ observer: @escaping @Sendable ([Duration]) -> Void) {
        hooks.withLock { $0.lagObserver = observer }
    }

    /// Queues `text` as the reply's content so far (status `streaming`), replacing any text of
    /// the same reply that is still queued; `releasedAt` are the send times of the deltas that
    /// `text` holds and the last queued text did not.
    public func save(messageID: String, text: String, releasedAt: [ContinuousClock.Instant] = []) {
        queue.lock()
        if var queued = pending.checkpoints[messageID] {
            queued.text = text
            queued.releasedAt += releasedAt
            pending.checkpoints[messageID] = queued
        } else {
            pending.checkpoints[messageID] = Checkpoint(text: text, releasedAt: releasedAt)
            pending.order.append(messageID)
        }
        // The thread starts with the first checkpoint: an engine that never streams has none.
        if !pending.threadStarted {
            pending.threadStarted = true
            let thread = Thread { [self] in self.serve() }
            thread.name = "griot-checkpoints"
            thread.start()
        }
        queue.signal()
        queue.unlock()
    }

    /// Drops the reply's queued text and waits for a write of it that is under way: after this
    /// returns, no checkpoint of the reply reaches the database. Returns the send times of the
    /// deltas whose checkpoint was dropped: the reply's final write stores them (see `stored`).
    ///
    /// It suspends rather than blocks: the batch it waits for is written by a store call that
    /// runs on the cooperative threads, so a `close` holding one of them (with 1,000 replies,
    /// both ended at once) left the write, and every reply after it, waiting forever.
    @discardableResult
    public func close(messageID: String) async -> [ContinuousClock.Instant] {
        let (dropped, underWay) = queue.withLock {
            (pending.checkpoints.removeValue(forKey: messageID), pending.writing.contains(messageID))
        }
        if underWay {
            await withCheckedContinuation { (written: CheckedContinuation<Void, Never>) in
                let waits = queue.withLock {
                    guard pending.writing.contains(messageID) else { return false }
                    pending.closing.append(written)
                    return true
                }
                if !waits { written.resume() }
            }
        }
        return dropped?.releasedAt ?? []
    }

    /// Reports the lag of deltas stored by another write (the reply's final one), as of now.
    public func stored(releasedAt: [ContinuousClock.Instant]) {
        guard !releasedAt.isEmpty, let observer = hooks.withLock({ $0.lagObserver }) else { return }
        let now = ContinuousClock.now
        observer(releasedAt.map { now - $0 })
    }

    /// The pause between two batches. Written as fast as deltas came, the writer held SQLite's
    /// one write lock (and the `writing` lock a reply's `close` waits on) almost all the time
    /// under load: relaying at 1,000 chats went from p95 51 ms to 800 ms. A tenth of a second
    /// lets a batch gather every reply's newest text; the lag stays far under the 500 ms standard.
    static let pause: TimeInterval = 0.1

    private func serve() -> Never {
        while true {
            queue.lock()
            while pending.order.isEmpty { queue.wait() }
            queue.unlock()
            defer { Thread.sleep(forTimeInterval: Self.pause) }
            queue.lock()
            let batch = pending.order.compactMap { id in pending.checkpoints[id].map { (id, $0) } }
            pending.order.removeAll(keepingCapacity: true)
            pending.checkpoints.removeAll(keepingCapacity: true)
            pending.writing = Set(batch.map(\.0))
            queue.unlock()
            guard !batch.isEmpty else { continue }
            let texts = batch.map { (id: $0.0, content: $0.1.text) }
            Self.await { [chats] in try await chats.saveStreamingTexts(texts) }
            let hooks = hooks.withLock { $0 }
            hooks.syncAfterWrite?()
            // The batch is durable: replies closed meanwhile may make their final write.
            queue.lock()
            pending.writing = []
            let closing = pending.closing
            pending.closing = []
            queue.unlock()
            for written in closing { written.resume() }
            if let observer = hooks.lagObserver {
                let now = ContinuousClock.now
                observer(batch.flatMap { $0.1.releasedAt.map { now - $0 } })
            }
        }
    }

    /// Runs a store call to its end from the writer's own thread, which may block (it is not
    /// one of the cooperative threads): a failed write is dropped, as the next batch carries
    /// the reply's newer text and its final write stores the whole.
    private static func await(_ write: @escaping @Sendable () async throws -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            try? await write()
            done.signal()
        }
        done.wait()
    }
}
