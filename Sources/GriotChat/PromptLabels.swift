import Foundation
import GriotStore
import Synchronization

/// The prompt labels moved through the database (`PromptReleaseStore`), read at most once a
/// second per node: a version promoted through any node is production on every node within a
/// second, and a turn does not pay a database read for it.
///
/// ```swift
/// let release = try await labels.release(of: "griot", label: "production", from: chats)
/// ```
public final class PromptLabels: Sendable {
    private struct Cache {
        var labels: [String: [String: PromptRelease]] = [:]
        var readAt: ContinuousClock.Instant?
    }

    /// How long a read of the labels is used before the next.
    let freshness: Duration
    private let cache = Mutex(Cache())

    public init(freshness: Duration = .seconds(1)) {
        self.freshness = freshness
    }

    /// The release the database names for the label, or nil when no promotion moved it there.
    func release(of assistant: String, label: String, from store: any PromptReleaseStore) async throws -> PromptRelease? {
        let now = ContinuousClock.now
        if let cached = cache.withLock({ cache in cache.readAt.map { now - $0 < freshness } == true ? cache.labels : nil }) {
            return cached[assistant]?[label]
        }
        let labels = try await store.promptLabels()
        cache.withLock { $0 = Cache(labels: labels, readAt: now) }
        return labels[assistant]?[label]
    }

    /// Forgets the last read (after this node moved a label itself).
    public func refresh() {
        cache.withLock { $0.readAt = nil }
    }
}
