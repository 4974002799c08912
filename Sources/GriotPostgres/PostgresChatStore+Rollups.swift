import Foundation
import GriotStore
import PostgresNIO

extension PostgresChatStore {
    /// Every node of the fleet writes here.
    public var rollupIsShared: Bool { true }

    /// One transaction; every row's key holds the node, so nodes never wait on each other's rows,
    /// and one node's writers take the same rows in the same order (no deadlock).

    public func addRollup(_ rollup: TurnRollup) async throws {
        let counts = rollup.labelledCounts, bins = rollup.latencyBins
        let flags = rollup.flags.values.reduce(0, +)
        try await transaction { connection in
            for resolution in RollupResolution.allCases {
                let seconds = Int32(resolution.rawValue), start = rollup.bucketStart(resolution)
                try await Self.rows("""
                    INSERT INTO turnRollup (resolution, bucketStart, node, assistant, model, turns, tokensIn, tokensOut, errors, flags, crisis, rateLimited)
                    VALUES (\(seconds), \(start), \(rollup.node), \(rollup.assistant), \(rollup.model), \(rollup.turns), \(rollup.tokensIn),
                            \(rollup.tokensOut), \(rollup.errors), \(flags), \(rollup.crisis), \(rollup.rateLimited))
                    ON CONFLICT (resolution, bucketStart, node, assistant, model) DO UPDATE SET
                    turns = turnRollup.turns + excluded.turns, tokensIn = turnRollup.tokensIn + excluded.tokensIn,
                    tokensOut = turnRollup.tokensOut + excluded.tokensOut, errors = turnRollup.errors + excluded.errors,
                    flags = turnRollup.flags + excluded.flags, crisis = turnRollup.crisis + excluded.crisis,
                    rateLimited = turnRollup.rateLimited + excluded.rateLimited
                    """, on: connection)
                for count in counts {
                    try await Self.rows("""
                        INSERT INTO turnRollupCount (resolution, bucketStart, node, kind, name, count)
                        VALUES (\(seconds), \(start), \(rollup.node), \(count.kind), \(count.name), \(count.count))
                        ON CONFLICT (resolution, bucketStart, node, kind, name) DO UPDATE SET count = turnRollupCount.count + excluded.count
                        """, on: connection)
                }
                for bin in bins {
                    try await Self.rows("""
                        INSERT INTO turnRollupLatency (resolution, bucketStart, node, measure, bin, count)
                        VALUES (\(seconds), \(start), \(rollup.node), \(bin.measure), \(Int32(bin.bin)), \(bin.count))
                        ON CONFLICT (resolution, bucketStart, node, measure, bin) DO UPDATE SET count = turnRollupLatency.count + excluded.count
                        """, on: connection)
                }
            }
        }
    }

    public func rollupReport(from first: Int64, through last: Int64, resolution: RollupResolution) async throws -> RollupReport {
        let seconds = Int32(resolution.rawValue)
        var report = RollupReport(resolution: resolution)
        report.buckets = try await rows("""
            SELECT bucketStart, sum(turns)::bigint, sum(tokensIn)::bigint, sum(tokensOut)::bigint, sum(errors)::bigint, sum(flags)::bigint,
                   sum(crisis)::bigint, sum(rateLimited)::bigint
            FROM turnRollup WHERE resolution = \(seconds) AND bucketStart BETWEEN \(first) AND \(last)
            GROUP BY bucketStart ORDER BY bucketStart
            """).map { row in
            let (start, turns, tokensIn, tokensOut, errors, flags, crisis, rateLimited) = try row.decode((Int64, Int, Int, Int, Int, Int, Int, Int).self)
            var bucket = RollupReport.Bucket(start: start)
            (bucket.turns, bucket.tokensIn, bucket.tokensOut, bucket.errors) = (turns, tokensIn, tokensOut, errors)
            (bucket.flags, bucket.crisis, bucket.rateLimited) = (flags, crisis, rateLimited)
            return bucket
        }
        report.models = try await rows("""
            SELECT assistant, model, sum(turns)::bigint, sum(tokensIn)::bigint, sum(tokensOut)::bigint
            FROM turnRollup WHERE resolution = \(seconds) AND bucketStart BETWEEN \(first) AND \(last)
            GROUP BY assistant, model HAVING sum(turns) > 0 ORDER BY sum(turns) DESC, assistant, model
            """).map { row in
            let (assistant, model, turns, tokensIn, tokensOut) = try row.decode((String, String, Int, Int, Int).self)
            return RollupReport.ModelUsage(assistant: assistant, model: model, turns: turns, tokensIn: tokensIn, tokensOut: tokensOut)
        }
        report.nodes = try await rows("""
            SELECT DISTINCT node FROM turnRollup WHERE resolution = \(seconds) AND bucketStart BETWEEN \(first) AND \(last) ORDER BY node
            """).map { try $0.decode(String.self) }
        for row in try await rows("""
            SELECT kind, name, sum(count)::bigint FROM turnRollupCount
            WHERE resolution = \(seconds) AND bucketStart BETWEEN \(first) AND \(last) GROUP BY kind, name
            """) {
            let (kind, name, count) = try row.decode((String, String, Int).self)
            if kind == "error" { report.errorCodes[name] = count } else { report.flags[name] = count }
        }
        report.addLatency(try await rows("""
            SELECT bucketStart, measure, bin, sum(count)::bigint FROM turnRollupLatency
            WHERE resolution = \(seconds) AND bucketStart BETWEEN \(first) AND \(last) GROUP BY bucketStart, measure, bin
            """).map { row in
            let (start, measure, bin, count) = try row.decode((Int64, String, Int32, Int).self)
            return (start: start, measure: measure, bin: Int(bin), count: count)
        })
        return report
    }

    public func rollupActivity(since: Int64) async throws -> Int {
        let rows = try await rows("""
            SELECT (coalesce(sum(turns + rateLimited), 0) + count(*))::bigint FROM turnRollup
            WHERE resolution = \(Int32(RollupResolution.minute.rawValue)) AND bucketStart >= \(since)
            """)
        return try Self.scalar(Int.self, rows) ?? 0
    }

    @discardableResult
    public func purgeRollups(before: Int64) async throws -> Int {
        try await transaction { connection in
            var deleted = 0
            for table in ["turnRollup", "turnRollupCount", "turnRollupLatency"] {
                let rows = try await Self.rows("""
                    WITH gone AS (DELETE FROM \(unescaped: table) WHERE bucketStart < \(before) RETURNING 1) SELECT count(*)::bigint FROM gone
                    """, on: connection)
                deleted += try Self.scalar(Int.self, rows) ?? 0
            }
            return deleted
        }
    }
}
