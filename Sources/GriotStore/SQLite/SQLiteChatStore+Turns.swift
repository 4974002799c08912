import Foundation
import GRDB

extension SQLiteChatStore {
    /// The most recent turns that match the filter, newest first; turns whose reply was deleted
    /// are left out. Flags and groundedness are read from the turns' snapshots, which are
    /// sealed: those two filters are applied to the opened snapshots, a page at a time.
    public func recentTurns(_ filter: TurnFilter) async throws -> [TurnRecord] {
        let limit = max(1, min(filter.limit, 500))
        return try await writer.read { db in
            var request = Self.turns(includingDeleted: false)
            if let assistant = filter.assistant { request = request.filter(Column("assistant") == assistant) }
            if let status = filter.status { request = request.filter(Column("status") == status.rawValue) }
            if let since = filter.since { request = request.filter(Column("startedAt") >= since) }
            if let until = filter.until { request = request.filter(Column("startedAt") < until) }
            request = request.order(Column("startedAt").desc, Column("id").desc)
            guard filter.flag != nil || filter.lowGroundedness else {
                return try request.limit(limit).fetchAll(db).map { try $0.opened(cipher, db) }
            }
            var found: [TurnRecord] = []
            var offset = 0
            let page = 500
            while found.count < limit {
                let turns = try request.limit(page, offset: offset).fetchAll(db)
                for turn in turns {
                    let opened = try turn.opened(cipher, db)
                    if Self.snapshot(opened.snapshot, matches: filter) { found.append(opened) }
                    if found.count == limit { break }
                }
                if turns.count < page { break }
                offset += page
            }
            return found
        }
    }

    /// Whether a snapshot has the filter's flag (an element of `flags` of that `kind`) and, when
    /// asked, a groundedness under `TurnFilter.lowGroundednessScore`.
    static func snapshot(_ snapshot: String, matches filter: TurnFilter) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(snapshot.utf8)) as? [String: Any] else { return false }
        if let flag = filter.flag {
            let flags = object["flags"] as? [Any] ?? []
            guard flags.contains(where: { ($0 as? [String: Any])?["kind"] as? String == flag }) else { return false }
        }
        if filter.lowGroundedness {
            guard let score = (object["groundedness"] as? NSNumber)?.doubleValue, score < TurnFilter.lowGroundednessScore else { return false }
        }
        return true
    }
}
