import Foundation
import GriotStore
import Logging
import ServiceLifecycle

/// A fleet node's part in the shared stream journal, every `StreamFleet.heartbeat`: it says it
/// is alive; stops its turns whose stop was asked for on another node; and, one node at a time,
/// ends the running streams of nodes that stopped beating their hearts (`interrupted`, so no
/// reply stays `streaming` after a node is killed) and prunes streams finished longer ago than
/// the registry keeps them.
///
/// ```swift
/// StreamNodeService(fleet: fleet, turns: turns, jobs: chats, logger: logger)   // one of the Application's services
/// ```
struct StreamNodeService: Service {
    let fleet: StreamFleet
    let turns: TurnRegistry
    let jobs: any ChatStore
    let logger: Logger
    /// Seconds a finished stream stays resumable.
    var retention: Double = 300

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var beats = 0
            while !Task.isCancelled {
                await beat(sweep: beats % 5 == 0)
                beats += 1
                try await Task.sleep(for: fleet.heartbeat)
            }
        }
    }

    func beat(sweep: Bool, now: Date = Date()) async {
        do {
            try await fleet.journal.beatHeart(nodeID: fleet.nodeID, at: now)
            let stops = try await fleet.journal.stopRequestedStreams(nodeID: fleet.nodeID)
            if !stops.isEmpty { await turns.stop(turnIDs: stops) }
        } catch {
            logger.error("stream heartbeat failed: \(error); other nodes end this node's streams as interrupted after \(Int(fleet.deadAfter)) s without one")
        }
        guard sweep else { return }
        do {
            _ = try await jobs.runExclusively("stream-sweep") { [fleet, logger, retention] in
                let orphaned = try await fleet.journal.orphanedStreams(heartbeatBefore: now.addingTimeInterval(-fleet.deadAfter))
                var ended = 0
                for stream in orphaned where try await StreamFollower.interrupt(stream, journal: fleet.journal, now: now) != nil {
                    ended += 1
                }
                if ended > 0 { logger.info("ended \(ended) streams of stopped nodes as interrupted") }
                _ = try await fleet.journal.pruneStreams(finishedBefore: now.addingTimeInterval(-retention))
            }
        } catch {
            logger.error("stream sweep failed: \(error); it runs again in \(fleet.heartbeat * 5)")
        }
    }
}
