import Synchronization

/// The last things a request or a turn did ("screen:allow", "retrieve:8 passages",
/// "generate:first_token"), kept so that the span an error ends can say what led to it. A crumb
/// is written by our code from stage names, outcomes, counts and kinds: never a message, a
/// passage or a name.
///
/// ```swift
/// trail.note("retrieve:\(sources.count) passages")
/// span.attributes[TraceAttribute.lastActions] = .stringArray(trail.last)
/// ```
public final class TraceTrail: Sendable {
    /// How many crumbs are kept: enough to see the stages before a failure, few enough to read.
    public static let capacity = 12
    private let crumbs = Mutex<[String]>([])

    public init() {}

    public func note(_ crumb: String) {
        crumbs.withLock { crumbs in
            if crumbs.count == Self.capacity { crumbs.removeFirst() }
            crumbs.append(crumb)
        }
    }

    /// The kept crumbs, oldest first.
    public var last: [String] { crumbs.withLock { $0 } }
}
