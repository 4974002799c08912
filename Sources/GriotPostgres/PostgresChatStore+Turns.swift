import Foundation
import GriotStore
import PostgresNIO

extension PostgresChatStore {
    /// The most recent turns that match the filter, newest first; turns whose reply was deleted
    /// are left out. Flags and groundedness are read from the turns' snapshots (JSON text, read
    /// as `jsonb`): a flag is an object of `flags` whose `kind` is the string asked for, and a
    /// low groundedness a number under `TurnFilter.lowGroundednessScore` (a missing or
    /// non-numeric one is not low, as in SQLite).
    public func recentTurns(_ filter: TurnFilter) async throws -> [TurnRecord] {
        try await rows("""
            SELECT * FROM turn
            WHERE \(unescaped: Self.replyNotDeleted)
              AND (\(filter.assistant)::text IS NULL OR assistant = \(filter.assistant))
              AND (\(filter.status?.rawValue)::text IS NULL OR status = \(filter.status?.rawValue))
              AND (\(filter.since.map(\.millisecondRounded))::timestamptz IS NULL OR startedat >= \(filter.since.map(\.millisecondRounded)))
              AND (\(filter.until.map(\.millisecondRounded))::timestamptz IS NULL OR startedat < \(filter.until.map(\.millisecondRounded)))
              AND (\(filter.flag)::text IS NULL OR EXISTS (
                    SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(snapshot::jsonb -> 'flags') = 'array'
                                                            THEN snapshot::jsonb -> 'flags' ELSE '[]'::jsonb END) AS flag
                    WHERE flag.value -> 'kind' = to_jsonb(\(filter.flag)::text)))
              AND (NOT \(filter.lowGroundedness) OR CASE WHEN jsonb_typeof(snapshot::jsonb -> 'groundedness') = 'number'
                                                     THEN (snapshot::jsonb -> 'groundedness')::numeric < \(TurnFilter.lowGroundednessScore)::numeric
                                                     ELSE false END)
            ORDER BY startedat DESC LIMIT \(max(1, min(filter.limit, 500)))
            """).map { try TurnRecord($0) }
    }
}
