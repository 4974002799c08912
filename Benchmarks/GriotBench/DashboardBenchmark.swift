import ArgumentParser
import Foundation
import GRDB
import GriotStore

/// Issue 37: "the dashboard's queries stay under 50 ms with 100,000 stored turns". A SQLite file
/// (WAL, as `griot serve` opens it) holds 100,000 finished turns spread over 24 hours, across
/// three nodes, four assistants and two models: their turn rows (with a snapshot of about 2 KB,
/// as the turn pipeline stores one), and the rollup they would have written as they finished.
/// For 15m, 1h and 24h it times the dashboard's figures read from the rollup (what
/// `GET /api/ops/dashboard` computes: the report, every bucket with its percentiles, the totals)
/// against the peer, the same figures computed by scanning the turns table (with an index on
/// `startedAt` added for it, and exact percentiles), and checks that both agree.
struct DashboardBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "The dashboard's 15m/1h/24h figures from the rollup against scanning the turns table, with 100,000 stored turns.")

    @Option(help: "Finished turns to store, spread over the 24 hours before now.")
    var turns = 100_000

    @Option(help: "Timed runs of each query; the median and the slowest are reported.")
    var repeats = 21

    @Option(help: "Single-turn rollup writes to time (the cost each finished turn adds, off its path).")
    var writes = 500

    struct Turn {
        var finished: Date
        var node: String
        var assistant: String
        var model: String
        var tokensIn: Int
        var tokensOut: Int
        var latencyMilliseconds: Double
        var firstTokenMilliseconds: Double
        var error: String?
        var flags: [String]
    }

    /// The figures both sides compute, to compare.
    struct Figures {
        var turns = 0, tokensIn = 0, tokensOut = 0, errors = 0, flags = 0
        var latencyP95: Double?
        var firstTokenP50: Double?
        var buckets = 0
    }

    struct Span {
        var name: String
        var resolution: RollupResolution
        var buckets: Int
    }

    static let ranges = [Span(name: "15m", resolution: .minute, buckets: 15), Span(name: "1h", resolution: .minute, buckets: 60),
                         Span(name: "24h", resolution: .quarterHour, buckets: 96)]

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("griot-dashboard-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStoryStore(path: directory.appendingPathComponent("griot.sqlite").path)
        let chats = try SQLiteChatStore(writer: store.writer)
        let now = Date()
        let generated = Self.generate(turns, now: now)
        print("\(turns) turns over 24 h: 3 nodes, 4 assistants, 2 models; SQLite WAL file in \(directory.path)")

        var clock = ContinuousClock.now
        try await Self.storeTurns(generated, in: chats)
        print("stored the turn rows in \(ContinuousClock.now - clock)")
        clock = ContinuousClock.now
        let rows = try await Self.storeRollups(generated, in: chats)
        print("stored the rollup (\(rows) writes of minute × node × assistant × model, each also adding to its quarter hour) in \(ContinuousClock.now - clock)")
        let rollupRows = try await chats.writer.read { db in
            try ["turnRollup", "turnRollupCount", "turnRollupLatency"].map { "\($0) \(try Int.fetchOne(db, sql: "SELECT count(*) FROM \($0)") ?? 0)" }
        }
        print("rollup rows: \(rollupRows.joined(separator: ", "))")

        var single = TurnRollup(at: now, node: "node-w", assistant: "griot", model: "griot-extractive-1")
        single.turns = 1
        single.tokensIn = 900
        single.latency.record(milliseconds: 800)
        single.firstToken.record(milliseconds: 90)
        var writeTimes: [Duration] = []
        for _ in 0..<writes {
            let start = ContinuousClock.now
            try await chats.addRollup(single)
            writeTimes.append(ContinuousClock.now - start)
        }
        print("one finished turn's rollup write (\(writes) in a row, off the turn's path): median \(Self.ms(Self.median(writeTimes))), p95 \(Self.ms(Self.quantile(writeTimes, 0.95)))")
        // Take the probe writes out again, so both sides see the same turns.
        try await chats.writer.write { db in
            for table in ["turnRollup", "turnRollupCount", "turnRollupLatency"] { try db.execute(sql: "DELETE FROM \(table) WHERE node = 'node-w'") }
        }

        print("")
        print("| range | rollup median | rollup slowest | peer (scan turns) median | peer slowest | peer ÷ rollup | turns in range |")
        print("|---|---|---|---|---|---|---|")
        var worst: Duration = .zero
        for range in Self.ranges {
            let last = range.resolution.bucketStart(now)
            let first = last - Int64(range.buckets - 1) * range.resolution.seconds
            var rollup: Figures = .init(), peer: Figures = .init()
            var rollupTimes: [Duration] = [], peerTimes: [Duration] = []
            for round in 0..<(repeats + 1) {
                var start = ContinuousClock.now
                rollup = try await Self.fromRollup(chats, first: first, last: last, resolution: range.resolution)
                let rollupTime = ContinuousClock.now - start
                start = ContinuousClock.now
                peer = try await Self.fromTurns(chats, first: first, last: last, resolution: range.resolution)
                let peerTime = ContinuousClock.now - start
                if round > 0 {   // the first round warms the page cache
                    rollupTimes.append(rollupTime)
                    peerTimes.append(peerTime)
                }
            }
            guard rollup.turns == peer.turns, rollup.tokensIn == peer.tokensIn, rollup.tokensOut == peer.tokensOut, rollup.errors == peer.errors,
                  rollup.flags == peer.flags, rollup.buckets == peer.buckets,
                  Self.close(rollup.latencyP95, peer.latencyP95), Self.close(rollup.firstTokenP50, peer.firstTokenP50) else {
                throw ValidationError("\(range.name): the rollup's figures \(rollup) differ from the scan's \(peer)")
            }
            worst = max(worst, rollupTimes.max()!)
            let ratio = Self.seconds(Self.median(peerTimes)) / Self.seconds(Self.median(rollupTimes))
            print("| \(range.name) | \(Self.ms(Self.median(rollupTimes))) | \(Self.ms(rollupTimes.max()!)) | \(Self.ms(Self.median(peerTimes))) | \(Self.ms(peerTimes.max()!)) | \(String(format: "%.1f", ratio))× | \(rollup.turns) |")
        }
        print("")
        print("figures agree (turns, tokens, errors, flags exactly; p95 turn latency and p50 first token within the bins' 19 %)")
        print(worst < .milliseconds(50) ? "PASS: every dashboard query under 50 ms (slowest \(Self.ms(worst)))" : "FAIL: slowest dashboard query \(Self.ms(worst)), over 50 ms")
        if worst >= .milliseconds(50) { throw ExitCode(1) }
    }

    // MARK: The two sides

    /// What the route computes from the rollup: the report, each bucket's p50 first token and p95
    /// latency, and the totals' percentiles.
    static func fromRollup(_ chats: SQLiteChatStore, first: Int64, last: Int64, resolution: RollupResolution) async throws -> Figures {
        let report = try await chats.rollupReport(from: first, through: last, resolution: resolution)
        let series = report.series(from: first, through: last).map { ($0.firstToken.percentile(0.5), $0.latency.percentile(0.95)) }
        let total = report.total
        return Figures(turns: total.turns, tokensIn: total.tokensIn, tokensOut: total.tokensOut, errors: total.errors, flags: total.flags,
                       latencyP95: total.latency.percentile(0.95), firstTokenP50: total.firstToken.percentile(0.5), buckets: series.count)
    }

    /// The peer: the turns finished in the range, read from the turns table with their snapshot's
    /// counts, bucketed, with exact percentiles per bucket and overall.
    static func fromTurns(_ chats: SQLiteChatStore, first: Int64, last: Int64, resolution: RollupResolution) async throws -> Figures {
        let from = Date(timeIntervalSince1970: TimeInterval(first))
        let until = Date(timeIntervalSince1970: TimeInterval(last + resolution.seconds))
        return try await chats.writer.read { db in
            var figures = Figures()
            var latencies: [Int64: [Double]] = [:], firstTokens: [Int64: [Double]] = [:]
            var byModel: [String: (Int, Int, Int)] = [:]
            var allLatencies: [Double] = [], allFirstTokens: [Double] = []
            let rows = try Row.fetchCursor(db, sql: """
                SELECT startedAt, finishedAt, assistant, model, json_extract(snapshot, '$.ledger.promptTokens'),
                       json_extract(snapshot, '$.usage.completionTokens'), json_extract(snapshot, '$.failure.code'),
                       json_extract(snapshot, '$.firstTokenSeconds'), json_array_length(snapshot, '$.flags')
                FROM turn WHERE finishedAt >= ? AND finishedAt < ?
                """, arguments: [from, until])
            while let row = try rows.next() {
                let started: Date = row[0], finished: Date = row[1]
                let assistant: String = row[2], model: String = row[3]
                let tokensIn: Int = row[4], tokensOut: Int = row[5]
                let error: String? = row[6]
                let firstToken: Double? = row[7]
                let flags: Int = row[8]
                let bucket = resolution.bucketStart(finished)
                let latency = finished.timeIntervalSince(started) * 1_000
                figures.turns += 1
                figures.tokensIn += tokensIn
                figures.tokensOut += tokensOut
                figures.errors += error == nil ? 0 : 1
                figures.flags += flags
                byModel["\(assistant)/\(model)", default: (0, 0, 0)].0 += 1
                latencies[bucket, default: []].append(latency)
                allLatencies.append(latency)
                if let firstToken {
                    firstTokens[bucket, default: []].append(firstToken * 1_000)
                    allFirstTokens.append(firstToken * 1_000)
                }
            }
            var buckets = 0
            for start in stride(from: first, through: last, by: Int(resolution.seconds)) {
                _ = exact(latencies[start] ?? [], 0.95)
                _ = exact(firstTokens[start] ?? [], 0.5)
                buckets += 1
            }
            figures.buckets = buckets
            figures.latencyP95 = exact(allLatencies, 0.95)
            figures.firstTokenP50 = exact(allFirstTokens, 0.5)
            return figures
        }
    }

    static func exact(_ values: [Double], _ quantile: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * quantile).rounded(.up)) - 1))]
    }

    static func close(_ a: Double?, _ b: Double?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return abs(a - b) / b < 0.19
    }

    // MARK: Seeding

    static func generate(_ count: Int, now: Date) -> [Turn] {
        var random = SplitMix(seed: 37)
        let nodes = ["node-a", "node-b", "node-c"], assistants = ["griot", "coach", "storyteller", "recall"]
        let models = ["griot-extractive-1", "gpt-4o-mini"]
        let errors = ["provider_error", "ai_unavailable", "message_too_long"], flags = ["low_groundedness", "pii_masked", "crisis", "copyright_review"]
        return (0..<count).map { _ in
            // Log-normal-ish latencies: turns of 0.3 to 20 s, first tokens of 30 ms to 3 s.
            let latency = exp(Double.random(in: log(300)...log(20_000), using: &random))
            var turn = Turn(finished: now.addingTimeInterval(-Double.random(in: 1..<86_400, using: &random)), node: nodes.randomElement(using: &random)!,
                            assistant: assistants.randomElement(using: &random)!, model: models.randomElement(using: &random)!,
                            tokensIn: Int.random(in: 200...4_000, using: &random), tokensOut: Int.random(in: 20...600, using: &random),
                            latencyMilliseconds: latency, firstTokenMilliseconds: min(latency, exp(Double.random(in: log(30)...log(3_000), using: &random))),
                            error: nil, flags: [])
            if Int.random(in: 0..<50, using: &random) == 0 { turn.error = errors.randomElement(using: &random) }
            if Int.random(in: 0..<20, using: &random) == 0 { turn.flags = [flags.randomElement(using: &random)!] }
            return turn
        }
    }

    /// The turn rows, with threads for them (a thread per 100 turns) and an index on `startedAt`
    /// and one on `finishedAt`, so the peer reads only its range's rows.
    static func storeTurns(_ turns: [Turn], in chats: SQLiteChatStore) async throws {
        let padding = String(repeating: "Aunt Lil kept bees behind the church and sold the honey on Saturdays. ", count: 24)
        try await chats.writer.write { db in
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS bench_turn_by_finished ON turn(finishedAt)")
            let threads = (turns.count + 99) / 100
            for index in 0..<threads {
                try ThreadRecord(id: "thread-\(index)", assistant: "griot", userID: "u-\(index)", courseID: nil, title: "Bench",
                                 createdAt: Date(), updatedAt: Date(), lastReadMessageID: nil, deletedAt: nil).insert(db)
            }
            for (index, turn) in turns.enumerated() {
                var snapshot: [String: Any] = [
                    "assistant": turn.assistant, "model": turn.model, "ledger": ["promptTokens": turn.tokensIn],
                    "usage": ["completionTokens": turn.tokensOut], "firstTokenSeconds": turn.firstTokenMilliseconds / 1_000,
                    "flags": turn.flags, "text": padding,
                ]
                if let error = turn.error { snapshot["failure"] = ["code": error, "message": "…"] }
                let json = String(decoding: try JSONSerialization.data(withJSONObject: snapshot), as: UTF8.self)
                try TurnRecord(id: "turn-\(index)", threadID: "thread-\(index / 100)", userMessageID: "m-\(index)", assistantMessageID: "r-\(index)",
                               assistant: turn.assistant, promptVersion: 1, promptHash: "sha256:bench", provider: "bench", model: turn.model,
                               status: turn.error == nil ? .complete : .failed,
                               startedAt: turn.finished.addingTimeInterval(-turn.latencyMilliseconds / 1_000), finishedAt: turn.finished,
                               snapshot: json).insert(db)
            }
        }
    }

    /// The rollup the turns would have written: each turn's counts added into its minute's (and
    /// quarter hour's) row, the rows written with the store's own upsert.
    static func storeRollups(_ turns: [Turn], in chats: SQLiteChatStore) async throws -> Int {
        var rows: [String: TurnRollup] = [:]
        for turn in turns {
            let minute = RollupResolution.minute.bucketStart(turn.finished)
            let key = "\(minute)|\(turn.node)|\(turn.assistant)|\(turn.model)"
            var rollup = rows[key] ?? TurnRollup(at: Date(timeIntervalSince1970: TimeInterval(minute)), node: turn.node,
                                                 assistant: turn.assistant, model: turn.model)
            rollup.turns += 1
            rollup.tokensIn += turn.tokensIn
            rollup.tokensOut += turn.tokensOut
            if let error = turn.error {
                rollup.errors += 1
                rollup.errorCodes[error, default: 0] += 1
            }
            for flag in turn.flags { rollup.flags[flag, default: 0] += 1 }
            rollup.crisis += turn.flags.contains("crisis") ? 1 : 0
            rollup.latency.record(milliseconds: turn.latencyMilliseconds)
            rollup.firstToken.record(milliseconds: turn.firstTokenMilliseconds)
            rows[key] = rollup
        }
        for rollup in rows.values { try await chats.addRollup(rollup) }
        return rows.count
    }

    // MARK: Reporting

    static func median(_ times: [Duration]) -> Duration { quantile(times, 0.5) }

    static func quantile(_ times: [Duration], _ q: Double) -> Duration {
        let sorted = times.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q))]
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func ms(_ duration: Duration) -> String { String(format: "%.2f ms", seconds(duration) * 1_000) }
}
