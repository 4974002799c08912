import Foundation
import GriotStore
import Logging
import PostgresNIO

/// The story change log on PostgreSQL: every write that changes what a search could return
/// appends to `storyChange` in its own transaction, under the story-write advisory lock, so
/// sequences commit in order and a node reading `sequence > n` never skips one committed late.
extension PostgresStoryStore {
    /// The channel a write notifies after it commits, so that followers can wake at once.
    public static let changeChannel = "griot_story_changes"

    public func changes(after sequence: Int64, limit: Int) async throws -> [StoryChange] {
        var changes: [StoryChange] = []
        let rows = try await database.client.query(
            "SELECT sequence, storyID, kind FROM storyChange WHERE sequence > \(sequence) ORDER BY sequence LIMIT \(limit)",
            logger: database.logger)
        for try await (sequence, storyID, kind) in rows.decode((Int64, String, String).self) {
            changes.append(StoryChange(sequence: sequence, storyID: storyID, kind: StoryChange.Kind(rawValue: kind) ?? .all))
        }
        return changes
    }

    public func lastChangeSequence() async throws -> Int64 {
        let rows = try await database.client.query("SELECT COALESCE(MAX(sequence), 0)::bigint FROM storyChange", logger: database.logger)
        for try await sequence in rows.decode(Int64.self) { return sequence }
        return 0
    }

    @discardableResult
    public func pruneChanges(olderThan age: TimeInterval, now: Date = Date()) async throws -> Int {
        let cutoff = now.addingTimeInterval(-age)
        let removed = try await database.client.query("""
            DELETE FROM storyChange WHERE at < \(cutoff) AND sequence < (SELECT MAX(sequence) FROM storyChange) RETURNING sequence
            """, logger: database.logger).collect()
        return removed.count
    }

    /// Returns when a story change commits on any node (its NOTIFY), or after `timeout`.
    public func waitForChange(timeout: Duration) async {
        await changeSignal.wait(timeout: timeout)
    }

    /// Serialises the transactions that write stories or their vectors (and so append to the log).
    static func lockStoryWrites(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(saveLockClass), hashtext('story saves in ' || current_schema()))", logger: logger)
    }

    /// Appends one change per story to the log, in the caller's transaction (which holds the
    /// story-write lock), and wakes the followers when it commits.
    static func recordChanges(of storyIDs: [String], kind: StoryChange.Kind = .story, on connection: PostgresConnection,
                              logger: Logger) async throws {
        guard !storyIDs.isEmpty else { return }
        let at = Date().millisecondRounded
        try await connection.query("""
            INSERT INTO storyChange (storyID, kind, at) SELECT id, \(kind.rawValue), \(at) FROM unnest(\(storyIDs)::text[]) WITH ORDINALITY AS t(id, n) ORDER BY n
            """, logger: logger)
        try await connection.query("SELECT pg_notify(\(changeChannel), current_schema())", logger: logger)
    }
}
