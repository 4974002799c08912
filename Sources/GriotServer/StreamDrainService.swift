import Foundation
import GriotStore
import Logging
import ServiceLifecycle
import Synchronization

/// Whether the node is shutting down: new chats are refused with 503 and `/readyz` fails, so a
/// load balancer sends them elsewhere while the running replies finish.
public final class DrainState: Sendable {
    private let draining = Atomic<Bool>(false)

    public init() {}

    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    func begin() { draining.store(true, ordering: .relaxed) }
}

/// Graceful shutdown of the streams: on SIGTERM (or SIGINT) the node stops taking new chats,
/// gives running replies `grace` to finish, then stops the rest and stores them as
/// `interrupted` (their clients get `done` with what was written). Only then does the HTTP
/// server close. It must come after the application in the service group, so that it is the
/// first to hear of the shutdown.
struct StreamDrainService: Service {
    let turns: TurnRegistry
    let chats: any ChatStore
    let state: DrainState
    let grace: Duration
    let logger: Logger

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return   // cancelled: the group is going down without a graceful shutdown
        }
        state.begin()
        let running = await turns.runningCount
        logger.info("shutting down: \(running) replies streaming, waiting up to \(grace) for them")
        let deadline = ContinuousClock.now + grace
        while await turns.runningCount > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        let remaining = await turns.runningTurns()
        for turn in remaining { turn.stop() }
        for turn in remaining { await turn.finished() }
        do {
            let marked = try await chats.markInterrupted(replyIDs: remaining.map(\.replyMessageID))
            if marked > 0 { logger.info("stored \(marked) unfinished replies as interrupted") }
        } catch {
            logger.error("could not mark unfinished replies interrupted: \(error); the next start marks them")
        }
    }
}
