import Synchronization

/// Writers taking turns across suspension points: the archive's writes hold it across the
/// database write (which awaits) and the index update, so the index applies changes in the
/// order the database committed them. First come, first served.
///
/// ```swift
/// let writes = WriterTurns()
/// try await writes.run { try await store.save(batch); index.apply(batch) }
/// ```
final class WriterTurns: Sendable {
    private struct Queue {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let queue = Mutex(Queue())

    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = queue.withLock { queue in
                if queue.busy {
                    queue.waiting.append(continuation)
                    return false
                }
                queue.busy = true
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    private func release() {
        let next = queue.withLock { queue -> CheckedContinuation<Void, Never>? in
            guard !queue.waiting.isEmpty else {
                queue.busy = false
                return nil
            }
            return queue.waiting.removeFirst()
        }
        next?.resume()
    }
}
