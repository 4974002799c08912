import Foundation
import GRDB

extension SQLiteChatStore {
    /// The most recent turns that match the filter, newest first; turns whose reply was deleted
    /// are left out. Flags and groundedness are read from the turns' snapshots.
    public func recentTurns(_ filter: TurnFilter) async throws -> [TurnRecord] {
        try await writer.read { db in
            var request = Self.turns(includingDeleted: false)
            if let assistant = filter.assistant { request = request.filter(Column("assistant") == assistant) }
            if let status = filter.status { request = request.filter(Column("status") == status.rawValue) }
            if let since = filter.since { request = request.filter(Column("startedAt") >= since) }
            if let until = filter.until { request = request.filter(Column("startedAt") < until) }
            if let flag = filter.flag {
                request = request.filter(sql: "EXISTS (SELECT 1 FROM json_each(turn.snapshot, '$.flags') WHERE json_extract(json_each.value, '$.kind') = ?)",
                                         arguments: [flag])
            }
            if filter.lowGroundedness {
                request = request.filter(sql: "json_extract(turn.snapshot, '$.groundedness') < ?", arguments: [TurnFilter.lowGroundednessScore])
            }
            return try request.order(Column("startedAt").desc).limit(max(1, min(filter.limit, 500))).fetchAll(db)
        }
    }
}
