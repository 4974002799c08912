import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Wakes the nodes' index followers when a story change commits: one connection per node
/// LISTENs on `PostgresStoryStore.changeChannel`, and each NOTIFY (sent by the writing
/// transaction, delivered at its commit) releases whoever waits. A lost connection is opened
/// again after a second; meanwhile the followers poll, so a change is never missed, only
/// noticed a little later.
///
/// ```swift
/// let signal = ChangeSignal(database: database)
/// await signal.wait(timeout: .milliseconds(200))   // returns at the next commit, or after 200 ms
/// ```
final class ChangeSignal: Sendable {
    private let database: PostgresDatabase
    /// A waiter, or the mark that it was released before it began to wait.
    private enum Slot {
        case waiting(CheckedContinuation<Void, Never>)
        case released
    }

    private let waiters = Mutex<[UInt64: Slot]>([:])
    private let nextID = Atomic<UInt64>(0)
    private let listening = Mutex<Task<Void, Never>?>(nil)

    init(database: PostgresDatabase) {
        self.database = database
    }

    deinit { listening.withLock { $0?.cancel() } }

    /// Returns at the next notification, or after `timeout`.
    func wait(timeout: Duration) async {
        startListening()
        let id = nextID.add(1, ordering: .relaxed).newValue
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [weak self] in
                await withCheckedContinuation { continuation in
                    guard let self else { return continuation.resume() }
                    let early = self.waiters.withLock { waiters -> Bool in
                        if case .released = waiters[id] { return true }
                        waiters[id] = .waiting(continuation)
                        return false
                    }
                    if early { continuation.resume() }
                }
            }
            group.addTask { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.release(id)
            }
            await group.next()
            group.cancelAll()
            self.release(id)
            await group.waitForAll()
        }
        _ = waiters.withLock { $0.removeValue(forKey: id) }
    }

    /// Resumes the waiter `id`, or marks it released if it has not begun to wait yet.
    private func release(_ id: UInt64) {
        let waiting = waiters.withLock { waiters -> CheckedContinuation<Void, Never>? in
            guard case .waiting(let continuation) = waiters[id] else {
                waiters[id] = .released
                return nil
            }
            waiters[id] = .released
            return continuation
        }
        waiting?.resume()
    }

    private func releaseAll() {
        let all = waiters.withLock { waiters -> [CheckedContinuation<Void, Never>] in
            var resumed: [CheckedContinuation<Void, Never>] = []
            for (id, slot) in waiters {
                if case .waiting(let continuation) = slot { resumed.append(continuation) }
                waiters[id] = .released
            }
            return resumed
        }
        for continuation in all { continuation.resume() }
    }

    private func startListening() {
        listening.withLock { task in
            guard task == nil else { return }
            task = Task { [weak self] in
                while !Task.isCancelled {
                    guard let self else { return }
                    do {
                        try await self.database.client.withConnection { connection in
                            try await connection.listen(on: PostgresStoryStore.changeChannel) { notifications in
                                for try await _ in notifications { self.releaseAll() }
                            }
                        }
                    } catch {
                        self.database.logger.info("listening for story changes stopped (\(error)); polling until it is back")
                    }
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
    }
}
