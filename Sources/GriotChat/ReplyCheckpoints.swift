import Foundation
import GriotStore
import Synchronization

/// Writes the text so far of streaming replies to the database from a thread of its own, so that
/// relaying a reply never waits for SQLite.
///
/// ```swift
/// let checkpoints = ReplyCheckpoints(chats: chats)
/// checkpoints.save(messageID: reply.id, text: textSoFar)   // returns at once
/// checkpoints.close(messageID: reply.id)                   // before the final write
/// ```
/// SQLite has one writer. Written from the task that relays a reply, a checkpoint blocked a
/// cooperative thread whenever another write (a new chat's messages, a finished turn, a WAL
/// checkpoint) held the lock, and with 1,000 replies checkpointing twice a second the two
/// cooperative threads of a 2-core machine could both be waiting. Here a reply's newest text
/// replaces one still queued, and `close` guarantees that no checkpoint lands after it.
public final class ReplyCheckpoints: Sendable {
    private struct Queue {
        var texts: [String: String] = [:]
        var order: [String] = []
        var threadStarted = false
    }

    private let chats: ChatStore
    /// Guards the queued texts; held only to queue and take them, never while writing.
    private let queue = NSCondition()
    private nonisolated(unsafe) var pending = Queue()
    /// Held while a checkpoint is taken from the queue and written, and by `close`.
    private let writing = Mutex(())

    public init(chats: ChatStore) {
        self.chats = chats
    }

    /// Queues `text` as the reply's content so far (status `streaming`), replacing any text of
    /// the same reply that is still queued.
    public func save(messageID: String, text: String) {
        queue.lock()
        if pending.texts.updateValue(text, forKey: messageID) == nil { pending.order.append(messageID) }
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
    /// returns, no checkpoint of the reply reaches the database.
    public func close(messageID: String) {
        writing.withLock { _ in
            queue.lock()
            pending.texts[messageID] = nil
            queue.unlock()
        }
    }

    private func serve() -> Never {
        while true {
            queue.lock()
            while pending.order.isEmpty { queue.wait() }
            let messageIDs = pending.order
            pending.order.removeAll(keepingCapacity: true)
            queue.unlock()
            for messageID in messageIDs {
                writing.withLock { _ in
                    queue.lock()
                    let text = pending.texts.removeValue(forKey: messageID)
                    queue.unlock()
                    guard let text else { return }
                    try? chats.finishMessage(id: messageID, content: text, status: .streaming)
                }
            }
        }
    }
}
