import Foundation
import GriotStore
import Logging
import ServiceLifecycle

/// The scheduled jobs of a node, run once at start and then every `interval` seconds until
/// shutdown: replies left `streaming` by a node that died are marked interrupted.
///
/// ```swift
/// let jobs = MaintenanceService(chats: engine.chats, interruptedAfter: 90, logger: logger)
/// // passed to the Application's services; ServiceLifecycle runs and stops it
/// ```
public struct MaintenanceService: Service {
    let chats: ChatStore
    /// Seconds a `streaming` reply must be untouched before it counts as interrupted (above the
    /// provider's read timeout, so that other nodes' slow replies are not taken for dead).
    let interruptedAfter: Double
    let interval: Duration
    let logger: Logger

    public init(chats: ChatStore, interruptedAfter: Double = 90, interval: Duration = .seconds(30), logger: Logger = Logger(label: "griot.jobs")) {
        self.chats = chats
        self.interruptedAfter = interruptedAfter
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        // On SIGTERM the service group shuts down gracefully; the jobs stop with it (without this
        // the group would wait for the loop forever).
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                runOnce()
                try await Task.sleep(for: interval)
            }
        }
    }

    public func runOnce(now: Date = Date()) {
        do {
            let interrupted = try chats.markInterruptedReplies(staleAfter: interruptedAfter, now: now)
            if interrupted > 0 { logger.info("marked \(interrupted) replies interrupted (left streaming by a stopped service)") }
        } catch {
            logger.error("maintenance failed: \(error)")
        }
    }
}
