import Foundation

/// The events of streaming replies, kept where every node can read them, so that a client whose
/// node died, or whose connection the balancer sent to another node, resumes with
/// `Last-Event-ID` on any node: it gets every stored event after the one it names, then the
/// rest while the owning node still streams, or, once that node has stopped beating its heart,
/// an end marked `interrupted`.
///
/// ```swift
/// try await journal.writeStreams(StreamJournalBatch(opened: [stream], events: [first], at: .now))
/// let missed = try await journal.streamEvents(turnID: stream.turnID, after: 12, limit: 500)
/// ```
///
/// The owning node writes a stream's events before it sends them (`StreamJournalBatch`, one
/// transaction for every stream's pending events), so an event a client holds is always
/// stored, and a resume never misses or repeats one.
public protocol StreamJournal: Sendable {
    /// Records new streams, appends events (one already stored under its number is left as it
    /// is) and marks streams finished, in one transaction.
    func writeStreams(_ batch: StreamJournalBatch) async throws
    /// A stream, finished or not; nil when unknown (never journaled, or pruned).
    func stream(turnID: String) async throws -> TurnStreamRecord?
    /// The stream's events numbered above `after`, in order, at most `limit`.
    func streamEvents(turnID: String, after: Int, limit: Int) async throws -> [TurnStreamEvent]
    /// Says a client follows the stream from another node than its owner: the owner does not
    /// stop a reply that such a client still reads.
    func markStreamListened(turnID: String, at: Date) async throws
    /// Asks the owning node to stop the thread's running stream (its user pressed stop on
    /// another node): true when a running stream of `userID` was found.
    func requestStreamStop(threadID: String, userID: String, at: Date) async throws -> Bool
    /// The running streams of `nodeID` whose stop was asked for.
    func stopRequestedStreams(nodeID: String) async throws -> [String]
    /// Records that `nodeID` is alive at `at`.
    func beatHeart(nodeID: String, at: Date) async throws
    /// When `nodeID` last said it was alive; nil when it never did.
    func lastHeartbeat(nodeID: String) async throws -> Date?
    /// Ends a running stream whose node stopped: appends `ending` after its last stored event,
    /// marks the stream finished and its reply (and turn) `interrupted` with `replyText` (what
    /// its clients were sent: the node's last checkpoint may have missed the newest), all in one
    /// transaction. Returns the appended events; nil when the stream had already finished (its
    /// node, or another node resuming it, ended it first).
    func interruptStream(turnID: String, ending: [StreamEventContent], replyText: String, at: Date) async throws -> [TurnStreamEvent]?
    /// Running streams whose node has not beaten its heart since `heartbeatBefore` (or never did,
    /// and the stream started before then).
    func orphanedStreams(heartbeatBefore: Date) async throws -> [TurnStreamRecord]
    /// Deletes streams finished before `before`, with their events; returns how many.
    func pruneStreams(finishedBefore: Date) async throws -> Int
}

/// One streaming reply as the journal knows it.
public struct TurnStreamRecord: Sendable, Hashable {
    public var turnID: String
    public var userID: String
    public var threadID: String
    public var replyMessageID: String
    /// The node running the turn (`beatHeart`).
    public var nodeID: String
    public var startedAt: Date
    public var finishedAt: Date?
    /// When a client on another node last read it.
    public var listenedAt: Date?

    public init(turnID: String, userID: String, threadID: String, replyMessageID: String, nodeID: String, startedAt: Date,
                finishedAt: Date? = nil, listenedAt: Date? = nil) {
        self.turnID = turnID
        self.userID = userID
        self.threadID = threadID
        self.replyMessageID = replyMessageID
        self.nodeID = nodeID
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.listenedAt = listenedAt
    }
}

/// An event's SSE name and JSON data, as sent.
public struct StreamEventContent: Sendable, Hashable {
    public var name: String
    public var data: String

    public init(name: String, data: String) {
        self.name = name
        self.data = data
    }
}

/// One stored event of a stream: the client's `Last-Event-ID` is `<turn id>:<number>`.
public struct TurnStreamEvent: Sendable, Hashable {
    public var turnID: String
    /// From 1, without gaps.
    public var number: Int
    public var content: StreamEventContent

    public init(turnID: String, number: Int, content: StreamEventContent) {
        self.turnID = turnID
        self.number = number
        self.content = content
    }
}

/// What the streams of one node wrote since the last batch.
public struct StreamJournalBatch: Sendable {
    public var opened: [TurnStreamRecord]
    public var events: [TurnStreamEvent]
    /// Turn ids whose stream ended (after its events in this batch).
    public var finished: [String]
    public var at: Date

    public init(opened: [TurnStreamRecord] = [], events: [TurnStreamEvent] = [], finished: [String] = [], at: Date = Date()) {
        self.opened = opened
        self.events = events
        self.finished = finished
        self.at = at
    }

    public var isEmpty: Bool { opened.isEmpty && events.isEmpty && finished.isEmpty }
}

/// What a reply whose node stopped mid-stream says, stored and sent.
public enum StreamInterruption {
    /// The reply's stored error.
    public static let storedError = "The node writing this reply stopped; what was written is kept. Ask again to get a whole answer."
}
