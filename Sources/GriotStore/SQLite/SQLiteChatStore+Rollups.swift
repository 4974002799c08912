import Foundation
import GRDB

extension SQLiteChatStore {
    /// One file, one node.
    public var rollupIsShared: Bool { false }

    public func addRollup(_ rollup: TurnRollup) async throws {
        let counts = rollup.labelledCounts, bins = rollup.latencyBins
        try await writer.commit { db in
            for resolution in RollupResolution.allCases {
                let start = rollup.bucketStart(resolution)
                try db.execute(sql: """
                    INSERT INTO turnRollup (resolution, bucketStart, node, assistant, model, turns, tokensIn, tokensOut, errors, flags, crisis, rateLimited)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(resolution, bucketStart, node, assistant, model) DO UPDATE SET
                    turns = turnRollup.turns + excluded.turns, tokensIn = turnRollup.tokensIn + excluded.tokensIn,
                    tokensOut = turnRollup.tokensOut + excluded.tokensOut, errors = turnRollup.errors + excluded.errors,
                    flags = turnRollup.flags + excluded.flags, crisis = turnRollup.crisis + excluded.crisis,
                    rateLimited = turnRollup.rateLimited + excluded.rateLimited
                    """, arguments: [resolution.rawValue, start, rollup.node, rollup.assistant, rollup.model, rollup.turns, rollup.tokensIn,
                                     rollup.tokensOut, rollup.errors, rollup.flags.values.reduce(0, +), rollup.crisis, rollup.rateLimited])
                for count in counts {
                    try db.execute(sql: """
                        INSERT INTO turnRollupCount (resolution, bucketStart, node, kind, name, count) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT(resolution, bucketStart, node, kind, name) DO UPDATE SET count = turnRollupCount.count + excluded.count
                        """, arguments: [resolution.rawValue, start, rollup.node, count.kind, count.name, count.count])
                }
                for bin in bins {
                    try db.execute(sql: """
                        INSERT INTO turnRollupLatency (resolution, bucketStart, node, measure, bin, count) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT(resolution, bucketStart, node, measure, bin) DO UPDATE SET count = turnRollupLatency.count + excluded.count
                        """, arguments: [resolution.rawValue, start, rollup.node, bin.measure, bin.bin, bin.count])
                }
            }
        }
    }

    public func rollupReport(from first: Int64, through last: Int64, resolution: RollupResolution) async throws -> RollupReport {
        try await writer.read { db in
            let range = "resolution = ? AND bucketStart BETWEEN ? AND ?"
            let arguments: StatementArguments = [resolution.rawValue, first, last]
            var report = RollupReport(resolution: resolution)
            report.buckets = try Row.fetchAll(db, sql: """
                SELECT bucketStart, sum(turns), sum(tokensIn), sum(tokensOut), sum(errors), sum(flags), sum(crisis), sum(rateLimited)
                FROM turnRollup WHERE \(range) GROUP BY bucketStart ORDER BY bucketStart
                """, arguments: arguments).map { row in
                var bucket = RollupReport.Bucket(start: row[0])
                bucket.turns = row[1]
                bucket.tokensIn = row[2]
                bucket.tokensOut = row[3]
                bucket.errors = row[4]
                bucket.flags = row[5]
                bucket.crisis = row[6]
                bucket.rateLimited = row[7]
                return bucket
            }
            report.models = try Row.fetchAll(db, sql: """
                SELECT assistant, model, sum(turns), sum(tokensIn), sum(tokensOut) FROM turnRollup WHERE \(range)
                GROUP BY assistant, model HAVING sum(turns) > 0 ORDER BY sum(turns) DESC, assistant, model
                """, arguments: arguments).map { row in
                RollupReport.ModelUsage(assistant: row[0], model: row[1], turns: row[2], tokensIn: row[3], tokensOut: row[4])
            }
            report.nodes = try String.fetchAll(db, sql: "SELECT DISTINCT node FROM turnRollup WHERE \(range) ORDER BY node", arguments: arguments)
            for row in try Row.fetchAll(db, sql: "SELECT kind, name, sum(count) FROM turnRollupCount WHERE \(range) GROUP BY kind, name",
                                        arguments: arguments) {
                let kind: String = row[0], name: String = row[1], count: Int = row[2]
                if kind == "error" { report.errorCodes[name] = count } else { report.flags[name] = count }
            }
            report.addLatency(try Row.fetchAll(db, sql: """
                SELECT bucketStart, measure, bin, sum(count) FROM turnRollupLatency WHERE \(range) GROUP BY bucketStart, measure, bin
                """, arguments: arguments).map { row -> (start: Int64, measure: String, bin: Int, count: Int) in
                (start: row[0] as Int64, measure: row[1] as String, bin: row[2] as Int, count: row[3] as Int)
            })
            return report
        }
    }

    public func rollupActivity(since: Int64) async throws -> Int {
        try await writer.read { db in
            try Int.fetchOne(db, sql: """
                SELECT coalesce(sum(turns + rateLimited), 0) + count(*) FROM turnRollup WHERE resolution = ? AND bucketStart >= ?
                """, arguments: [RollupResolution.minute.rawValue, since]) ?? 0
        }
    }

    @discardableResult
    public func purgeRollups(before: Int64) async throws -> Int {
        try await writer.commit { db in
            var deleted = 0
            for table in ["turnRollup", "turnRollupCount", "turnRollupLatency"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE resolution IN (60, 900) AND bucketStart < ?", arguments: [before])
                deleted += db.changesCount
            }
            return deleted
        }
    }
}
