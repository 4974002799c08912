import Foundation

/// The dashboard's rollup (`turnRollup`): counts per minute (and per quarter hour), node,
/// assistant and model, added to as each turn finishes, so the dashboard never scans turns.
/// Writes add (`x = x + excluded.x`), so several nodes on one database add into the same rows.
///
/// ```swift
/// try await chats.addRollup(rollup)                      // as a turn finishes
/// let report = try await chats.rollupReport(from: start, through: now, resolution: .minute)
/// let p95 = report.total.latency.percentile(0.95)
/// ```
public protocol TurnRollupStore: Sendable {
    /// True when several nodes write into this database (PostgreSQL): the rollup is the fleet's.
    var rollupIsShared: Bool { get }
    /// Adds one turn's (or refusal's) counts to its minute's and quarter hour's rows.
    func addRollup(_ rollup: TurnRollup) async throws
    /// The rows whose bucket starts from `first` through `last` (seconds since 1970), summed.
    func rollupReport(from first: Int64, through last: Int64, resolution: RollupResolution) async throws -> RollupReport
    /// A number that changes whenever a rollup is written into a minute from `since` on: cheap to
    /// ask every second, for the dashboard's stream.
    func rollupActivity(since: Int64) async throws -> Int
    /// Deletes the rows of buckets that started before `before`; returns how many.
    @discardableResult
    func purgeRollups(before: Int64) async throws -> Int
}

extension TurnRollup {
    /// How long rollups are kept: the dashboard reads a day at most; a month leaves room to look back.
    public static let retentionSeconds: Int64 = 31 * 24 * 3_600
}
