import Foundation
import GriotStore
import Logging
import Synchronization

/// Writes the dashboard's rollup (`TurnRollupStore`) as turns finish and requests are refused,
/// in a task of its own: the user never waits on it, and a failed write is logged, never turned
/// into a failed turn. About once an hour it also deletes rollups older than 31 days (on one
/// node of a shared database at a time).
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
    private let lastPurge = Mutex<Date?>(nil)
    static let purgeInterval: TimeInterval = 3_600

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
        purgeIfDue(now: rollup.at)
    }

    /// One request refused by a rate limit, counted now.
    public func refused(at now: Date = Date()) {
        record(.refusal(at: now, node: node))
    }

    private func purgeIfDue(now: Date) {
        let due = lastPurge.withLock { last in
            guard last.map({ now.timeIntervalSince($0) >= Self.purgeInterval }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        let before = RollupResolution.minute.bucketStart(now) - TurnRollup.retentionSeconds
        Task { [chats, logger] in
            do {
                _ = try await chats.runExclusively("rollup-retention") {
                    let purged = try await chats.purgeRollups(before: before)
                    if purged > 0 { logger.info("purged \(purged) dashboard rollup rows older than 31 days") }
                }
            } catch {
                logger.warning("purging old dashboard rollups failed; the next hour tries again", metadata: ["error": "\(error)"])
            }
        }
    }
}
