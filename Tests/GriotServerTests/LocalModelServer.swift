import Foundation

/// One of the two tiny models `scripts/local-llm.sh` serves with llama.cpp (docs/LOCAL-MODELS.md),
/// and the provider settings Griot needs to talk to it.
enum LocalModel: String, Sendable {
    case smollm2
    case gemma3

    /// The `--model_alias` the script serves it under: what `OPENAI_MODEL` must name.
    var alias: String {
        switch self {
        case .smollm2: "smollm2-135m-instruct"
        case .gemma3: "gemma-3-270m"
        }
    }

    /// Gemma's base model has no chat template that keeps a system role, so Griot folds its
    /// instructions and sources into the first user message.
    var providerSettings: [String: String] {
        switch self {
        case .smollm2: [:]
        case .gemma3: ["OPENAI_FOLD_SYSTEM": "1"]
        }
    }
}

/// A llama.cpp server started for one test with `scripts/local-llm.sh start MODEL PORT`, in a run
/// folder of its own (its pid, port and log files), so that a test never finds or stops a server
/// someone else started.
///
/// ```swift
/// try await LocalModelServer.with(.smollm2, port: 28181) { server in
///     … point Griot at server.baseURL …
///     #expect(server.log.contains("Disconnected from client"))
/// }
/// ```
struct LocalModelServer: Sendable {
    let model: LocalModel
    let port: Int
    let runDirectory: URL
    /// What `start` printed last: `http://127.0.0.1:PORT/v1`.
    let baseURL: String

    static let script = packageRoot.appendingPathComponent("scripts/local-llm.sh")

    /// The base URL a server of `port` has, whether or not it runs yet.
    static func baseURL(port: Int) -> String { "http://127.0.0.1:\(port)/v1" }

    /// Starts `model` on `port`, runs `body`, and stops the server whatever `body` did.
    static func with<T>(_ model: LocalModel, port: Int, runDirectory: URL? = nil,
                        _ body: (LocalModelServer) async throws -> T) async throws -> T {
        let server = try await start(model, port: port, runDirectory: runDirectory)
        do {
            let value = try await body(server)
            await server.stop()
            return value
        } catch {
            await server.stop()
            throw error
        }
    }

    static func start(_ model: LocalModel, port: Int, runDirectory: URL? = nil) async throws -> LocalModelServer {
        let folder = runDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("griot-llm-\(model.rawValue)-\(port)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (status, output, errors) = try await run(["start", model.rawValue, String(port)], runDirectory: folder)
        let url = output.split(separator: "\n").last.map(String.init) ?? ""
        guard status == 0, url == baseURL(port: port) else {
            throw LocalModelServerError("""
                scripts/local-llm.sh start \(model.rawValue) \(port) failed (exit \(status)); it said:
                \(errors)
                Run scripts/local-llm.sh install first (scripts/test-local-llm.sh does).
                """)
        }
        return LocalModelServer(model: model, port: port, runDirectory: folder, baseURL: url)
    }

    /// `scripts/local-llm.sh stop MODEL`, which waits until the server has gone (and tidies up
    /// after one that was killed).
    func stop() async {
        _ = try? await Self.run(["stop", model.rawValue], runDirectory: runDirectory)
    }

    /// The server's pid, from the script's pid file.
    var pid: Int32? {
        (try? String(contentsOf: runDirectory.appendingPathComponent("\(model.rawValue).pid"), encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Kills the server with SIGKILL, as a crash or the OOM killer would: no goodbye on any connection.
    func kill() throws {
        guard let pid else { throw LocalModelServerError("no pid file in \(runDirectory.path)") }
        guard Foundation.kill(pid, SIGKILL) == 0 else { throw LocalModelServerError("kill -9 \(pid) failed: errno \(errno)") }
    }

    /// Whether the process of `pid` is still there.
    static func isAlive(_ pid: Int32) -> Bool { Foundation.kill(pid, 0) == 0 }

    /// The server's log (uvicorn's access lines, llama.cpp's timings, the server's own prints).
    var log: String {
        (try? String(contentsOf: runDirectory.appendingPathComponent("\(model.rawValue).log"), encoding: .utf8)) ?? ""
    }

    /// The log's last lines, for a failure message.
    var logTail: String { log.split(separator: "\n").suffix(15).joined(separator: "\n") }

    /// Runs the script to its end. Not with Foundation's `Process`: on Linux it learns that a
    /// child ended when a socket it hands the child closes, and the server the script leaves
    /// running in the background inherits that socket, so `start` never seemed to end. Here the
    /// script gets /dev/null and two files and nothing else, and its exit is read with `waitpid`.
    private static func run(_ arguments: [String], runDirectory: URL) async throws -> (status: Int32, output: String, errors: String) {
        let output = runDirectory.appendingPathComponent("script-\(arguments[0]).out")
        let errors = runDirectory.appendingPathComponent("script-\(arguments[0]).err")
        var environment = ProcessInfo.processInfo.environment
        environment["GRIOT_LLM_RUN_DIR"] = runDirectory.path
        // The server prints "Disconnected from client" with print(): unbuffered, it is in the log at once.
        environment["PYTHONUNBUFFERED"] = "1"

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errors.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Every other descriptor the test process left open is closed before the script runs
        // (glibc's closefrom file action is not visible from Swift).
        let closingTheRest = #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-" 2>/dev/null; done; exec /bin/bash "$@""#
        let argv = (["/bin/bash", "-c", closingTheRest, "local-llm", script.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, envp)
        guard spawned == 0 else { throw LocalModelServerError("could not run \(script.path): errno \(spawned)") }

        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped == -1, errno != EINTR { throw LocalModelServerError("waitpid(\(pid)) failed: errno \(errno)") }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Exited: the status is in bits 8-15; killed by a signal: 128 + the signal, as a shell says.
        let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, (try? String(contentsOf: output, encoding: .utf8)) ?? "", (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }
}

struct LocalModelServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
