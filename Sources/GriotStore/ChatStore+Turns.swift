import Foundation
import GRDB

/// Which stored turns an operator wants to see (`recentTurns`). Every limit given must hold.
public struct TurnFilter: Sendable, Hashable {
    public var assistant: String?
    /// A safety flag the turn raised (`low_groundedness`, `pii_masked`, `crisis`, ...).
    public var flag: String?
    /// Only turns whose answer scored under `ChatStore.lowGroundedness`.
    public var lowGroundedness = false
    public var status: MessageStatus?
    public var since: Date?
    public var until: Date?
    public var limit = 50

    public init(assistant: String? = nil, flag: String? = nil, lowGroundedness: Bool = false, status: MessageStatus? = nil,
                since: Date? = nil, until: Date? = nil, limit: Int = 50) {
        self.assistant = assistant
        self.flag = flag
        self.lowGroundedness = lowGroundedness
        self.status = status
        self.since = since
        self.until = until
        self.limit = limit
    }
}

extension ChatStore {
    /// The groundedness under which an answer is shown "AI may be inaccurate".
    public static let lowGroundedness = 0.4

    /// The most recent turns that match the filter, newest first; turns whose reply was deleted
    /// are left out. Flags and groundedness are read from the turns' snapshots.
    public func recentTurns(_ filter: TurnFilter) throws -> [TurnRecord] {
        try writer.read { db in
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
                request = request.filter(sql: "json_extract(turn.snapshot, '$.groundedness') < ?", arguments: [Self.lowGroundedness])
            }
            return try request.order(Column("startedAt").desc).limit(max(1, min(filter.limit, 500))).fetchAll(db)
        }
    }
}
