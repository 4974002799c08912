import Foundation
import GriotArchive
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps this node's in-memory index a replica of the database's stories: at each committed
/// change (PostgreSQL's LISTEN/NOTIFY wakes it) and at least five times a second, it applies
/// the change log (`StoryArchive.catchUp`), so a story ingested, deleted or made
/// private through any node reaches this node's searches within a fraction of a second. It also
/// says how far behind the node is, for `/readyz`: a node that cannot keep up (or cannot read
/// the log) answers 503 there, and the balancer takes it out of rotation until it has caught up.
///
/// ```swift
/// let follower = IndexFollower(archive: engine.archive, logger: logger)
/// // passed to the Application's services; ServiceLifecycle runs and stops it
/// ```
public final class IndexFollower: Service, Sendable {
    /// Where the replica stands, as `/readyz` shows it.
    public struct Position: Sendable, Encodable {
        /// The last change of the log this node's index holds (nil before the index is loaded).
        public var applied: Int64?
        /// The newest change in the database when last looked at.
        public var head: Int64?
        /// When the node last read the log without an error.
        public var checkedAt: Date?
        public var error: String?
        /// Changes committed but not yet applied here.
        public var behind: Int64?

        init(applied: Int64? = nil, head: Int64? = nil, checkedAt: Date? = nil, error: String? = nil) {
            self.applied = applied
            self.head = head
            self.checkedAt = checkedAt
            self.error = error
            self.behind = applied.flatMap { applied in head.map { max(0, $0 - applied) } }
        }
    }

    let archive: StoryArchive
    let interval: Duration
    /// How long the node may stay behind (or fail to read the log) before it calls itself unready.
    let tolerance: TimeInterval
    let logger: Logger
    private let state = Mutex(Position())
    /// When the node was last fully caught up.
    private let lastCurrent = Mutex<Date>(Date())

    public init(archive: StoryArchive, interval: Duration = .milliseconds(200), tolerance: TimeInterval = 5,
                logger: Logger = Logger(label: "griot.index")) {
        self.archive = archive
        self.interval = interval
        self.tolerance = tolerance
        self.logger = logger
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.followOnce()
                // Woken by the database at a commit where it can tell (PostgreSQL's NOTIFY);
                // otherwise, and as the fallback, polled every `interval`.
                await self.archive.store.waitForChange(timeout: self.interval)
            }
        }
    }

    /// Applies what the log holds now and records where the node stands.
    public func followOnce(now: Date = Date()) async {
        do {
            let applied = try await archive.catchUp()
            let head = try await archive.store.lastChangeSequence()
            state.withLock { $0 = Position(applied: applied, head: head, checkedAt: now, error: nil) }
            if applied == nil || (applied ?? 0) >= head { lastCurrent.withLock { $0 = now } }
        } catch {
            logger.error("following the story change log failed: \(error)")
            state.withLock { $0.error = "\(error)" }
        }
    }

    public var position: Position { state.withLock { $0 } }

    /// Why the node should leave the balancer's rotation, or nil while its index keeps up.
    public func problem(now: Date = Date()) -> String? {
        let position = self.position
        let since = now.timeIntervalSince(lastCurrent.withLock { $0 })
        guard since > tolerance else { return nil }
        if let error = position.error {
            return "the index has not read the story change log for \(Int(since)) s (\(error)); searches here may miss recent changes"
        }
        guard let behind = position.behind, behind > 0 else { return nil }
        return "the index is \(behind) change(s) behind the database for \(Int(since)) s; searches here may miss recent changes"
    }
}
