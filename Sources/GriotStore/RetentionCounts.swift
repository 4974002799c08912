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
