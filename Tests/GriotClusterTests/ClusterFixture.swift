import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GriotAuth
import GriotTestSupport
import Testing

/// The cluster of `scripts/cluster.sh` (three `griot serve` nodes on one PostgreSQL behind
/// nginx), brought up once for the tests of this target and down after them: its own state
/// folder, ports and PostgreSQL, so a developer's cluster on the defaults (8080, 8181-8183,
/// 54329) is left alone. The nodes' model is a stub server in this process (`ModelSwitch`
/// decides whether it answers or fails).
///
/// ```swift
/// let cluster = try await ClusterFixture.shared.running()
/// let token = try await cluster.token(user: "u-ruth")
/// try await cluster.kill(node: 2); try await cluster.start(node: 2)
/// ```
actor ClusterFixture {
    static let shared = ClusterFixture()

    private var cluster: Cluster?
    private var stub: StubChatServer?

    /// The running cluster; an error when the suite's trait did not bring it up.
    func running() throws -> Cluster {
        guard let cluster else { throw ClusterError("the cluster is not up: run these tests inside ClusterAcceptanceTests (its .cluster trait brings it up)") }
        return cluster
    }

    /// Stops whatever a run before this one left in the state folder, then brings the cluster up.
    func up() async throws -> Cluster {
        if let cluster { return cluster }
        let layout = ClusterLayout()
        try? FileManager.default.removeItem(at: layout.directory.appendingPathComponent("prompts"))
        try FileManager.default.createDirectory(at: layout.directory, withIntermediateDirectories: true)
        let model = ModelSwitch()
        let stub = try await StubChatServer.start(answering: { _, _ in model.reply() })
        self.stub = stub
        let prompts = try layout.promptsWithSecondVersion()
        let environment = layout.environment(modelURL: stub.baseURL, prompts: prompts)
        _ = try? await layout.script(["down"], environment: environment)
        let started = ContinuousClock.now
        let up = try await layout.script(["up"], environment: environment)
        guard up.status == 0 else {
            _ = try? await layout.script(["down"], environment: environment)
            throw ClusterError("scripts/cluster.sh up failed (exit \(up.status)); its output:\n\(up.output.suffix(4000))")
        }
        print("cluster: up in \(started.duration(to: .now)) (\(layout.nodeCount) nodes, nginx on \(layout.balancer))")
        let secret = try String(contentsOf: layout.directory.appendingPathComponent("secret"), encoding: .utf8)
        let verifier = try await TokenVerifier.make(AuthConfiguration(hs256Secret: secret))
        let cluster = Cluster(layout: layout, environment: environment, model: model, stub: stub, verifier: verifier, prompts: prompts)
        self.cluster = cluster
        return cluster
    }

    /// Brings the cluster down (nginx, the nodes, PostgreSQL with its data) and stops the stub.
    func down() async {
        let layout = cluster?.layout ?? ClusterLayout()
        let environment = cluster?.environment ?? layout.environment(modelURL: "http://127.0.0.1:9/v1", prompts: "")
        if let result = try? await layout.script(["down"], environment: environment), result.status != 0 {
            print("cluster: scripts/cluster.sh down exited \(result.status):\n\(result.output.suffix(2000))")
        }
        try? await stub?.stop()
        cluster = nil
        stub = nil
    }
}

/// Where the test cluster lives: its folder, ports and binary. Each can be moved with an
/// environment variable, for a machine where one of them is taken.
struct ClusterLayout: Sendable {
    /// GRIOT_CLUSTER_TESTS=1: only then do the tests bring a cluster up.
    static let testsEnabled = ProcessInfo.processInfo.environment["GRIOT_CLUSTER_TESTS"] == "1"

    let directory: URL
    let nodeCount = 3
    let balancerPort: Int
    let basePort: Int
    let postgresPort: Int
    let binary: URL

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        func port(_ name: String, _ fallback: Int) -> Int { environment[name].flatMap { Int($0) } ?? fallback }
        directory = URL(fileURLWithPath: environment["GRIOT_CLUSTER_TEST_DIR"] ?? "/tmp/griot-cluster-tests")
        balancerPort = port("GRIOT_CLUSTER_TEST_PORT", 8090)
        basePort = port("GRIOT_CLUSTER_TEST_BASE_PORT", 8190)
        postgresPort = port("GRIOT_CLUSTER_TEST_PG_PORT", 54339)
        // The `griot` built beside this test bundle (the target depends on GriotCLI), unless GRIOT_BIN names another.
        binary = environment["GRIOT_BIN"].map { URL(fileURLWithPath: $0) } ?? Bundle.main.bundleURL.appendingPathComponent("griot")
    }

    var balancer: String { "http://127.0.0.1:\(balancerPort)" }
    func node(_ n: Int) -> String { "http://127.0.0.1:\(basePort + n)" }
    var nodes: [String] { (1...nodeCount).map(node) }
    var databaseURL: String { "postgres://griot:griot@127.0.0.1:\(postgresPort)/griot" }

    /// What the script and the nodes get: this process's environment without anything that
    /// would choose another database, secret, provider or port, plus the cluster's settings.
    func environment(modelURL: String, prompts: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { name, _ in
            !(name.hasPrefix("GRIOT_") || name.hasPrefix("OPENAI_") || name.hasPrefix("AZURE_OPENAI_"))
        }
        for name in ["GRIOT_MODEL_DIR", "GRIOT_TOKENIZER_DIR", "GRIOT_SHARED_DATA"] {
            if let value = ProcessInfo.processInfo.environment[name] { environment[name] = value }
        }
        environment.merge([
            "GRIOT_BIN": binary.path,
            "GRIOT_CLUSTER_DIR": directory.path,
            "GRIOT_CLUSTER_NODES": String(nodeCount),
            "GRIOT_CLUSTER_PORT": String(balancerPort),
            "GRIOT_CLUSTER_BASE_PORT": String(basePort),
            "GRIOT_PG_PORT": String(postgresPort),
            "GRIOT_PG_DIR": "/tmp/griot-pg-\(postgresPort)",
            // Only the tests' own stories: the privacy oracle knows every story a search can return.
            "GRIOT_CLUSTER_NO_CORPUS": "1",
            "GRIOT_PROMPTS": prompts,
            "GRIOT_PROVIDER": "openai",
            "OPENAI_BASE_URL": modelURL,
            "OPENAI_MODEL": "stub-model",
            // One attempt a message, so three failing messages are three 5xx the breaker counts;
            // a short open period, so the breaker test leaves a closed breaker behind it.
            "GRIOT_RETRY_ATTEMPTS": "1",
            "GRIOT_BREAKER_FAILURES": "3",
            "GRIOT_BREAKER_OPEN_SECONDS": String(Int(ClusterLayout.breakerOpenSeconds)),
            // Ten thousand searches by a dozen users: the per-node route limits would refuse
            // most of them. The chat message limit (30 a minute, in the database) stays.
            "GRIOT_ROUTE_LIMITS": "probe=1000000/60 read=1000000/60 search=1000000/60 heavy=1000000/60 in_flight=1000",
        ]) { _, new in new }
        return environment
    }

    static let breakerOpenSeconds: Double = 15

    /// A copy of the checkout's prompts beside the cluster, with griot v2: the same instructions,
    /// 5 passages instead of 6 (a settings change the offline responder can judge for a promotion).
    func promptsWithSecondVersion() throws -> String {
        let folder = directory.appendingPathComponent("prompts")
        try FileManager.default.copyItem(at: Self.packageRoot.appendingPathComponent("prompts"), to: folder)
        let first = try String(contentsOf: folder.appendingPathComponent("griot/1.md"), encoding: .utf8)
        let second = first.replacingOccurrences(of: "version: 1\n", with: "version: 2\n").replacingOccurrences(of: "  k: 6\n", with: "  k: 5\n")
        guard second != first, second.contains("  k: 5\n") else { throw ClusterError("prompts/griot/1.md no longer has `version: 1` and `k: 6` to vary") }
        try second.write(to: folder.appendingPathComponent("griot/2.md"), atomically: true, encoding: .utf8)
        return folder.path
    }

    /// Runs scripts/cluster.sh with `arguments`; its stdout and stderr together.
    func script(_ arguments: [String], environment: [String: String]) async throws -> CommandResult {
        try await CommandResult.run(Self.packageRoot.appendingPathComponent("scripts/cluster.sh"), arguments, environment: environment)
    }
}

/// The running cluster: where to reach it, tokens its nodes accept, its model, one node stopped or started.
struct Cluster: Sendable {
    let layout: ClusterLayout
    let environment: [String: String]
    let model: ModelSwitch
    let stub: StubChatServer
    let verifier: TokenVerifier
    /// The prompts folder every node reads.
    let prompts: String

    var balancer: String { layout.balancer }
    var nodes: [String] { layout.nodes }
    func node(_ n: Int) -> String { layout.node(n) }
    var databaseURL: String { layout.databaseURL }

    /// A bearer token the nodes accept (HS256 with the secret scripts/cluster.sh made).
    func token(user: String, role: CallerRole = .client, families: [String] = [], courses: [String]? = nil) async throws -> String {
        try await verifier.mintDevelopmentToken(userID: user, role: role, familyGroupIDs: families, courseIDs: courses, expiresIn: 3600)
    }

    /// SIGKILL to node `n`: it dies with its streams open, as a crashed machine would.
    func kill(node n: Int) async throws { try await nodeCommand(n, "kill") }
    /// SIGTERM to node `n`: it drains (up to 20 s) and stops.
    func stop(node n: Int) async throws { try await nodeCommand(n, "stop") }
    /// Starts node `n` again with the cluster's settings; returns once it is ready.
    func start(node n: Int) async throws { try await nodeCommand(n, "start") }

    private func nodeCommand(_ n: Int, _ action: String) async throws {
        let result = try await layout.script(["node", String(n), action], environment: environment)
        guard result.status == 0 else { throw ClusterError("scripts/cluster.sh node \(n) \(action) exited \(result.status):\n\(result.output.suffix(3000))") }
    }

    /// Runs the cluster's `griot` binary (e.g. `prompts promote … --database`) with the cluster's environment.
    func griot(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> CommandResult {
        try await CommandResult.run(layout.binary, arguments, environment: environment.merging(extra) { _, new in new },
                                    directory: ClusterLayout.packageRoot)
    }
}

/// A child process's exit status and output (stdout and stderr together).
struct CommandResult: Sendable {
    var status: Int32
    var output: String

    /// Runs `executable` to its end. posix_spawn and waitpid rather than Foundation's Process:
    /// on Linux, Process learns of the exit only when every holder of a socket it hands the
    /// child has closed it, and the nodes and nginx that scripts/cluster.sh leaves running hold
    /// it for as long as they run, so `up` never seemed to end.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String],
                    directory: URL = ClusterLayout.packageRoot) async throws -> CommandResult {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("griot-cluster-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // A file, not a pipe: the nodes the script starts in the background inherit it.
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // env -C: the working directory (posix_spawn_file_actions_addchdir_np is not imported).
        let argv = (["/usr/bin/env", "-C", directory.path, executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, envp)
        guard spawned == 0 else { throw ClusterError("could not start \(executable.path): \(String(cString: strerror(spawned)))") }
        let child = pid
        let status: Int32 = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1, errno == EINTR {}
                // The exit code, or 128 + the signal that ended it, as a shell reports it.
                continuation.resume(returning: status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + status & 0x7F)
            }
        }
        return CommandResult(status: status, output: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}

struct ClusterError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
