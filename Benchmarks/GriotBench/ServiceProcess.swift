import ArgumentParser
import Foundation
import NIOCore

/// A child process of the benchmark (`griot ingest`, `griot serve`), with its output in a log
/// file and its memory and CPU time read from `/proc`.
///
/// ```swift
/// let service = try ServiceProcess(executable: griot, arguments: ["serve", "--port", "8123"], environment: env, log: logURL)
/// print(service.memoryKiB("VmHWM") ?? 0, service.cpuSeconds() ?? 0)
/// service.stop()
/// ```
final class ServiceProcess {
    let process: Process
    let log: URL

    init(executable: String, arguments: [String], environment: [String: String], log: URL) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ValidationError("no executable at \(executable); build it first (swift build -c release --product griot) or pass --griot")
        }
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        self.log = log
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// A `kB` line of `/proc/PID/status`: `VmRSS` (resident now), `VmHWM` (the peak resident size).
    func memoryKiB(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }

    /// User plus system CPU time so far, from `/proc/PID/stat`.
    func cpuSeconds() -> Double? { Self.cpuSeconds(stat: "/proc/\(pid)/stat") }

    /// CPU time so far of the threads whose name starts with `prefix` (`griot-prepare`: the
    /// preparation lane), from `/proc/PID/task/TID/stat`.
    func threadCPUSeconds(named prefix: String) -> Double {
        let tasks = "/proc/\(pid)/task"
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return threads.reduce(0) { total, thread in
            let name = (try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix(prefix) ? total + (Self.cpuSeconds(stat: "\(tasks)/\(thread)/stat") ?? 0) : total
        }
    }

    static func cpuSeconds(stat path: String) -> Double? {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm) ", fields start at 3 (state); utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Waits for the process to exit; its status.
    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGTERM (the service finishes in-flight streams and exits), then SIGKILL after `grace` seconds.
    func stop(grace: Double = 10) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }

    /// The last `lines` lines of the log, to quote when the process failed.
    func logTail(_ lines: Int = 20) -> String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}

extension ServiceProcess {
    /// The environment for `griot serve` answering from `stub` with the prompts in `prompts`:
    /// nothing from the caller's shell may point the service at another model, key or database.
    static func environment(servingModel stub: PacedModelStub, prompts: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["OPENAI_API_KEY", "OPENAI_API_STYLE", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_DEPLOYMENT",
                     "GRIOT_JWT_SECRET", "GRIOT_JWKS_FILE", "GRIOT_JWT_ISSUER", "GRIOT_JWT_AUDIENCE", "GRIOT_DB", "GRIOT_CONFIG", "GRIOT_PROVIDER"] {
            environment[name] = nil
        }
        environment["GRIOT_AUTH_MODE"] = "development"
        environment["OPENAI_BASE_URL"] = stub.baseURL
        environment["OPENAI_MODEL"] = "stub-model"
        environment["GRIOT_PROMPTS"] = URL(fileURLWithPath: prompts).standardizedFileURL.path
        return environment
    }

    /// `griot ingest corpus --db database`, waited for; throws with its output when it fails.
    static func ingest(_ executable: String, corpus: String, into database: URL, log: URL,
                       environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let ingest = try ServiceProcess(executable: executable, arguments: ["ingest", corpus, "--db", database.path],
                                        environment: environment, log: log)
        guard ingest.wait() == 0 else { throw ValidationError("griot ingest \(corpus) failed; its output:\n\(ingest.logTail())") }
    }

    /// `griot serve` on `database` at a free loopback port, and a client of it, once it is ready.
    /// A service that does not get ready is stopped before this throws; the caller stops the
    /// one it gets.
    static func serve(_ executable: String, database: URL, environment: [String: String], log: URL, group: any EventLoopGroup,
                      timeout: Double) async throws -> (service: ServiceProcess, client: StreamingChatClient) {
        let port = try await ServeLoadBenchmark.freePort(group: group)
        let service = try ServiceProcess(executable: executable, arguments: ["serve", "--host", "127.0.0.1", "--port", String(port), "--db", database.path],
                                         environment: environment, log: log)
        let client = StreamingChatClient(group: group, host: "127.0.0.1", port: port, timeout: timeout)
        do {
            try await service.waitUntilReady(client: client)
        } catch {
            service.stop()
            throw error
        }
        return (service, client)
    }

    /// Returns once the service answers `/readyz` with 200; throws with its log's tail when it
    /// exits first or is not ready within 120 s.
    func waitUntilReady(client: StreamingChatClient) async throws {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            guard isRunning else {
                throw ValidationError("griot serve exited before it was ready; its output:\n\(logTail())")
            }
            let probe = StreamingChatClient.Chat(marker: "readyz", method: .GET, path: "/readyz", dialect: .plain)
            if let outcome = try? await client.send(probe, at: .now()).get(), outcome.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ValidationError("griot serve was not ready within 120 s; its output:\n\(logTail())")
    }
}
