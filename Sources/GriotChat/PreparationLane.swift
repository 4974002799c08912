import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Threads of their own, at a lower scheduling priority, for the CPU-heavy preparation of a turn:
/// the query embedding, retrieval, and the prompt assembled with exact token counts.
///
/// ```swift
/// let lane = PreparationLane(threads: 1, niceness: 10)
/// let sources = try await lane.run { try archive.search(query, filter: filter, k: 8, settings: settings) }
/// ```
/// This is a bulkhead. On Swift's cooperative pool a new chat's 10–20 ms of CPU sits in the same
/// queue as the wake-ups that relay the tokens of the chats already streaming, so under a burst
/// of new chats every running reply stalls behind them (`griot-bench serve-load`: 1,000 chats
/// opened over 10 s gave a first-token overhead of 10.6 s at p95; with this lane, 12–46 ms).
/// Here new chats wait for one of these threads instead, and since their nice value is higher
/// the kernel runs the relaying threads first: running replies stay responsive, and the wait
/// shows as time before the model.
public final class PreparationLane: Sendable {
    /// The service's lane: one thread per core, nice 10. Idle cores go to preparing new chats;
    /// a core that a relaying thread wants goes to it. (With one thread on 2 cores, 1,000 chats
    /// opened over 10 s started so slowly that at most 867 of their 20 s replies streamed at once.)
    public static let shared = PreparationLane(threads: ProcessInfo.processInfo.activeProcessorCount,
                                               niceness: ProcessInfo.processInfo.environment["GRIOT_PREPARATION_NICENESS"].flatMap(Int32.init) ?? defaultNiceness)

    /// How much lower than the rest of the process the lane runs (0–19; 10 gives it about a
    /// tenth of a core that relaying threads also want).
    public static let defaultNiceness: Int32 = 10

    private final class Job: Sendable {
        let work: @Sendable (_ cancelled: Bool) -> Void
        let cancelled = Atomic(false)
        init(_ work: @escaping @Sendable (Bool) -> Void) { self.work = work }
    }

    /// Guards `jobs` and `head`, and wakes an idle thread when a job comes.
    private let condition = NSCondition()
    private nonisolated(unsafe) var jobs: [Job] = []
    private nonisolated(unsafe) var head = 0

    public init(threads: Int, niceness: Int32 = defaultNiceness) {
        precondition(threads >= 1, "a preparation lane needs at least one thread")
        for index in 0..<threads {
            let thread = Thread { [self] in
                // On Linux the nice value belongs to the thread: PRIO_PROCESS with 0 is this thread only.
                #if canImport(Glibc)
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
                #endif
                // Named from inside: Foundation gives the kernel only a name set on the running
                // thread, and `top -H`, `perf` and the load benchmark find the lane's threads by it.
                Thread.current.name = "griot-prepare-\(index)"
                self.serve()
            }
            thread.name = "griot-prepare-\(index)"
            thread.start()
        }
    }

    /// Runs `work` on one of the lane's threads, in the order asked; waits for its result.
    /// A task cancelled while its work is still queued gets `CancellationError` and the work
    /// never runs (a chat whose client left costs no embedding).
    public func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try Task.checkCancellation()
        let box = Mutex<Job?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                let job = Job { cancelled in
                    if cancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume(with: Swift.Result { try work() })
                    }
                }
                box.withLock { $0 = job }
                enqueue(job)
            }
        } onCancel: {
            box.withLock { $0?.cancelled.store(true, ordering: .relaxed) }
        }
    }

    /// Queues `work` behind the jobs already waiting and returns at once.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        enqueue(Job { _ in work() })
    }

    private func enqueue(_ job: Job) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func serve() -> Never {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.work(job.cancelled.load(ordering: .relaxed))
        }
    }
}
