import Foundation
import GriotChat
import GriotPrompts

/// An eval-gated prompt release: an assistant's golden questions run with the new version, and
/// the `production` label moves to it only if every gate of every file passes. Each attempt,
/// refused or not, is appended to `prompts/<assistant>/promotions.jsonl` (who, when, metrics).
///
/// ```swift
/// let promotion = PromptPromotion(assistant: "griot", version: 2, by: "ops@example.org")
/// let outcome = try await promotion.run(suites: suites, registry: registry) { suite in try makeEngine(for: suite) }
/// print(outcome.promoted ? "production → v2" : "refused")
/// ```
public struct PromptPromotion: Sendable {
    public static let logFile = "promotions.jsonl"

    public var assistant: String
    public var version: Int
    /// Who asked for the release (recorded).
    public var by: String
    public var now: @Sendable () -> Date

    public init(assistant: String, version: Int, by: String, now: @escaping @Sendable () -> Date = Date.init) {
        self.assistant = assistant
        self.version = version
        self.by = by
        self.now = now
    }

    /// One attempt, as recorded.
    public struct Record: Codable, Sendable, Equatable {
        public var assistant: String
        public var version: Int
        public var promptHash: String
        public var by: String
        public var at: Date
        public var promoted: Bool
        /// The production version before the attempt.
        public var previous: Int?
        /// Per eval file: its metrics.
        public var metrics: [String: [String: Double]]
        /// `file: metric value against threshold` for each gate missed.
        public var failedGates: [String]
        public var casesPassed: Int
        public var cases: Int

        enum CodingKeys: String, CodingKey {
            case assistant, version, by, at, promoted, previous, metrics, cases
            case promptHash = "prompt_hash", failedGates = "failed_gates", casesPassed = "cases_passed"
        }
    }

    public struct Outcome: Sendable {
        public var record: Record
        public var reports: [EvalReport]
        public var promoted: Bool { record.promoted }
    }

    /// The suites that ask this assistant anything: the ones a release of it must pass.
    public func relevant(_ suites: [EvalSuite]) -> [EvalSuite] {
        suites.filter { suite in suite.cases.contains { $0.assistant == assistant } }
    }

    /// Runs the relevant suites with the new version (other assistants at `production`), moves
    /// `production` if all gates pass, and records the attempt. Throws when the version does not
    /// exist or no suite covers the assistant: a release must be measured.
    public func run(suites: [EvalSuite], registry: PromptRegistry, progress: @escaping @Sendable (String, Int, Int) -> Void = { _, _, _ in },
                    engine: (EvalSuite) async throws -> ChatEngine) async throws -> Outcome {
        guard let entry = registry.assistants[assistant], entry.isChatAssistant else {
            throw PromotionError("there is no chat assistant \(assistant); the assistants are \(registry.chatAssistants.joined(separator: ", "))")
        }
        guard let template = entry.versions[version] else {
            throw PromotionError("\(assistant) has no version \(version); write prompts/\(assistant)/\(version).md first (versions: \(entry.versions.keys.sorted().map(String.init).joined(separator: ", ")))")
        }
        let covering = relevant(suites)
        guard !covering.isEmpty else {
            throw PromotionError("no eval file has cases for \(assistant), so a release cannot be measured; add golden questions (evals/README.md) or pass --eval FILE")
        }
        var reports: [EvalReport] = []
        for suite in covering {
            let runner = EvalRunner(engine: try await engine(suite), promptLabels: [assistant: String(version)])
            reports.append(try await runner.run(suite) { done, total in progress(suite.name, done, total) })
        }
        let failed = reports.flatMap { report in
            report.gates.filter { !$0.passed }.map { gate in
                "\(report.name): \(gate.metric) \(gate.value.map { String(format: "%.3f", $0) } ?? "not measured") against \(gate.threshold)"
            }
        }
        let promoted = failed.isEmpty
        let record = Record(
            assistant: assistant, version: version, promptHash: template.textHash, by: by, at: now(), promoted: promoted,
            previous: entry.labels["production"], metrics: Dictionary(uniqueKeysWithValues: reports.map { ($0.name, $0.metrics) }),
            failedGates: failed, casesPassed: reports.flatMap(\.results).filter(\.passed).count, cases: reports.flatMap(\.results).count)
        if promoted {
            try registry.publish(assistant: assistant, version: version, label: "production")
        }
        try append(record, folder: registry.folder.appendingPathComponent(assistant))
        return Outcome(record: record, reports: reports)
    }

    /// Every attempt recorded for an assistant, oldest first.
    public static func history(assistant: String, prompts: URL) throws -> [Record] {
        let url = prompts.appendingPathComponent(assistant).appendingPathComponent(logFile)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try text.split(separator: "\n").map { try decoder.decode(Record.self, from: Data($0.utf8)) }
    }

    private func append(_ record: Record, folder: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let line = try encoder.encode(record) + Data("\n".utf8)
        let url = folder.appendingPathComponent(Self.logFile)
        if !FileManager.default.fileExists(atPath: url.path) { FileManager.default.createFile(atPath: url.path, contents: nil) }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: line)
    }
}

public struct PromotionError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
