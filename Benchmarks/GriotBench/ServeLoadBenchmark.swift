import ArgumentParser
import Foundation
import GriotAuth
import NIOCore
import NIOPosix

/// Many concurrent streaming chats against `griot serve`, with a paced stub model behind it, and
/// the same chats sent straight to the stub as the peer: what griot adds between the model's
/// first token and the client's first delta.
struct ServeLoadBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-load",
        abstract: "N concurrent streaming chats through griot serve and straight to the stub model; overhead to the first token.",
        discussion: """
            Starts a stub OpenAI-compatible model in this process (a fixed reply of --tokens tokens, \
            one every --pace seconds), ingests the demo corpus into a temporary database, starts \
            `griot serve` on it as a child process (GRIOT_AUTH_MODE=development, OPENAI_BASE_URL = \
            the stub), and opens the chats over --ramp seconds, one connection each, each with its \
            own user's token. Each chat's message carries a marker the stub reads, so the stub's \
            send time of each token is matched to the client's arrival time of the first delta.
            """)

    @OptionGroup var griot: GriotOptions

    @Option(parsing: .upToNextOption, help: "Numbers of concurrent chats, one run each (e.g. 100 250 500 1000).")
    var chats: [Int] = [1000]

    @OptionGroup var model: PacedModelOptions

    /// At 1,000 chats and 20 s replies, 10 s leaves every reply streaming at once when the
    /// service starts them in time (the report says how many were).
    @Option(help: "Seconds over which the chats are started, evenly spaced.")
    var ramp = 10.0

    @Option(help: "Seconds a chat may take before it counts as failed.")
    var timeout = 120.0

    @Flag(help: "Skip the peer (the chats straight to the stub).")
    var noPeer = false

    /// The acceptance of issue 34 compares the service with itself at an earlier commit, in the
    /// same run, on the same machine minutes apart: this binary ingests its own database (its
    /// schema may differ) and serves the same chats just before griot does.
    @Option(help: "A second griot executable (e.g. a release build of an earlier commit), run on the same chats in the same run as griot's peer.")
    var peerGriot: String?

    /// Admitting a chat (auth, storing, moderation, retrieval with the query embedding, the
    /// prompt and its token counts) is measured alone: before each run these chats are sent
    /// while the stub holds every reply, so the service does nothing but admit them until the
    /// stub has them all; its CPU from the first send to then, divided by the chats, is the CPU
    /// of admitting one.
    @Option(help: "Chats admitted before each run with the model holding its replies, for the CPU of admitting one (0 skips).")
    var admitChats = 200

    @Option(help: "Chats a second for the admission measurement (low enough that no queue forms).")
    var admitRate = 20.0

    @Flag(help: "Run only the peer, to check that the stub and the client keep up on this machine.")
    var peerOnly = false

    /// Issue 38: the cost of encryption at rest. With `--peer-griot` naming the same binary,
    /// griot runs with this master key file and its peer without one.
    @Option(help: "A master key file (griot keys new-master) for griot's ingest and service; its peer (--peer-griot) runs without.")
    var masterKeyFile: String?

    /// The environment of a griot process: with the master key for griot, without for the peer.
    func keyed(_ environment: [String: String], peer: Bool) -> [String: String] {
        var environment = environment
        environment["GRIOT_MASTER_KEY_COMMAND"] = nil
        environment["GRIOT_MASTER_KEY_FILE"] = peer ? nil : masterKeyFile.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        return environment
    }

    @Flag(help: "Keep the temporary folder (databases and the service's logs).")
    var keep = false

    /// Issue 34: the same chats through nginx across three nodes on PostgreSQL
    /// (`scripts/cluster.sh`, griot as every node's binary), just after the one-node run, with
    /// PostgreSQL's commits a second over the run.
    @Flag(help: "After each one-node run, send the same chats through nginx to a three-node cluster on PostgreSQL (scripts/cluster.sh).")
    var cluster = false

    func validate() throws {
        guard chats.allSatisfy({ $0 > 0 }) else { throw ValidationError("--chats must be positive, e.g. --chats 100 1000") }
        guard ramp >= 0 else { throw ValidationError("--ramp ≥ 0, e.g. --ramp 10") }
    }

    func run() async throws {
        let (group, stub) = try await model.start()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("griot-serve-load-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer {
            if keep { print("kept \(work.path)") } else { try? FileManager.default.removeItem(at: work) }
        }
        print(model.summary(of: stub))
        print("fd limit \(Self.openFileLimit()); \(ProcessInfo.processInfo.activeProcessorCount) cores shared by the service, the stub and the client")

        let template = work.appendingPathComponent("template.sqlite")
        if !peerOnly { try ingest(into: template, with: griot.executable, log: work.appendingPathComponent("ingest.log"), peer: false) }
        let peerTemplate = work.appendingPathComponent("peer-template.sqlite")
        if !peerOnly, let peerGriot { try ingest(into: peerTemplate, with: peerGriot, log: work.appendingPathComponent("peer-ingest.log"), peer: true) }
        let minter = try await TokenVerifier.make(AuthConfiguration(hs256Secret: AuthConfiguration.developmentSecret, development: true))
        var bearer: [String] = []
        for user in 0..<(peerOnly ? 0 : max(chats.max() ?? 0, admitChats)) {
            bearer.append(try await minter.mintDevelopmentToken(userID: String(format: "load-user-%05d", user), role: .client, expiresIn: 3 * 3600))
        }

        var summaries: [String] = []
        for (index, count) in chats.enumerated() {
            // Markers name the run too, so a level given twice never matches another run's records.
            let tag = "\(index + 1)x\(count)"
            print("\n== \(count) concurrent chats, started over \(Self.format(ramp)) s ==")
            var peer: Distribution?
            if !noPeer {
                stub.resetPeak()
                let ownBefore = Self.ownCPUSeconds(), machineBefore = Self.machineCPUSeconds()
                let started = NIODeadline.now()
                let outcomes = try await direct(count, tag: tag, stub: stub, group: group)
                let elapsed = Double((NIODeadline.now() - started).nanoseconds) / 1e9
                let own = Self.ownCPUSeconds() - ownBefore
                peer = report(peer: outcomes, stub: stub, elapsed: elapsed, cpu: (own, Self.machineCPUSeconds() - machineBefore - own))
            }
            if peerOnly { continue }
            // With a peer service, the two run one after the other; the order alternates from one
            // run to the next (the peer first in the first run), because whichever runs second pays
            // for the first's leftovers (an A/A run showed 1.46x the CPU per chat for the second).
            var earlier: ServiceRun?
            let peerFirst = index % 2 == 0
            func peerRun() async throws -> ServiceRun {
                print("-- the peer service, \(peerGriot!) --")
                let measured = try await throughGriot(count, tag: "e" + tag, executable: peerGriot!, stub: stub, group: group, template: peerTemplate,
                                                      work: work, bearer: bearer, peer: peer, isPeer: true)
                summaries.append("peer service (\(peerFirst ? "first" : "second")): " + measured.summary)
                return measured
            }
            if peerGriot != nil, peerFirst { earlier = try await peerRun() }
            if peerGriot != nil { print("-- griot, \(griot.executable) --") }
            let run = try await throughGriot(count, tag: tag, executable: griot.executable, stub: stub, group: group, template: template, work: work,
                                             bearer: bearer, peer: peer)
            summaries.append(run.summary)
            if peerGriot != nil, !peerFirst { earlier = try await peerRun() }
            if let earlier { summaries.append("  against the peer service (griot ran \(peerFirst ? "second" : "first")): " + run.ratios(against: earlier)) }
            if cluster {
                print("-- the same chats through nginx, three nodes on PostgreSQL --")
                let fleet = try await throughCluster(count, tag: "c" + tag, stub: stub, group: group, work: work, bearer: bearer, peer: peer)
                summaries.append("3 nodes through nginx: " + fleet.summary)
                summaries.append("  against one node: " + fleet.ratios(against: run))
            }
        }
        print("\n== summary ==")
        for line in summaries { print(line) }
        try await stub.stop()
        try await group.shutdownGracefully()
    }

    // MARK: Runs

    /// The peer: the same chats sent straight to the stub model, no griot between.
    private func direct(_ count: Int, tag: String, stub: PacedModelStub, group: any EventLoopGroup) async throws -> [StreamingChatClient.Outcome] {
        let client = StreamingChatClient(group: group, host: "127.0.0.1", port: stub.port, timeout: timeout)
        let chats = (0..<count).map { index -> StreamingChatClient.Chat in
            let marker = PacedModelStub.markerPrefix + "p\(tag)-\(index)"
            let body: [String: Any] = ["model": "stub-model", "stream": true,
                                       "messages": [["role": "user", "content": Self.question(index, marker: marker)]]]
            return .init(marker: marker, path: "/v1/chat/completions",
                         headers: [("content-type", "application/json"), ("accept", "text/event-stream")],
                         body: Array(try! JSONSerialization.data(withJSONObject: body)), dialect: .openAI)
        }
        return try await send(chats, with: client)
    }

    /// What one service's run measured, for the summary and the ratios against a peer service.
    struct ServiceRun {
        var summary: String
        var firstDelta: Distribution
        var beforeModel: Distribution
        var errors: Int
        var admitCPU: Double?

        func ratios(against peer: ServiceRun) -> String {
            func ratio(_ ours: Double?, _ theirs: Double?) -> String {
                guard let ours, let theirs, theirs > 0 else { return "–" }
                return ServeLoadBenchmark.format(ours / theirs) + "x"
            }
            return "client sent → first delta p50 \(ratio(firstDelta.percentile(0.5), peer.firstDelta.percentile(0.5))), "
                + "p95 \(ratio(firstDelta.percentile(0.95), peer.firstDelta.percentile(0.95))); "
                + "before the model p95 \(ratio(beforeModel.percentile(0.95), peer.beforeModel.percentile(0.95))); "
                + "CPU per admitted chat \(ratio(admitCPU, peer.admitCPU)); errors \(errors) against \(peer.errors)"
        }
    }

    private func throughGriot(_ count: Int, tag: String, executable: String, stub: PacedModelStub, group: any EventLoopGroup, template: URL,
                              work: URL, bearer: [String], peer: Distribution?, isPeer: Bool = false) async throws -> ServiceRun {
        let database = work.appendingPathComponent("serve-\(tag).sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: template.path + suffix) {
            try? FileManager.default.removeItem(atPath: database.path + suffix)
            try FileManager.default.copyItem(atPath: template.path + suffix, toPath: database.path + suffix)
        }
        let (service, client) = try await ServiceProcess.serve(executable, database: database,
                                                               environment: keyed(ServiceProcess.environment(servingModel: stub, prompts: griot.prompts), peer: isPeer),
                                                               log: work.appendingPathComponent("serve-\(tag).log"), group: group, timeout: timeout)
        defer { service.stop() }

        // One chat first, so lazily loaded tables (the BPE ranks) are not charged to the run.
        let warmUp = try await send([griotChat(marker: PacedModelStub.markerPrefix + "w\(tag)", index: 0, token: bearer[0])], with: client)
        guard warmUp.first?.sawDone == true else {
            throw ValidationError("the warm-up chat through griot did not finish (\(warmUp.first?.failure ?? "no done event")); log:\n\(service.logTail())")
        }

        let admitCPU = try await admissionCost(tag: tag, service: service, stub: stub, client: client, bearer: bearer)

        let readyRSS = service.memoryKiB("VmRSS") ?? 0
        let cpuBefore = service.cpuSeconds() ?? 0
        let ownBefore = Self.ownCPUSeconds()
        let machineBefore = Self.machineCPUSeconds()
        let chats = (0..<count).map { griotChat(marker: PacedModelStub.markerPrefix + "g\(tag)-\($0)", index: $0, token: bearer[$0]) }
        stub.resetPeak()
        let started = NIODeadline.now()
        let outcomes = try await send(chats, with: client)
        let elapsed = Double((NIODeadline.now() - started).nanoseconds) / 1e9
        let autosave = try await autosaveLag(client: client)
        let memory = (ready: readyRSS, after: service.memoryKiB("VmRSS") ?? 0, peak: service.memoryKiB("VmHWM") ?? 0)
        let serviceCPU = (service.cpuSeconds() ?? 0) - cpuBefore, benchCPU = Self.ownCPUSeconds() - ownBefore
        let cpu = (service: serviceCPU, bench: benchCPU, others: Self.machineCPUSeconds() - machineBefore - serviceCPU - benchCPU)
        var run = report(griot: outcomes, stub: stub, peer: peer, elapsed: elapsed, memory: memory, cpu: cpu)
        run.admitCPU = admitCPU
        run.summary += (admitCPU.map { "; CPU per admitted chat \(Self.format($0 * 1000)) ms" } ?? "") + "; " + autosave
        return run
    }

    /// The chats through nginx to three nodes on one PostgreSQL, brought up by scripts/cluster.sh
    /// (with the demo corpus) on ports of their own and taken down after; the nodes' CPU is read
    /// from their pid files, PostgreSQL's commits from `pg_stat_database`.
    private func throughCluster(_ count: Int, tag: String, stub: PacedModelStub, group: any EventLoopGroup, work: URL,
                                bearer: [String], peer: Distribution?) async throws -> ServiceRun {
        let folder = work.appendingPathComponent("cluster-\(tag)")
        let script = URL(fileURLWithPath: griot.prompts).standardizedFileURL.deletingLastPathComponent().appendingPathComponent("scripts/cluster.sh").path
        var environment = ServiceProcess.environment(servingModel: stub, prompts: griot.prompts)
        environment.merge(["GRIOT_BIN": URL(fileURLWithPath: griot.executable).standardizedFileURL.path, "GRIOT_CLUSTER_DIR": folder.path,
                           "GRIOT_CLUSTER_PORT": "8070", "GRIOT_CLUSTER_BASE_PORT": "8170", "GRIOT_PG_PORT": "54349",
                           "GRIOT_PG_DIR": folder.appendingPathComponent("pg").path]) { _, new in new }
        func cluster(_ action: String) throws {
            // Through system(3), not Process: on Linux, Process does not see a script exit whose
            // children (the nodes, nginx) keep running. Its output goes to a file for the same reason.
            let assignments = environment.filter { $0.key.hasPrefix("GRIOT_") || $0.key.hasPrefix("OPENAI_") }
                .map { "\($0.key)='\($0.value.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
            let command = "env \(assignments) '\(script)' \(action) >>'\(work.path)/cluster-\(tag).log' 2>&1"
            let status = system(command)
            guard status == 0 else { throw ValidationError("scripts/cluster.sh \(action) exited \(status); see \(work.path)/cluster-\(tag).log") }
        }
        try cluster("up")
        defer { try? cluster("down") }
        let client = StreamingChatClient(group: group, host: "127.0.0.1", port: 8070, timeout: timeout)
        let nodes = (1...3).compactMap { try? String(contentsOf: folder.appendingPathComponent("node-\($0).pid"), encoding: .utf8) }
            .compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        func nodesCPU() -> Double { nodes.compactMap { ServiceProcess.cpuSeconds(stat: "/proc/\($0)/stat") }.reduce(0, +) }
        func commits() -> Double? {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["psql", "postgres://griot:griot@127.0.0.1:54349/griot", "-Atc",
                                 "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"]
            let output = Pipe()
            process.standardOutput = output
            guard (try? process.run()) != nil else { return nil }
            process.waitUntilExit()
            return Double(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let warmUp = try await send((0..<3).map { griotChat(marker: PacedModelStub.markerPrefix + "w\(tag)-\($0)", index: $0, token: bearer[$0]) }, with: client)
        guard warmUp.allSatisfy({ $0.sawDone }) else { throw ValidationError("the warm-up chats through nginx did not finish: \(warmUp.map { $0.failure ?? "done" })") }
        let cpuBefore = nodesCPU(), ownBefore = Self.ownCPUSeconds(), machineBefore = Self.machineCPUSeconds()
        let commitsBefore = commits()
        let chats = (0..<count).map { griotChat(marker: PacedModelStub.markerPrefix + "g\(tag)-\($0)", index: $0, token: bearer[$0]) }
        stub.resetPeak()
        let started = NIODeadline.now()
        let outcomes = try await send(chats, with: client)
        let elapsed = Double((NIODeadline.now() - started).nanoseconds) / 1e9
        let committed = zip(commits().map { [$0] } ?? [], commitsBefore.map { [$0] } ?? []).map { $0 - $1 }.first
        let serviceCPU = nodesCPU() - cpuBefore, benchCPU = Self.ownCPUSeconds() - ownBefore
        let cpu = (service: serviceCPU, bench: benchCPU, others: Self.machineCPUSeconds() - machineBefore - serviceCPU - benchCPU)
        var run = report(griot: outcomes, stub: stub, peer: peer, elapsed: elapsed, memory: (0, 0, 0), cpu: cpu)
        let rate = committed.map { "PostgreSQL \(Int($0)) commits in \(Self.format(elapsed)) s, \(Int($0 / elapsed)) a second" } ?? "PostgreSQL commits not read (psql missing?)"
        print(rate)
        run.summary += "; " + rate
        return run
    }

    /// The CPU of admitting one chat, in seconds: `admitChats` chats at `admitRate` a second
    /// while the stub holds their replies, so that from the first send until the stub holds
    /// the last request the service does nothing else; then the replies (one sentence each) are
    /// released and awaited. Prints the split between the preparation lane (retrieval, the
    /// query embedding, the prompt) and the other threads (HTTP, auth, storing, moderation).
    private func admissionCost(tag: String, service: ServiceProcess, stub: PacedModelStub, client: StreamingChatClient,
                               bearer: [String]) async throws -> Double? {
        guard admitChats > 0 else { return nil }
        let chats = (0..<admitChats).map { griotChat(marker: PacedModelStub.heldPrefix + "\(tag)-\($0)", index: $0, token: bearer[$0]) }
        let heldBefore = stub.heldArrivals
        let cpuBefore = service.cpuSeconds() ?? 0, laneBefore = service.threadCPUSeconds(named: "griot-prepare")
        let start = NIODeadline.now() + .milliseconds(50)
        let futures = chats.enumerated().map { index, chat in
            client.send(chat, at: start + .nanoseconds(Int64(Double(index) / admitRate * 1e9)))
        }
        let limit = NIODeadline.now() + .seconds(Int64(Double(admitChats) / admitRate + timeout))
        while stub.heldArrivals - heldBefore < admitChats, NIODeadline.now() < limit { try await Task.sleep(for: .milliseconds(5)) }
        let arrived = stub.heldArrivals - heldBefore
        let cpu = (service.cpuSeconds() ?? 0) - cpuBefore, lane = service.threadCPUSeconds(named: "griot-prepare") - laneBefore
        stub.releaseHeld()
        let outcomes = try await EventLoopFuture.whenAllSucceed(futures, on: client.group.next()).get()
        var before: [Double] = []
        for outcome in outcomes {
            if let sent = outcome.sentAt, let record = stub.record(marker: outcome.marker) { before.append(Self.milliseconds(from: sent, to: record.arrived)) }
        }
        var failures = Failures()
        for outcome in outcomes { failures.count(outcome, expectedTextEvents: nil, expectedTextBytes: nil) }
        guard arrived == admitChats else {
            print("  admission: only \(arrived) of \(admitChats) held requests reached the stub; no CPU per chat")
            return nil
        }
        let perChat = cpu / Double(admitChats)
        print("  admission, \(admitChats) chats at \(Self.format(admitRate))/s with the model holding its replies: CPU per admitted chat "
              + "\(Self.format(perChat * 1000)) ms (preparation lane \(Self.format(lane / Double(admitChats) * 1000)) ms, other threads "
              + "\(Self.format((cpu - lane) / Double(admitChats) * 1000)) ms); client sent → stub received: \(Distribution(before)); "
              + "after release \(failures)")
        return perChat
    }

    /// The auto-save lag of this run, from the service's `griot_reply_autosave_lag_seconds`
    /// histogram (one sample per delta: sent to the client → its text stored and synced).
    /// Percentiles are the upper bound of the bucket they fall in (5 ms wide below 100 ms, 25 ms
    /// to 1 s), so they are at most one bucket pessimistic.
    private func autosaveLag(client: StreamingChatClient) async throws -> String {
        let probe = StreamingChatClient.Chat(marker: "metrics", method: .GET, path: "/metrics", dialect: .plain, keepsText: true)
        let outcome = try await client.send(probe, at: .now()).get()
        guard outcome.status == 200 else { return "auto-save lag: /metrics answered \(outcome.status.map(String.init) ?? "nothing")" }
        let lag = AutosaveLagHistogram(metrics: outcome.text)
        let line = "auto-save lag, delta sent → text stored and synced: \(lag)"
        print("  " + line)
        if let p99 = lag.percentile(0.99) {
            print("  auto-save p99 against the 500 ms standard: \(Self.format(p99 / 500))x (≤ 1 meets it)")
        }
        return line
    }

    private func griotChat(marker: String, index: Int, token: String) -> StreamingChatClient.Chat {
        .init(marker: marker, path: "/api/griot/chat/stream",
              headers: [("content-type", "application/json"), ("accept", "text/event-stream"), ("authorization", "Bearer \(token)")],
              body: Array(try! JSONSerialization.data(withJSONObject: ["message": Self.question(index, marker: marker)])), dialect: .griot)
    }

    /// Starts the chats evenly over the ramp and waits for every reply to end.
    private func send(_ chats: [StreamingChatClient.Chat], with client: StreamingChatClient) async throws -> [StreamingChatClient.Outcome] {
        let start = NIODeadline.now() + .milliseconds(50)
        let gap = chats.count > 1 ? ramp / Double(chats.count - 1) : 0
        let futures = chats.enumerated().map { index, chat in
            client.send(chat, at: start + .nanoseconds(Int64(Double(index) * gap * 1e9)))
        }
        return try await EventLoopFuture.whenAllSucceed(futures, on: client.group.next()).get()
    }

    private func ingest(into database: URL, with executable: String, log: URL, peer: Bool) throws {
        let started = Date()
        let environment = keyed(ProcessInfo.processInfo.environment, peer: peer)
        try ServiceProcess.ingest(executable, corpus: griot.corpus, into: database, log: log, environment: environment)
        let encrypted = environment["GRIOT_MASTER_KEY_FILE"] != nil ? ", encrypted" : ""
        print("\(executable) ingested \(griot.corpus) into a fresh database\(encrypted) in \(Self.format(Date().timeIntervalSince(started))) s (each run serves a copy)")
    }

    // MARK: Reports

    private func report(peer outcomes: [StreamingChatClient.Outcome], stub: PacedModelStub, elapsed: Double,
                        cpu: (bench: Double, others: Double)) -> Distribution {
        var latency: [Double] = []
        var failures = Failures()
        for outcome in outcomes {
            failures.count(outcome, expectedTextEvents: model.tokens, expectedTextBytes: nil)
            if let first = outcome.firstTextAt, let sent = stub.record(marker: outcome.marker)?.sent.first {
                latency.append(Self.milliseconds(from: sent, to: first))
            }
        }
        let distribution = Distribution(latency)
        print("peer, client → stub directly: \(outcomes.count - failures.total)/\(outcomes.count) streams completed; \(failures); "
              + "at most \(stub.peakActiveReplies) replies streaming at once")
        print("  first token, stub sent → client received: \(distribution)")
        print("  \(Self.format(elapsed)) s for the run; CPU: stub + client \(Self.format(cpu.bench)) s, other processes \(Self.format(max(0, cpu.others))) s")
        return distribution
    }

    private func report(griot outcomes: [StreamingChatClient.Outcome], stub: PacedModelStub, peer: Distribution?, elapsed: Double,
                        memory: (ready: Int, after: Int, peak: Int), cpu: (service: Double, bench: Double, others: Double)) -> ServiceRun {
        let reply = model.reply
        let expectedBytes = reply.joined().utf8.count
        var overhead: [Double] = [], relay: [Double] = [], grouping: [Double] = [], beforeModel: [Double] = []
        var firstDelta: [Double] = [], whole: [Double] = [], tokensInFirst: [Double] = []
        var failures = Failures()
        for outcome in outcomes {
            failures.count(outcome, expectedTextEvents: nil, expectedTextBytes: expectedBytes)
            guard let sentAt = outcome.sentAt else { continue }
            if let ended = outcome.endedAt, outcome.failure == nil { whole.append(Self.milliseconds(from: sentAt, to: ended) / 1000) }
            guard let record = stub.record(marker: outcome.marker) else { continue }
            beforeModel.append(Self.milliseconds(from: sentAt, to: record.arrived))
            guard let first = outcome.firstTextAt, let firstText = outcome.firstText, let firstSent = record.sent.first else { continue }
            overhead.append(Self.milliseconds(from: firstSent, to: first))
            firstDelta.append(Self.milliseconds(from: sentAt, to: first))
            // The tokens the first delta holds: the pipeline regroups the model's tokens before it sends a delta.
            let held = Self.tokensCovering(firstText, in: reply)
            tokensInFirst.append(Double(held))
            if held >= 1, held <= record.sent.count {
                relay.append(Self.milliseconds(from: record.sent[held - 1], to: first))
                grouping.append(Self.milliseconds(from: firstSent, to: record.sent[held - 1]))
            }
        }
        let overheadDistribution = Distribution(overhead)
        let relayDistribution = Distribution(relay)
        let completed = outcomes.count - failures.total
        print("griot serve: \(completed)/\(outcomes.count) streams completed; \(failures)")
        print("  overhead to the first token, stub sent its first token → client received the first delta: \(overheadDistribution)")
        print("    of which waiting for the first delta's tokens (stub's send of its last token − of its first): \(Distribution(grouping))")
        print("    relay, stub sent the first delta's last token → client received the delta (with the sentence gate, one token interval of it is")
        print("    the wait for the piece after the full stop, which confirms the sentence ended): \(relayDistribution)")
        print("    tokens in the first delta: \(Distribution(tokensInFirst, unit: ""))")
        print("  before the model, client sent → stub received the request (auth, storing, retrieval, prompt): \(Distribution(beforeModel))")
        print("  client sent → first delta: \(Distribution(firstDelta)); whole reply: \(Distribution(whole, unit: " s"))")
        print("  \(Self.format(elapsed)) s for the run; the stub had at most \(stub.peakActiveReplies) replies streaming at once")
        print("  griot RSS: \(memory.ready / 1024) MB ready, \(memory.after / 1024) MB after, peak (VmHWM) \(memory.peak / 1024) MB; "
              + "CPU: griot \(Self.format(cpu.service)) s, stub + client \(Self.format(cpu.bench)) s, other processes \(Self.format(max(0, cpu.others))) s")
        if let peer, let peerP95 = peer.percentile(0.95), let relayP95 = relayDistribution.percentile(0.95),
           let overheadP95 = overheadDistribution.percentile(0.95), peerP95 > 0 {
            print("  p95 ratios against the peer's first-token latency: overhead \(Self.format(overheadP95 / peerP95))x, relay \(Self.format(relayP95 / peerP95))x")
        }
        // The time before the model and the streams open at once stand beside the overhead: a
        // service can keep its overhead low by starting chats late, and the summary must show that.
        let before = Distribution(beforeModel)
        let first = Distribution(firstDelta)
        let summary = "\(outcomes.count) chats: \(completed) completed, \(failures.total) errors; client sent → first delta p50/p95/p99 \(first.triple); "
            + "overhead p50/p95/p99 \(overheadDistribution.triple); "
            + "before the model p50/p95 \(before.text(0.5)) / \(before.text(0.95)); at most \(stub.peakActiveReplies) streaming at once; "
            + "peak RSS \(memory.peak / 1024) MB; CPU griot \(Self.format(cpu.service)) s, other processes \(Self.format(max(0, cpu.others))) s; "
            + "\(Self.format(elapsed)) s"
        return ServiceRun(summary: summary, firstDelta: first, beforeModel: before, errors: failures.total)
    }

    /// How many of the reply's tokens, from the first, make up `text` (the first delta).
    static func tokensCovering(_ text: String, in reply: [String]) -> Int {
        var length = 0
        let target = text.utf8.count
        for (index, piece) in reply.enumerated() {
            length += piece.utf8.count
            if length >= target { return index + 1 }
        }
        return reply.count
    }

    // MARK: Data

    /// The stub's reply: common English words, each one token in cl100k_base and o200k_base,
    /// in sentences of 12 (the 12th piece carries the full stop), since the griot's output
    /// stages pass text a whole sentence at a time, as a real model's reply has them.
    static func reply(tokens: Int, sentenceWords: ClosedRange<Int> = 12...12) -> [String] {
        // The lengths are drawn from a fixed seed, so every chat and every run get the same reply.
        var random = SplitMix(seed: 0x6772_696f_74)
        var sentenceEnd = Int.random(in: sentenceWords, using: &random) - 1
        var sentenceStart = 0
        let words = ["The", "river", "rose", "in", "the", "spring", "and", "my", "grandmother", "told", "us", "how", "her", "family",
                     "left", "their", "house", "on", "a", "boat", "with", "two", "cows", "while", "people", "sang", "at", "church", "that",
                     "night", "for", "every", "one", "of", "them", "who", "made", "it", "to", "town"]
        return (0..<tokens).map { index in
            var word = words[index % words.count]
            if index == sentenceStart { word = word.prefix(1).uppercased() + word.dropFirst() }
            let ends = index == sentenceEnd
            if ends {
                sentenceStart = index + 1
                sentenceEnd = index + Int.random(in: sentenceWords, using: &random)
            }
            return (index == 0 ? "" : " ") + word + (ends ? "." : "")
        }
    }

    /// "12" → 12...12, "2-80" → 2...80; nil for anything else.
    static func sentenceLengths(_ text: String) -> ClosedRange<Int>? {
        let parts = text.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard (1...2).contains(parts.count), let low = parts.first ?? nil, let high = parts.last ?? nil, low >= 1, high >= low else { return nil }
        return low...high
    }

    static func question(_ index: Int, marker: String) -> String {
        let questions = [
            "What happened in the 1927 flood?", "Who was Octavia Batiste?", "Tell me about Sunday gumbo.",
            "What did the Pullman porters say about the union?", "How did the family come to Chicago?",
            "What was school like for grandmother?", "Who sang in the church choir?", "What work did they do in the stockyards?",
        ]
        return "\(questions[index % questions.count]) (\(marker))"
    }

    // MARK: Helpers

    static func milliseconds(from start: UInt64, to end: UInt64) -> Double {
        (Double(end) - Double(start)) / 1e6
    }

    static func format(_ value: Double) -> String { String(format: value >= 100 ? "%.0f" : (value >= 10 ? "%.1f" : "%.2f"), value) }

    static func freePort(group: any EventLoopGroup) async throws -> Int {
        let channel = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }

    /// Busy CPU time of the whole machine so far (every process), from `/proc/stat`.
    static func machineCPUSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return 0 }
        let ticks = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard ticks.count >= 8 else { return 0 }
        // user, nice, system, idle, iowait, irq, softirq, steal: all but idle and iowait are busy.
        let busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7]
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func openFileLimit() -> String {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return "\(limit.rlim_cur)"
    }
}

/// Percentiles of a sample (nearest rank), printed as "p50 … p95 … p99 … max … (n)".
struct Distribution: CustomStringConvertible {
    let sorted: [Double]
    let unit: String

    init(_ values: [Double], unit: String = " ms") {
        sorted = values.sorted()
        self.unit = unit
    }

    func percentile(_ p: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
    }

    func text(_ p: Double) -> String { percentile(p).map { ServeLoadBenchmark.format($0) + unit } ?? "–" }

    var triple: String { "\(text(0.5)) / \(text(0.95)) / \(text(0.99))" }

    var description: String {
        guard !sorted.isEmpty else { return "no samples" }
        return "p50 \(text(0.5)), p95 \(text(0.95)), p99 \(text(0.99)), max \(text(1)) (n=\(sorted.count))"
    }
}

/// The chats that did not end as a complete reply, by what went wrong first.
struct Failures: CustomStringConvertible {
    var connection = 0, status = 0, errorEvents = 0, withoutDone = 0, notComplete = 0, truncated = 0
    var examples: [String] = []

    var total: Int { connection + status + errorEvents + withoutDone + notComplete + truncated }

    mutating func count(_ outcome: StreamingChatClient.Outcome, expectedTextEvents: Int?, expectedTextBytes: Int?) {
        var problem: String?
        if let failure = outcome.failure, !(failure.hasPrefix("the connection closed") && outcome.sawDone) {
            connection += 1
            problem = failure
        } else if outcome.status != 200 {
            status += 1
            problem = "HTTP \(outcome.status.map(String.init) ?? "none")"
        } else if !outcome.errorEvents.isEmpty {
            errorEvents += 1
            problem = "error event \(outcome.errorEvents.joined(separator: ", "))"
        } else if !outcome.sawDone {
            withoutDone += 1
            problem = "no done event"
        } else if let status = outcome.doneStatus, status != "complete" {
            notComplete += 1
            problem = "done with status \(status)"
        } else if let expected = expectedTextEvents, outcome.textEvents != expected {
            truncated += 1
            problem = "\(outcome.textEvents) of \(expected) tokens"
        } else if let expected = expectedTextBytes, outcome.textBytes != expected {
            truncated += 1
            problem = "\(outcome.textBytes) of \(expected) bytes of text"
        }
        if let problem, examples.count < 3 { examples.append("\(outcome.marker): \(problem)") }
    }

    var description: String {
        guard total > 0 else { return "0 errors" }
        let parts = [("connection or timeout", connection), ("non-200", status), ("error events", errorEvents), ("without done", withoutDone),
                     ("not complete", notComplete), ("truncated", truncated)].filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }
        return "\(total) errors (\(parts.joined(separator: ", "))); e.g. \(examples.joined(separator: "; "))"
    }
}
