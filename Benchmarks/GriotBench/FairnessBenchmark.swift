import ArgumentParser
import Foundation
import GriotAuth
import NIOCore
import NIOPosix
import Synchronization

/// One user's searches while another floods the service with expensive ones: does the first
/// still get answered about as fast as on a quiet service? (Issue 25, item 3.)
struct FairnessBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fairness",
        abstract: "User B's search latency on a quiet service and while user A floods it with heavy searches; A's 200s and 429s.",
        discussion: """
            Ingests the corpus into a temporary database, starts `griot serve` on it on loopback \
            (development tokens, the offline responder, the route limits of GRIOT_ROUTE_LIMITS or \
            --route-limits, else the defaults), then times --searches sequential searches by user B \
            (short queries, k=10): first on the quiet service, then while user A sends long \
            searches (k=100) as fast as it can on --connections connections, ignoring Retry-After. \
            Every request opens its own connection. Each phase stops after --max-seconds. B's \
            searches are spread over users of 100 searches each (one user's search budget is 120 \
            a minute), so B is never refused by its own limit.
            """)

    @OptionGroup var griot: GriotOptions

    @Option(help: "User B's searches in each phase, one after another.")
    var searches = 200

    @Option(help: "User A's connections, each sending its next search as soon as the last is answered.")
    var connections = 8

    @Option(help: "Results user A asks for.")
    var k = 100

    @Option(help: "Words in each of user A's queries.")
    var queryWords = 60

    @Option(help: "Seconds each phase may last at most.")
    var maxSeconds = 180.0

    @Option(help: "GRIOT_ROUTE_LIMITS for the service (e.g. \"search=1000000/60 in_flight=1000\" for practically none); default: the service's defaults.")
    var routeLimits: String?

    @Option(help: "Event-loop threads of this process.")
    var threads = 1

    @Flag(help: "Keep the temporary folder (database and the service's log).")
    var keep = false

    func validate() throws {
        guard searches >= 1, connections >= 1, (1...100).contains(k), queryWords >= 1, maxSeconds > 0, threads >= 1 else {
            throw ValidationError("--searches, --connections, --query-words and --threads ≥ 1, --k in 1…100, --max-seconds > 0; e.g. --searches 200 --connections 8 --k 100")
        }
    }

    func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("griot-fairness-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer {
            if keep { print("kept \(work.path)") } else { try? FileManager.default.removeItem(at: work) }
        }
        let database = work.appendingPathComponent("fairness.sqlite")
        try ServiceProcess.ingest(griot.executable, corpus: griot.corpus, into: database, log: work.appendingPathComponent("ingest.log"))
        let (service, client) = try await ServiceProcess.serve(griot.executable, database: database, environment: environment(),
                                                               log: work.appendingPathComponent("serve.log"), group: group, timeout: 60)
        defer { service.stop() }

        let minter = try await TokenVerifier.make(AuthConfiguration(hs256Secret: AuthConfiguration.developmentSecret, development: true))
        // B is whoever else uses the service: 200 searches in a few seconds are more than one user's
        // search budget (120 a minute), so B's searches are spread over users of 100 each, new ones
        // for each phase, and none of B's searches is refused by B's own limit.
        var usersB: [String] = []
        for index in 0..<(2 * ((searches + 99) / 100) + 1) {
            usersB.append(try await minter.mintDevelopmentToken(userID: "fairness-b\(index)", role: .client, expiresIn: 3600))
        }
        let userA = try await minter.mintDevelopmentToken(userID: "fairness-a", role: .client, expiresIn: 3600)
        print("griot serve on 127.0.0.1:\(client.port), route limits: \(routeLimits ?? ProcessInfo.processInfo.environment["GRIOT_ROUTE_LIMITS"] ?? "the defaults"); "
              + "\(ProcessInfo.processInfo.activeProcessorCount) cores shared by the service and this client")
        // A few searches first, so that lazily loaded parts (the embedding model's first run) are not charged to B.
        for index in 0..<5 { _ = try await Self.search(Self.searchB(index), token: usersB.last!, client: client) }

        print("\n== quiet: user B alone, \(searches) searches (k=10), one after another (100 per user) ==")
        let quiet = try await timeB(tokens: Array(usersB[0..<(searches + 99) / 100]), client: client)
        print("  B: \(quiet.latency); \(quiet.refused) refused")

        print("\n== loaded: user A on \(connections) connections, \(queryWords)-word queries, k=\(k), as fast as it can ==")
        let flood = Flood()
        let started = ContinuousClock.now
        let (flooders, results, words, deadline) = (connections, k, queryWords, started + .seconds(maxSeconds + 10))
        let attackers = (0..<flooders).map { connection in
            Task {
                var index = connection
                while !flood.stopped, ContinuousClock.now < deadline {
                    let outcome = try await Self.search(Self.searchA(index, k: results, words: words), token: userA, client: client)
                    flood.count(outcome.status)
                    index += flooders
                }
            }
        }
        try await Task.sleep(for: .seconds(1))   // A is in full flow before B starts
        let loaded = try await timeB(tokens: Array(usersB[(searches + 99) / 100..<2 * ((searches + 99) / 100)]), client: client)
        flood.stop()
        for attacker in attackers { try await attacker.value }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let a = flood.counts
        print("  B: \(loaded.latency); \(loaded.refused) refused")
        print("  A: \(a.total) searches in \(ServeLoadBenchmark.format(seconds)) s (\(ServeLoadBenchmark.format(Double(a.total) / seconds))/s): "
              + "\(a.ok) answered 200, \(a.limited) answered 429, \(a.other) other")

        print("\n== summary ==")
        let ratio = (loaded.latency.percentile(0.95) ?? 0) / max(quiet.latency.percentile(0.95) ?? 1, 0.001)
        print("B's search p50 quiet \(quiet.latency.text(0.5)), under A's load \(loaded.latency.text(0.5)); "
              + "p95 quiet \(quiet.latency.text(0.95)), under load \(loaded.latency.text(0.95)): \(ServeLoadBenchmark.format(ratio))x (target ≤ 2x)")
        print("A: \(a.ok) × 200, \(a.limited) × 429, \(a.other) other, of \(a.total)")
        try await group.shutdownGracefully()
    }

    /// The service's environment: development tokens, the offline responder, nothing from the
    /// shell that points it at a model, a key or another database.
    private func environment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_STYLE", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY",
                     "GRIOT_JWT_SECRET", "GRIOT_JWKS_FILE", "GRIOT_JWT_ISSUER", "GRIOT_JWT_AUDIENCE", "GRIOT_DB", "GRIOT_CONFIG"] {
            environment[name] = nil
        }
        environment["GRIOT_AUTH_MODE"] = "development"
        environment["GRIOT_PROVIDER"] = "extractive"
        environment["GRIOT_PROMPTS"] = URL(fileURLWithPath: griot.prompts).standardizedFileURL.path
        if let routeLimits { environment["GRIOT_ROUTE_LIMITS"] = routeLimits }
        return environment
    }

    /// B's searches, one after another, each timed from its start to the end of its answer; the
    /// first 100 by the first of `tokens`, the next 100 by the second, ….
    private func timeB(tokens: [String], client: StreamingChatClient) async throws -> (latency: Distribution, refused: Int) {
        var milliseconds: [Double] = []
        var refused = 0
        let started = ContinuousClock.now
        for index in 0..<searches where ContinuousClock.now - started < .seconds(maxSeconds) {
            let outcome = try await Self.search(Self.searchB(index), token: tokens[index / 100], client: client)
            guard outcome.status == 200, let ended = outcome.endedAt else {
                refused += 1
                continue
            }
            milliseconds.append(Double(ended - outcome.scheduledAt) / 1e6)
        }
        return (Distribution(milliseconds), refused)
    }

    private static func search(_ path: String, token: String, client: StreamingChatClient) async throws -> StreamingChatClient.Outcome {
        let request = StreamingChatClient.Chat(marker: "search", method: .GET, path: path, headers: [("authorization", "Bearer \(token)")], dialect: .plain)
        return try await client.send(request, at: .now()).get()
    }

    /// A person's query: two or three words.
    private static func searchB(_ index: Int) -> String {
        let queries = ["flood", "gumbo recipe", "bees", "church choir", "the river", "grandmother's kitchen", "railroad work", "school days",
                       "moving north", "garden", "wedding", "music"]
        return "/api/stories/search?k=10&q=" + queries[index % queries.count].addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
    }

    /// A flood query: many words, each matching much of the corpus, the most results allowed.
    private static func searchA(_ index: Int, k: Int, words queryWords: Int) -> String {
        let words = ["family", "river", "church", "school", "kitchen", "mother", "father", "work", "house", "town", "music", "story",
                     "summer", "winter", "garden", "road", "water", "train", "market", "song", "night", "morning", "field", "letter"]
        let query = (0..<queryWords).map { words[($0 * 7 + index) % words.count] }.joined(separator: " ")
        return "/api/stories/search?k=\(k)&q=" + query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
    }
}

/// User A's tally, shared by its connections.
private final class Flood: Sendable {
    struct Counts {
        var ok = 0, limited = 0, other = 0
        var total: Int { ok + limited + other }
    }

    private let state = Mutex((counts: Counts(), stopped: false))

    var stopped: Bool { state.withLock { $0.stopped } }
    var counts: Counts { state.withLock { $0.counts } }

    func stop() { state.withLock { $0.stopped = true } }

    func count(_ status: Int?) {
        state.withLock {
            switch status {
            case 200: $0.counts.ok += 1
            case 429: $0.counts.limited += 1
            default: $0.counts.other += 1
            }
        }
    }
}
