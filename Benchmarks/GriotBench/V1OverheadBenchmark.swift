import ArgumentParser
import Foundation
import GriotAuth
import NIOCore
import NIOPosix

/// The OpenAI-compatible facade against Griot's own streaming route, in one run on one service
/// (issue 36): the same questions to the same paced stub model, through `POST /v1/chat/completions`
/// and `POST /api/griot/chat/stream`, interleaved chat by chat within every round, and what a
/// client sees of each: the first text, the end of the stream, and the errors.
struct V1OverheadBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "v1-overhead",
        abstract: "The /v1/chat/completions facade against /api/griot/chat/stream: first content and whole-stream p50/p95/p99, in one run on one service.",
        discussion: """
            Starts the paced stub model in this process, ingests the demo corpus into a temporary \
            database and starts one `griot serve` on it (GRIOT_AUTH_MODE=development, OPENAI_BASE_URL = \
            the stub). Each round opens --streams chats over --ramp seconds, one connection and one \
            user each; the chats alternate between the two routes (even places to one route, odd to \
            the other, swapped every round), so both routes share every second of the ramp, the \
            same server state and the same load. With --rounds 2, each route gets --streams chats in \
            all. A client's time is measured on the event loop that reads the socket: sent → the first \
            content (Griot's first `delta` event; the facade's first chunk whose `delta.content` is not \
            empty) and sent → the end (`event: done`; `data: [DONE]`). The stub's own records split each \
            chat into before the model (sent → the stub read the request) and after (the stub's first \
            token → the client's first content).
            """)

    @OptionGroup var griot: GriotOptions

    @Option(help: "Concurrent streams in each round, half through each route.")
    var streams = 1000

    @Option(help: "Rounds; each route gets streams × rounds / 2 chats in all.")
    var rounds = 2

    @OptionGroup var model: PacedModelOptions

    @Option(help: "Seconds over which each round's chats are started, evenly spaced.")
    var ramp = 10.0

    @Option(help: "Seconds a chat may take before it counts as failed.")
    var timeout = 180.0

    @Option(help: "Seconds of rest between rounds (the service finishes writing the last round's replies).")
    var rest = 5.0

    @Option(help: "The acceptance: the facade's p95 minus the own route's, in milliseconds.")
    var limit = 5.0

    @Flag(help: "Keep the temporary folder (the database and the service's log).")
    var keep = false

    func validate() throws {
        guard streams >= 2, rounds >= 1 else { throw ValidationError("--streams ≥ 2 and --rounds ≥ 1, e.g. --streams 1000 --rounds 2") }
        guard ramp >= 0, timeout > 0 else { throw ValidationError("--ramp ≥ 0 and --timeout > 0, e.g. --ramp 10 --timeout 180") }
    }

    enum Route: String, CaseIterable {
        case own = "/api/griot/chat/stream"
        case facade = "/v1/chat/completions"

        var name: String { self == .own ? "own route" : "facade" }
    }

    /// One chat of a round: its route, its outcome, and the stub's record of its reply.
    struct Sample {
        var route: Route
        var round: Int
        var outcome: StreamingChatClient.Outcome
        var record: PacedModelStub.Record?
    }

    func run() async throws {
        let clock = Date()
        let (group, stub) = try await model.start()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("griot-v1-overhead-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer {
            if keep { say("kept \(work.path)") } else { try? FileManager.default.removeItem(at: work) }
        }
        say(model.summary(of: stub))
        say("fd limit \(ServeLoadBenchmark.openFileLimit()); \(ProcessInfo.processInfo.activeProcessorCount) cores shared by the service, the stub and the client")

        let database = work.appendingPathComponent("serve.sqlite")
        let started = Date()
        try ServiceProcess.ingest(griot.executable, corpus: griot.corpus, into: database, log: work.appendingPathComponent("ingest.log"))
        say("\(griot.executable) ingested \(griot.corpus) in \(ServeLoadBenchmark.format(Date().timeIntervalSince(started))) s")

        // Every chat has a user of its own (the rate limits are per user: 30 a minute, 300 a day).
        let warmUps = 8
        let minter = try await TokenVerifier.make(AuthConfiguration(hs256Secret: AuthConfiguration.developmentSecret, development: true))
        var bearer: [String] = []
        for user in 0..<(streams * rounds + warmUps) {
            bearer.append(try await minter.mintDevelopmentToken(userID: String(format: "v1o-user-%05d", user), role: .client, expiresIn: 3 * 3600))
        }

        let (service, client) = try await ServiceProcess.serve(griot.executable, database: database,
                                                               environment: ServiceProcess.environment(servingModel: stub, prompts: griot.prompts),
                                                               log: work.appendingPathComponent("serve.log"), group: group, timeout: timeout)
        defer { service.stop() }
        say("griot serve on 127.0.0.1:\(client.port), pid \(service.pid)")

        // A few chats through each route first, so one-time loads (the BPE ranks, the moderator's
        // tables, the facade's code paths) are charged to neither.
        let warm = (0..<warmUps).map { index in
            chat(route: index % 2 == 0 ? .own : .facade, marker: PacedModelStub.markerPrefix + "w-\(index)", index: index,
                 token: bearer[streams * rounds + index])
        }
        let warmed = try await send(warm, with: client, over: 1)
        let expectedBytes = model.reply.joined().utf8.count
        for (index, outcome) in warmed.enumerated() {
            var failures = Failures()
            failures.count(outcome, expectedTextEvents: nil, expectedTextBytes: expectedBytes)
            guard failures.total == 0 else {
                throw ValidationError("warm-up chat \(index) (\(index % 2 == 0 ? Route.own.rawValue : Route.facade.rawValue)) failed: \(failures); log:\n\(service.logTail())")
            }
        }
        say("warm-up: \(warmUps) chats, half through each route, all complete")

        var samples: [Sample] = []
        var roundLines: [String] = []
        let cpuBefore = service.cpuSeconds() ?? 0, ownBefore = ServeLoadBenchmark.ownCPUSeconds(), machineBefore = ServeLoadBenchmark.machineCPUSeconds()
        let runStarted = NIODeadline.now()
        for round in 0..<rounds {
            if round > 0, rest > 0 { try await Task.sleep(for: .seconds(rest)) }
            // Even places go to the own route in even rounds and to the facade in odd ones.
            let routes = (0..<streams).map { ($0 + round) % 2 == 0 ? Route.own : Route.facade }
            let chats = (0..<streams).map { index in
                chat(route: routes[index], marker: PacedModelStub.markerPrefix + "r\(round)-\(index)", index: index, token: bearer[round * streams + index])
            }
            say("\n== round \(round + 1) of \(rounds): \(streams) concurrent streams over \(ServeLoadBenchmark.format(ramp)) s, "
                  + "even places through \(routes[0].name), odd through \(routes[1].name) ==")
            stub.resetPeak()
            let cpu = service.cpuSeconds() ?? 0
            let begun = NIODeadline.now()
            let outcomes = try await send(chats, with: client, over: ramp)
            let elapsed = Double((NIODeadline.now() - begun).nanoseconds) / 1e9
            let these = zip(routes, outcomes).map { Sample(route: $0, round: round, outcome: $1, record: stub.record(marker: $1.marker)) }
            samples += these
            var parts: [String] = []
            for route in Route.allCases {
                let figures = Figures(these.filter { $0.route == route }, expectedBytes: expectedBytes)
                parts.append("\(route.name) first content p95 \(figures.firstContent.text(0.95)), end p95 \(figures.whole.text(0.95)), \(figures.failures.total) errors")
            }
            let line = "round \(round + 1): " + parts.joined(separator: "; ")
                + "; at most \(stub.peakActiveReplies) streaming at once; CPU griot \(ServeLoadBenchmark.format((service.cpuSeconds() ?? 0) - cpu)) s; \(ServeLoadBenchmark.format(elapsed)) s"
            say(line)
            roundLines.append(line)
        }
        let serviceCPU = (service.cpuSeconds() ?? 0) - cpuBefore, benchCPU = ServeLoadBenchmark.ownCPUSeconds() - ownBefore
        let others = ServeLoadBenchmark.machineCPUSeconds() - machineBefore - serviceCPU - benchCPU
        let runSeconds = Double((NIODeadline.now() - runStarted).nanoseconds) / 1e9

        let own = Figures(samples.filter { $0.route == .own }, expectedBytes: expectedBytes)
        let facade = Figures(samples.filter { $0.route == .facade }, expectedBytes: expectedBytes)
        say("\n== summary: \(streams) concurrent streams a round, \(rounds) rounds, interleaved chat by chat ==")
        for line in roundLines { say(line) }
        for (route, figures) in [(Route.own, own), (Route.facade, facade)] {
            say("\(route.name) (\(route.rawValue)): \(figures.completed)/\(figures.count) complete; \(figures.failures)")
            say("  client sent → first content: \(figures.firstContent)")
            say("  client sent → end of stream: \(figures.whole)")
            say("  before the model, client sent → stub read the request: \(figures.beforeModel)")
            say("  after the model, stub sent its first token → client read the first content: \(figures.afterModel)")
        }
        var random = SplitMix(seed: 0x7631_6f76_6572)
        func difference(_ title: String, _ ours: Distribution, _ theirs: Distribution, verdict: Bool) -> String {
            let cells = [0.5, 0.95, 0.99].map { p -> String in
                guard let a = ours.percentile(p), let b = theirs.percentile(p) else { return "p\(Int(p * 100)) –" }
                return "p\(Int(p * 100)) \(Self.signed(a - b)) ms"
            }
            var line = "  \(title), facade − own route: " + cells.joined(separator: ", ")
            let interval = Self.bootstrap(ours.sorted, theirs.sorted, p: 0.95, using: &random)
            if let interval {
                line += " (p95 difference, 95 % bootstrap interval \(Self.signed(interval.low)) to \(Self.signed(interval.high)) ms)"
            }
            if verdict, let a = ours.percentile(0.95), let b = theirs.percentile(0.95) {
                let bound = ServeLoadBenchmark.format(limit)
                line += a - b <= limit ? ": MET (≤ \(bound) ms)" : ": NOT MET (> \(bound) ms)"
                // At a saturated service two samples of one route differ by far more than the
                // limit; the interval says whether this run can tell at all.
                if let interval {
                    if interval.high <= limit { line += ", and within it at 95 % confidence" }
                    else if interval.low > limit { line += ", and over it at 95 % confidence" }
                    else { line += "; the interval crosses \(bound) ms, so this run cannot tell" }
                }
            }
            return line
        }
        say("differences:")
        say(difference("first content", facade.firstContent, own.firstContent, verdict: true))
        say(difference("end of stream", facade.whole, own.whole, verdict: true))
        say(difference("before the model", facade.beforeModel, own.beforeModel, verdict: false))
        say(difference("after the model", facade.afterModel, own.afterModel, verdict: false))
        // The same figure between the own route's two halves (its even and odd chats in each
        // round's order): what two samples of one route differ by at this load.
        let ownByHalf = [0, 1].map { half in
            Figures(samples.filter { $0.route == .own }.enumerated().filter { $0.offset % 2 == half }.map(\.element), expectedBytes: expectedBytes)
        }
        if let a = ownByHalf[0].firstContent.percentile(0.95), let b = ownByHalf[1].firstContent.percentile(0.95),
           let c = ownByHalf[0].whole.percentile(0.95), let d = ownByHalf[1].whole.percentile(0.95) {
            say("  the own route against itself (alternate chats, \(ownByHalf[0].firstContent.sorted.count) and \(ownByHalf[1].firstContent.sorted.count)): "
                  + "first content p95 \(Self.signed(a - b)) ms, end p95 \(Self.signed(c - d)) ms")
        }
        say("CPU over the rounds: griot \(ServeLoadBenchmark.format(serviceCPU)) s, stub + client \(ServeLoadBenchmark.format(benchCPU)) s, "
              + "other processes \(ServeLoadBenchmark.format(max(0, others))) s; rounds \(ServeLoadBenchmark.format(runSeconds)) s, "
              + "whole command \(ServeLoadBenchmark.format(Date().timeIntervalSince(clock))) s")
        try await stub.stop()
        try await group.shutdownGracefully()
    }

    /// One route's figures over its chats.
    struct Figures {
        var count: Int
        var completed: Int
        var failures = Failures()
        var firstContent: Distribution
        var whole: Distribution
        var beforeModel: Distribution
        var afterModel: Distribution

        init(_ samples: [Sample], expectedBytes: Int) {
            var failures = Failures()
            var first: [Double] = [], whole: [Double] = [], before: [Double] = [], after: [Double] = []
            for sample in samples {
                let outcome = sample.outcome
                let problems = failures.total
                failures.count(outcome, expectedTextEvents: nil, expectedTextBytes: expectedBytes)
                guard let sent = outcome.sentAt else { continue }
                if let at = outcome.firstTextAt { first.append(ServeLoadBenchmark.milliseconds(from: sent, to: at)) }
                // Only a stream that ended as it should has an end to time.
                if failures.total == problems, let done = outcome.doneAt { whole.append(ServeLoadBenchmark.milliseconds(from: sent, to: done)) }
                if let record = sample.record {
                    before.append(ServeLoadBenchmark.milliseconds(from: sent, to: record.arrived))
                    if let token = record.sent.first, let at = outcome.firstTextAt { after.append(ServeLoadBenchmark.milliseconds(from: token, to: at)) }
                }
            }
            count = samples.count
            completed = samples.count - failures.total
            self.failures = failures
            firstContent = Distribution(first)
            self.whole = Distribution(whole)
            beforeModel = Distribution(before)
            afterModel = Distribution(after)
        }
    }

    // MARK: Chats

    private func chat(route: Route, marker: String, index: Int, token: String) -> StreamingChatClient.Chat {
        let question = ServeLoadBenchmark.question(index, marker: marker)
        let headers = [("content-type", "application/json"), ("accept", "text/event-stream"), ("authorization", "Bearer \(token)")]
        switch route {
        case .own:
            return .init(marker: marker, path: route.rawValue, headers: headers,
                         body: Array(try! JSONSerialization.data(withJSONObject: ["message": question])), dialect: .griot)
        case .facade:
            let body: [String: Any] = ["model": "griot", "stream": true, "messages": [["role": "user", "content": question]]]
            return .init(marker: marker, path: route.rawValue, headers: headers,
                         body: Array(try! JSONSerialization.data(withJSONObject: body)), dialect: .openAIChunks)
        }
    }

    /// Starts the chats evenly over `ramp` seconds and waits for every reply to end.
    private func send(_ chats: [StreamingChatClient.Chat], with client: StreamingChatClient, over ramp: Double) async throws -> [StreamingChatClient.Outcome] {
        let start = NIODeadline.now() + .milliseconds(50)
        let gap = chats.count > 1 ? ramp / Double(chats.count - 1) : 0
        let futures = chats.enumerated().map { index, chat in
            client.send(chat, at: start + .nanoseconds(Int64(Double(index) * gap * 1e9)))
        }
        return try await EventLoopFuture.whenAllSucceed(futures, on: client.group.next()).get()
    }

    /// A line on standard output at once, unbuffered: a log being followed (or a profiler
    /// waiting for the service's pid) sees it when it is written.
    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    // MARK: Statistics

    static func signed(_ value: Double) -> String { (value >= 0 ? "+" : "−") + ServeLoadBenchmark.format(abs(value)) }

    /// A 95 % percentile-bootstrap interval of `percentile(a) − percentile(b)` (2,000 resamples).
    static func bootstrap(_ a: [Double], _ b: [Double], p: Double, using random: inout SplitMix) -> (low: Double, high: Double)? {
        guard a.count >= 20, b.count >= 20 else { return nil }
        func resampled(_ values: [Double]) -> Double {
            var draw = (0..<values.count).map { _ in values[Int(random.next() % UInt64(values.count))] }
            draw.sort()
            return draw[min(draw.count - 1, max(0, Int((p * Double(draw.count)).rounded(.up)) - 1))]
        }
        var differences = (0..<2000).map { _ in resampled(a) - resampled(b) }
        differences.sort()
        return (differences[49], differences[1950])
    }
}
