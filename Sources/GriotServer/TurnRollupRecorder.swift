import Foundation
import GriotStore
import Logging

/// Writes the dashboard's rollup (`TurnRollupStore`) as turns finish and requests are refused,
/// in a task of its own: the user never waits on it, and a failed write is logged, never turned
/// into a failed turn. Rollups older than 31 days go with the node's hourly retention job
/// (`MaintenanceService`).
///
/// ```swift
/// let recorder = TurnRollupRecorder(chats: engine.chats, node: "node-a")
/// recorder.record(rollup)          // returns at once
/// recorder.refused()               // a rate-limit refusal
/// ```
public final class TurnRollupRecorder: Sendable {
    public let chats: any ChatStore
    /// The node's name in the rollup: the fleet's node id, or the host's name on one node.
    public let node: String
    let logger: Logger

    public init(chats: any ChatStore, node: String, logger: Logger = Logger(label: "griot.dashboard")) {
        self.chats = chats
        self.node = node
        self.logger = logger
    }

    public func record(_ rollup: TurnRollup) {
        Task { [chats, logger] in
            do {
                try await chats.addRollup(rollup)
            } catch {
                logger.warning("the dashboard's rollup was not written; its figures miss one turn or refusal", metadata: ["error": "\(error)"])
            }
        }
    }

    /// One request refused by a rate limit, counted now.
    public func refused(at now: Date = Date()) {
        record(.refusal(at: now, node: node))
    }
}
