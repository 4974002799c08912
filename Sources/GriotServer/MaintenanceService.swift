import Foundation
import GriotStore
import Logging
import ServiceLifecycle
import Synchronization

/// The scheduled jobs of a node, run once at start and then every `interval` until shutdown:
/// replies left `streaming` by a node that died are marked interrupted; and, every
/// `retentionInterval` (an hour), messages and threads deleted more than 30 days ago are purged
/// messages older than 18 months are moved to the archive table, and the safety stages'
/// verdicts (moderation results) older than two years and the dashboard's rollup rows older
/// than 31 days are deleted. Every job is idempotent,
/// and on a shared database each runs on one node at a time (`ChatStore.runExclusively`: an
/// advisory lock on PostgreSQL); a node that finds a job running skips it until next time.
/// On a node with regions (`RegionalChatStore`), the service runs unbound, so each job runs in
/// every region's database in turn, bound to that region, under one lock in the home database.
///
/// ```swift
/// let jobs = MaintenanceService(chats: engine.chats, interruptedAfter: 90, logger: logger)
/// // passed to the Application's services; ServiceLifecycle runs and stops it
/// ```
public final class MaintenanceService: Service, Sendable {
    let chats: any ChatStore
    /// Seconds a `streaming` reply must be untouched before it counts as interrupted (above the
    /// provider's read timeout, so that other nodes' slow replies are not taken for dead).
    let interruptedAfter: Double
    let interval: Duration
    let retentionInterval: TimeInterval
    let logger: Logger
    private let lastRetention = Mutex<Date?>(nil)

    public init(chats: any ChatStore, interruptedAfter: Double = 90, interval: Duration = .seconds(30), retentionInterval: TimeInterval = 3600,
                logger: Logger = Logger(label: "griot.jobs")) {
        self.chats = chats
        self.interruptedAfter = interruptedAfter
        self.interval = interval
        self.retentionInterval = retentionInterval
        self.logger = logger
    }

    public func run() async throws {
        // On SIGTERM the service group shuts down gracefully; the jobs stop with it (without this
        // the group would wait for the loop forever).
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.runOnce()
                try await Task.sleep(for: self.interval)
            }
        }
    }

    public func runOnce(now: Date = Date()) async {
        do {
            _ = try await chats.runExclusively("interrupted-sweep") { [chats, interruptedAfter, logger] in
                let interrupted = try await chats.markInterruptedReplies(staleAfter: interruptedAfter, now: now)
                if interrupted > 0 { logger.info("marked \(interrupted) replies interrupted (left streaming by a stopped service)") }
            }
        } catch {
            logger.error("marking interrupted replies failed: \(error)")
        }
        let due = lastRetention.withLock { last in
            guard last.map({ now.timeIntervalSince($0) >= retentionInterval }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        do {
            let ran = try await chats.runExclusively("retention") { [self] in try await retention(now: now) }
            if !ran { logger.info("retention jobs skipped: another node is running them") }
        } catch {
            logger.error("retention jobs failed: \(error); they run again in \(Int(retentionInterval)) s")
        }
    }

    /// Purges, archives and expires what is due, on one node at a time (`runExclusively`).
    private func retention(now: Date) async throws {
        let purged = try await chats.purgeDeleted(olderThan: DateComponents(day: 30), now: now)
        if purged.messages + purged.threads > 0 {
            logger.info("purged \(purged.threads) threads and \(purged.messages) messages deleted over 30 days ago")
        }
        let archived = try await chats.archiveMessages(olderThan: DateComponents(month: 18), now: now)
        if archived > 0 { logger.info("archived \(archived) messages older than 18 months") }
        let verdicts = try await chats.purgeVerdicts(olderThan: SafetyVerdictRecord.retention, now: now)
        if verdicts > 0 { logger.info("deleted \(verdicts) safety verdicts older than two years") }
        let warnings = try await chats.expireWarnings(now: now)
        if warnings > 0 { logger.info("dropped \(warnings) moderation warning counts whose 90-day window passed") }
        let rollups = try await chats.purgeRollups(before: RollupResolution.minute.bucketStart(now) - TurnRollup.retentionSeconds)
        if rollups > 0 { logger.info("purged \(rollups) dashboard rollup rows older than 31 days") }
    }
}
