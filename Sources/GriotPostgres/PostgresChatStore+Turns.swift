import Foundation
import GriotStore
import PostgresNIO

extension PostgresChatStore {
    /// The most recent turns that match the filter, newest first; turns whose reply was deleted
    /// are left out. Flags and groundedness are read from the turns' snapshots, which are
    /// sealed, so they are matched here after opening, not in SQL: a flag is an object of
    /// `flags` whose `kind` is the string asked for, and a low groundedness a number under
    /// `TurnFilter.lowGroundednessScore` (a missing or non-numeric one is not low, as in SQLite).
    /// With such a filter the turns are read newest first a page at a time until `limit` match.
    public func recentTurns(_ filter: TurnFilter) async throws -> [TurnRecord] {
        let limit = max(1, min(filter.limit, 500))
        let bySnapshot = filter.flag != nil || filter.lowGroundedness
        let page = bySnapshot ? 500 : limit
        var matched: [TurnRecord] = []
        var offset = 0
        while matched.count < limit {
            let turns = try await opened(rows("""
                SELECT * FROM turn
                WHERE \(unescaped: Self.replyNotDeleted)
                  AND (\(filter.assistant)::text IS NULL OR assistant = \(filter.assistant))
                  AND (\(filter.status?.rawValue)::text IS NULL OR status = \(filter.status?.rawValue))
                  AND (\(filter.since.map(\.millisecondRounded))::timestamptz IS NULL OR startedat >= \(filter.since.map(\.millisecondRounded)))
                  AND (\(filter.until.map(\.millisecondRounded))::timestamptz IS NULL OR startedat < \(filter.until.map(\.millisecondRounded)))
                ORDER BY startedat DESC, id LIMIT \(page) OFFSET \(offset)
                """).map { try TurnRecord($0) }, opened)
            matched += bySnapshot ? turns.filter { Self.snapshot($0.snapshot, matches: filter) } : turns
            if turns.count < page { break }
            offset += page
        }
        return Array(matched.prefix(limit))
    }

    /// Whether an opened snapshot has the filter's flag and (when asked) a low groundedness.
    static func snapshot(_ text: String, matches filter: TurnFilter) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return false }
        if let flag = filter.flag {
            let flags = object["flags"] as? [Any] ?? []
            guard flags.contains(where: { ($0 as? [String: Any])?["kind"] as? String == flag }) else { return false }
        }
        if filter.lowGroundedness {
            // JSON's true and false are not scores, though they may read as numbers.
            guard let value = object["groundedness"], type(of: value) != Bool.self, let score = value as? Double,
                  score < TurnFilter.lowGroundednessScore else { return false }
        }
        return true
    }
}
