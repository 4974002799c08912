/// What a route costs the node, so that one caller's expensive requests cannot crowd out
/// everyone else's cheap ones. Each row of `AccessPolicy.rules` names one; `RouteLimits` says
/// how many of each a caller may make.
///
/// ```swift
/// "GET /api/stories/search": .init(.signedIn, .search),
/// "GET /api/coach/threads/{id}/export": .init(.threadCourseCoach, .heavy),
/// ```
public enum CostClass: String, Sendable, Hashable, CaseIterable {
    /// Health, readiness, metrics, the API document: no token, so limited per client address.
    case probe
    /// A few rows read or written by key: session lists and reads, a thread's page, opening a
    /// thread, stopping a reply, a course's instructions.
    case read
    /// A ranked search of the index, or a scan of every story's places.
    case search
    /// Work that grows with the data or writes much of it: exports (PDF), replays, ingest,
    /// deletes and erasure, the audit log, kept texts, the operators' turn list, edits (which
    /// pass moderation).
    case heavy
    /// Sending a message: counted by the database-backed `RateLimiter` (shared by every node),
    /// not here.
    case chat

    /// Whether a user may have only `RouteLimits.inFlight` of these running at once.
    var isCapped: Bool { self == .search || self == .heavy }

    /// "searches", "heavy requests": what the refusal says the caller made too many of.
    var plural: String {
        switch self {
        case .probe: "health, readiness, metrics or API document requests"
        case .read: "reads"
        case .search: "searches"
        case .heavy: "heavy requests (exports, replays, deletes, edits, the audit log)"
        case .chat: "messages"
        }
    }
}
