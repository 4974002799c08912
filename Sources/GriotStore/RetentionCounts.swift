import Foundation

/// What a retention job or an erasure removed (or moved), table by table, for the job's log.
public struct RetentionCounts: Codable, Sendable, Hashable {
    public var threads = 0
    public var messages = 0
    public var archivedMessages = 0
    public var turns = 0
    public var profiles = 0
    public var rateEvents = 0
    public var auditEntries = 0
    public var verdicts = 0

    public init(threads: Int = 0, messages: Int = 0, archivedMessages: Int = 0, turns: Int = 0, profiles: Int = 0, rateEvents: Int = 0,
                auditEntries: Int = 0) {
        self.threads = threads
        self.messages = messages
        self.archivedMessages = archivedMessages
        self.turns = turns
        self.profiles = profiles
        self.rateEvents = rateEvents
        self.auditEntries = auditEntries
    }
}

extension RetentionCounts {
    /// Adds another job's counts (a thread removed inside an erasure, say).
    public mutating func add(_ other: RetentionCounts) {
        threads += other.threads
        messages += other.messages
        archivedMessages += other.archivedMessages
        turns += other.turns
        profiles += other.profiles
        rateEvents += other.rateEvents
        auditEntries += other.auditEntries
    }
}

/// What the retention jobs have still to do, as of a moment (`griot retention report`): rows
/// past their limit that a job has not removed or moved yet. A job that runs hourly leaves
/// these near zero; a number that grows says the job is not running.
public struct RetentionDue: Codable, Sendable, Hashable {
    /// Messages and threads soft-deleted more than 30 days ago, not purged yet.
    public var deletedMessages = 0
    public var deletedThreads = 0
    /// Messages older than 18 months still in `message` (not archived).
    public var messagesToArchive = 0
    /// Safety verdicts older than two years.
    public var verdicts = 0
    /// Retained texts (edited or deleted messages' earlier text) past their `purgeAfter`.
    public var retainedTexts = 0
    /// The oldest soft delete still waiting for the purge (nil when none).
    public var oldestDeletedAt: Date?

    public init() {}
}
