import Foundation

/// scripts/otlp-receiver.sh on loopback: an OTLP/HTTP trace endpoint that decodes each export
/// with opentelemetry-proto (the protocol's own classes, from PyPI) and appends the spans, one
/// JSON object a line, to a file the test reads. The system picks its port.
final class OTLPReceiver: Sendable {
    let pid: pid_t
    let port: Int
    let folder: URL

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Starts the receiver; the first run on a machine makes its venv (about 10 s).
    static func start() async throws -> OTLPReceiver {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let portFile = folder.appendingPathComponent("port")
        let script = packageRoot.appendingPathComponent("scripts/otlp-receiver.sh").path
        // Not Foundation's Process: the child gets /dev/null and two files, no pipe of ours (see
        // LocalModelServer.run), and `exec` makes the receiver the process we end.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, folder.appendingPathComponent("receiver.out").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, folder.appendingPathComponent("receiver.err").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let closingTheRest = #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-" 2>/dev/null; done; exec /bin/bash "$@""#
        let arguments: [String] = ["/bin/bash", "-c", closingTheRest, "otlp-receiver", script, "--port-file", portFile.path,
                                   "--spans", folder.appendingPathComponent("spans.jsonl").path]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, envp)
        guard spawned == 0 else { throw OTLPReceiverError("could not run \(script): errno \(spawned)") }
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) {
                return OTLPReceiver(pid: pid, port: port, folder: folder)
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let errors = (try? String(contentsOf: folder.appendingPathComponent("receiver.err"), encoding: .utf8)) ?? ""
                throw OTLPReceiverError("scripts/otlp-receiver.sh ended before listening:\n\(errors)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(pid, SIGKILL)
        throw OTLPReceiverError("scripts/otlp-receiver.sh did not listen within 180 s")
    }

    private init(pid: pid_t, port: Int, folder: URL) {
        self.pid = pid
        self.port = port
        self.folder = folder
    }

    /// Every span received so far.
    var spans: [ReceivedSpan] {
        let text = (try? String(contentsOf: folder.appendingPathComponent("spans.jsonl"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).map(ReceivedSpan.init)
        }
    }

    var errors: String { (try? String(contentsOf: folder.appendingPathComponent("receiver.err"), encoding: .utf8)) ?? "" }

    func stop() {
        // SIGKILL: the child inherits the spawning thread's signal mask, and the concurrency
        // runtime's threads block SIGTERM. Nothing is lost: each batch is written and flushed
        // before it is acknowledged.
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(at: folder)
    }
}

/// One span as the receiver decoded it.
struct ReceivedSpan: @unchecked Sendable {
    let json: [String: Any]
    var name: String { json["name"] as? String ?? "" }
    var traceID: String { json["trace_id"] as? String ?? "" }
    var spanID: String { json["span_id"] as? String ?? "" }
    var parentSpanID: String { json["parent_span_id"] as? String ?? "" }
    var kind: String { json["kind"] as? String ?? "" }
    var attributes: [String: Any] { json["attributes"] as? [String: Any] ?? [:] }
    var events: [[String: Any]] { json["events"] as? [[String: Any]] ?? [] }
    var statusCode: Int { (json["status"] as? [String: Any])?["code"] as? Int ?? 0 }
    var resource: [String: Any] { json["resource"] as? [String: Any] ?? [:] }

    /// Every string in the span's attributes, its events' attributes and its resource, and its name.
    var strings: [String] {
        func flatten(_ value: Any) -> [String] {
            switch value {
            case let text as String: [text]
            case let list as [Any]: list.flatMap(flatten)
            case let object as [String: Any]: object.flatMap { [$0.key] + flatten($0.value) }
            default: ["\(value)"]
            }
        }
        return [name] + flatten(attributes) + events.flatMap(flatten) + flatten(resource)
    }
}

struct OTLPReceiverError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
