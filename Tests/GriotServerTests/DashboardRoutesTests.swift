import AsyncHTTPClient
import Foundation
import GriotServer
import GriotStore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// The operators' live dashboard (issue 37): figures from the rollup turns write as they finish,
/// through every chat route; the stream shows a finished turn within 2 s; ranges other than 15m,
/// 1h and 24h are refused; percentiles read from the merged histograms are the known ones.
@Suite struct DashboardRoutesTests {
    /// The dashboard of `range`, read until `until` holds (the rollup is written off the turn's
    /// path, a moment after the reply) or 2 s have passed.
    func dashboard(_ client: any TestClientProtocol, _ headers: HTTPFields, range: String = "15m",
                   until: ([String: Any]) -> Bool = { _ in true }) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(2)
        while true {
            let figures = try await client.execute(uri: "/api/ops/dashboard?range=\(range)", method: .get, headers: headers) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body).prefix(300))")
                return json(response.body)
            }
            if until(figures) || ContinuousClock.now > deadline { return figures }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func totals(_ figures: [String: Any]) -> [String: Any] { figures["totals"] as? [String: Any] ?? [:] }
    func turns(_ figures: [String: Any]) -> Int { totals(figures)["turns"] as? Int ?? -1 }

    @Test func chatsThroughTheGriotAndV1RoutesChangeTheDashboard() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let ops = try await service.headers("u-ops", role: .operator)
        try await service.test(.router) { client in
            let before = try await dashboard(client, ops)
            #expect(turns(before) == 0)
            #expect((before["series"] as? [Any])?.count == 15 && before["bucket_seconds"] as? Int == 60)
            #expect(before["scope"] as? String == (service.engine.chats.rollupIsShared ? "fleet" : "node"))
            #expect((before["latency"] as? [String: Any])?["turn_ms"] as? [String: NSNull] == ["p50": NSNull(), "p95": NSNull()],
                    "no turns: null percentiles, not missing ones")

            try await client.execute(uri: "/api/griot/chat", method: .post, headers: maya,
                                     body: body(["message": "What happened in Kelly Ingram Park?"])) { response in
                #expect(response.status == .ok)
            }
            let afterChat = try await dashboard(client, ops) { turns($0) == 1 }
            #expect(turns(afterChat) == 1)
            #expect((totals(afterChat)["tokens_in"] as? Int ?? 0) > 0 && (totals(afterChat)["tokens_out"] as? Int ?? 0) > 0)
            let usage = afterChat["tokens"] as? [[String: Any]] ?? []
            #expect(usage.map { "\($0["assistant"] ?? "")/\($0["model"] ?? "")" } == ["griot/griot-extractive-1"])
            #expect(usage.first?["tokens_in"] as? Int == totals(afterChat)["tokens_in"] as? Int)
            let turnLatency = (afterChat["latency"] as? [String: Any])?["turn_ms"] as? [String: Any]
            #expect((turnLatency?["p50"] as? Double ?? 0) > 0)
            #expect((afterChat["nodes"] as? [String])?.count == 1)
            let series = afterChat["series"] as? [[String: Any]] ?? []
            #expect(series.last?["turns"] as? Int == 1, "the turn is in the current minute, the last bucket")

            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: maya,
                                     body: body(["model": "griot", "messages": [["role": "user", "content": "Who sang in the choir?"]]])) { response in
                #expect(response.status == .ok)
            }
            let afterV1 = try await dashboard(client, ops) { turns($0) == 2 }
            #expect(turns(afterV1) == 2, "a /v1 turn is counted too")

            let day = try await dashboard(client, ops, range: "24h")
            #expect(turns(day) == 2 && day["bucket_seconds"] as? Int == 900 && (day["series"] as? [Any])?.count == 96)
        }
    }

    @Test func aRangeTheDashboardDoesNotKeepIsA400AndClientsAreForbidden() async throws {
        let service = try await TestService()
        let ops = try await service.headers("u-ops", role: .operator)
        let maya = try await service.headers("u-maya")
        try await service.test(.router) { client in
            for range in ["7d", "", "1H", "60m"] {
                try await client.execute(uri: "/api/ops/dashboard?range=\(range)", method: .get, headers: ops) { response in
                    #expect(response.status == .badRequest, "\(range)")
                    let error = json(response.body)["error"] as? [String: Any]
                    #expect(error?["code"] as? String == "invalid_range", "\(range)")
                    #expect((error?["message"] as? String)?.contains("15m, 1h or 24h") == true)
                }
            }
            try await client.execute(uri: "/api/ops/dashboard/stream?range=2h", method: .get, headers: ops) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/ops/dashboard", method: .get, headers: maya) { response in
                #expect(response.status == .forbidden)
            }
            try await client.execute(uri: "/api/ops/dashboard", method: .get, headers: ops) { response in
                #expect(json(response.body)["range"] as? String == "1h")
            }
        }
    }

    /// Known histograms, written as the turns that make them would write them: 90 turns of about
    /// 200 ms and 10 of about 3 s in one minute; 50 of 1 s in the next. The dashboard's
    /// percentiles are those of the merged histogram, within the bins' resolution (19 %).
    @Test func percentilesAreThoseOfTheMergedHistograms() async throws {
        let service = try await TestService()
        let ops = try await service.headers("u-ops", role: .operator)
        let chats = service.engine.chats
        let now = Date()
        let minute = RollupResolution.minute.bucketStart(now)
        for (offset, latency, count) in [(-60.0, 200.0, 90), (-60, 3_000, 10), (0, 1_000, 50)] {
            var rollup = TurnRollup(at: Date(timeIntervalSince1970: TimeInterval(minute) + offset), node: "node-x", assistant: "griot", model: "m")
            rollup.turns = count
            rollup.latency.record(milliseconds: latency, count: count)
            rollup.firstToken.record(milliseconds: latency / 10, count: count)
            try await chats.addRollup(rollup)
        }
        try await service.test(.router) { client in
            let figures = try await dashboard(client, ops)
            #expect(turns(figures) == 150)
            let latency = figures["latency"] as? [String: Any] ?? [:]
            let turn = latency["turn_ms"] as? [String: Double] ?? [:]
            // 150 turns: the 75th is among the 200 ms ones; the 143rd among the 1 s ones.
            #expect(abs((turn["p50"] ?? 0) - 200) / 200 < 0.19, "p50 \(turn["p50"] ?? -1)")
            #expect(abs((turn["p95"] ?? 0) - 3_000) / 3_000 < 0.19, "p95 \(turn["p95"] ?? -1)")
            let first = latency["first_token_ms"] as? [String: Double] ?? [:]
            #expect(abs((first["p50"] ?? 0) - 20) / 20 < 0.19)
            let series = figures["series"] as? [[String: Any]] ?? []
            let at = { (start: Int64) in
                series.first { $0["at"] as? String == ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(start))) } ?? [:]
            }
            #expect(abs((at(minute - 60)["latency_p95_ms"] as? Double ?? 0) - 3_000) / 3_000 < 0.19, "the minute's own p95")
            #expect(abs((at(minute)["latency_p95_ms"] as? Double ?? 0) - 1_000) / 1_000 < 0.19)
            #expect(series[0]["latency_p95_ms"] is NSNull && series[0]["first_token_p50_ms"] is NSNull, "an empty minute has null percentiles")
        }
    }

    @Test func histogramPercentilesAreWithinTheBinResolution() {
        var histogram = LatencyHistogram()
        #expect(histogram.percentile(0.5) == nil)
        for value in stride(from: 1.0, through: 1_000, by: 1) { histogram.record(milliseconds: value) }
        for (quantile, exact) in [(0.5, 500.0), (0.95, 950.0), (0.99, 990.0)] {
            let read = histogram.percentile(quantile) ?? 0
            #expect(abs(read - exact) / exact < 0.1, "p\(Int(quantile * 100)) \(read) against \(exact)")
        }
        var merged = LatencyHistogram()
        var a = LatencyHistogram(), b = LatencyHistogram()
        a.record(milliseconds: 10, count: 95)
        b.record(milliseconds: 10_000, count: 5)
        merged.add(a)
        merged.add(b)
        #expect(abs((merged.percentile(0.5) ?? 0) - 10) / 10 < 0.19)
        #expect(abs((merged.percentile(0.96) ?? 0) - 10_000) / 10_000 < 0.19)
        #expect(LatencyHistogram.bin(milliseconds: 0.3) == 0 && LatencyHistogram.bin(milliseconds: 1e9) == LatencyHistogram.binCount - 1)
    }

    @Test func refusalsByTheRateLimitsAreCounted() async throws {
        let service = try await TestService(limits: [RateLimit(name: "minute", count: 1, window: 60)])
        let maya = try await service.headers("u-maya")
        let ops = try await service.headers("u-ops", role: .operator)
        try await service.test(.router) { client in
            for (n, expected) in [(0, 200), (1, 429)] {
                try await client.execute(uri: "/api/griot/chat", method: .post, headers: maya,
                                         body: body(["message": "Who kept bees? (\(n))"])) { response in
                    #expect(response.status.code == expected)
                }
            }
            let figures = try await dashboard(client, ops) { totals($0)["rate_limited"] as? Int == 1 && turns($0) == 1 }
            #expect(totals(figures)["rate_limited"] as? Int == 1)
            #expect(turns(figures) == 1, "a refused message is not a turn")
        }
    }

    /// The stream sends the figures at once, then a finished turn's within 2 s of its reply.
    @Test func theStreamShowsAFinishedTurnWithinTwoSeconds() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let ops = try await service.headers("u-ops", role: .operator)
        try await service.test(.live) { client in
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(client.port!)/api/ops/dashboard/stream?range=15m")
            for field in ops { request.headers.add(name: field.name.rawName, value: field.value) }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            #expect(response.status.code == 200)
            #expect(response.headers.first(name: "content-type")?.hasPrefix("text/event-stream") == true)
            let seen = StreamedFigures()
            let reader = Task {
                var text = ""
                for try await chunk in response.body {
                    text += String(buffer: chunk)
                    while let end = text.range(of: "\n\n") {
                        let frame = String(text[..<end.lowerBound])
                        text = String(text[end.upperBound...])
                        if frame.hasPrefix("event: dashboard\ndata: ") {
                            seen.append(object(String(frame.dropFirst("event: dashboard\ndata: ".count))))
                        }
                    }
                }
            }
            #expect(await seen.wait(for: .seconds(5)) { !$0.isEmpty }, "the figures come at once")
            #expect(seen.turns.first == 0)

            let chat = try await live(client, .POST, "/api/griot/chat", headers: maya, body: body(["message": "Who kept bees?"]))
            #expect(chat.status == 200)
            let replied = ContinuousClock.now
            let shown = await seen.wait(for: .seconds(3)) { $0.contains(1) }
            let elapsed = ContinuousClock.now - replied
            #expect(shown && elapsed < .seconds(2), "the turn showed after \(elapsed) (figures seen: \(seen.turns))")
            reader.cancel()
            _ = await reader.result
            // The hang-up ended the stream: the server still answers.
            #expect(try await live(client, .GET, "/healthz").status == 200)
        }
    }

    /// A dashboard left open does not hold up a graceful shutdown: the live test server shuts
    /// down gracefully when the test body returns, with the stream still being read.
    @Test(.timeLimit(.minutes(1))) func anOpenStreamEndsWhenTheServerShutsDown() async throws {
        let service = try await TestService()
        let ops = try await service.headers("u-ops", role: .operator)
        let seen = StreamedFigures()
        let (ended, signal) = AsyncStream.makeStream(of: Void.self)
        let started = ContinuousClock.now
        let reader: Task<Void, any Error> = try await service.test(.live) { client in
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(client.port!)/api/ops/dashboard/stream")
            for field in ops { request.headers.add(name: field.name.rawName, value: field.value) }
            let reader = Task {
                defer { signal.finish() }
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                for try await chunk in response.body where String(buffer: chunk).contains("event: dashboard") { seen.append([:]) }
            }
            #expect(await seen.wait(for: .seconds(5)) { !$0.isEmpty })
            return reader
        }
        let shutDown = ContinuousClock.now - started
        for await _ in ended {}
        _ = await reader.result
        #expect(shutDown < .seconds(10), "the server took \(shutDown) to shut down with a dashboard open")
    }
}

/// The turns of each dashboard event a stream delivered, as they came.
final class StreamedFigures: Sendable {
    private let seen = Mutex<[Int]>([])

    func append(_ figures: [String: Any]) {
        let turns = (figures["totals"] as? [String: Any])?["turns"] as? Int ?? -1
        seen.withLock { $0.append(turns) }
    }

    var turns: [Int] { seen.withLock { $0 } }

    /// Waits until `condition` holds of the turns seen, or `timeout` passes; true when it held.
    func wait(for timeout: Duration, _ condition: ([Int]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(turns) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(turns)
    }
}
