import Foundation
import GriotChat
import GriotPrompts
import GriotStore

/// An eval-gated prompt release: an assistant's golden questions run with the new version, and
/// the `production` label moves to it only if every gate of every file passes. Each attempt,
/// refused or not, is appended to `prompts/<assistant>/promotions.jsonl` (who, when, metrics).
///
/// The gates must be judged by something that reads the prompt. A provider that does not (the
/// offline extractive responder) can judge a version only when its instructions are the same
/// as production's (a change of retrieval or budget settings); a version whose wording differs
/// is refused before any eval runs, unless `allowOffline` is set, which the log records.
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
    /// Judge a version whose instructions changed with a provider that does not read them.
    public var allowOffline: Bool
    public var now: @Sendable () -> Date

    public init(assistant: String, version: Int, by: String, allowOffline: Bool = false, now: @escaping @Sendable () -> Date = Date.init) {
        self.assistant = assistant
        self.version = version
        self.by = by
        self.allowOffline = allowOffline
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
        /// The provider and model the gates ran with ("openai stub-model", "griot-extractive griot-extractive-1").
        public var judgedBy: String?
        /// The prompt sections whose text differs from production's ("system", "command quiz").
        public var changedInstructions: [String]?
        /// Set when `allowOffline` let a provider that does not read instructions judge a change of them.
        public var allowOffline: Bool?
        /// Why the attempt was refused without running the gates, when it was.
        public var refusal: String?

        enum CodingKeys: String, CodingKey {
            case assistant, version, by, at, promoted, previous, metrics, cases, refusal
            case promptHash = "prompt_hash", failedGates = "failed_gates", casesPassed = "cases_passed", judgedBy = "judged_by"
            case changedInstructions = "changed_instructions", allowOffline = "allow_offline"
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
    /// `releases`: the database whose `production` label a promotion moves and whose log records
    /// every attempt, so that every node on it answers with the promoted version (nil: the
    /// prompts folder's files alone).
    public func run(suites: [EvalSuite], registry: PromptRegistry, releases: (any PromptReleaseStore)? = nil,
                    progress: @escaping @Sendable (String, Int, Int) -> Void = { _, _, _ in },
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
        var engines: [ChatEngine] = []
        for suite in covering { engines.append(try await engine(suite)) }
        let judge = engines[0].provider
        // Production as the database has it (a promotion made through any node), else as the files say.
        let current = try await releases?.promptLabels()[assistant]?["production"]?.version ?? entry.labels["production"]
        let production = current.flatMap { entry.versions[$0] }
        // With no production version every section is new.
        let changed = production.map { template.sections.differences(from: $0.sections) } ?? ["system"]
        let offline = !engines.allSatisfy(\.provider.readsInstructions)
        var record = Record(
            assistant: assistant, version: version, promptHash: template.textHash, by: by, at: now(), promoted: false,
            previous: current, metrics: [:], failedGates: [], casesPassed: 0, cases: 0,
            judgedBy: "\(judge.name) \(judge.defaultModel)", changedInstructions: changed,
            allowOffline: offline && !changed.isEmpty && allowOffline ? true : nil)
        if offline, !changed.isEmpty, !allowOffline {
            record.refusal = "\(assistant) v\(version) changes the instructions of production v\(production.map { String($0.version) } ?? "none") "
                + "(\(changed.joined(separator: ", "))), and the gates would run with \(judge.name), which does not read instructions: "
                + "its answers would be the same whatever the new text says. Run the gates with a model (--provider openai with "
                + "OPENAI_BASE_URL, e.g. the local llama.cpp server), or pass --allow-offline to judge by retrieval alone (the promotion log records it)"
            try await log(record, folder: registry.folder.appendingPathComponent(assistant), releases: releases)
            return Outcome(record: record, reports: [])
        }
        var reports: [EvalReport] = []
        for (suite, engine) in zip(covering, engines) {
            let runner = EvalRunner(engine: engine, promptLabels: [assistant: String(version)])
            reports.append(try await runner.run(suite) { done, total in progress(suite.name, done, total) })
        }
        let failed = reports.flatMap { report in
            report.gates.filter { !$0.passed }.map { gate in
                "\(report.name): \(gate.metric) \(gate.value.map { String(format: "%.3f", $0) } ?? "not measured") against \(gate.threshold)"
            }
        }
        let promoted = failed.isEmpty
        record.promoted = promoted
        record.metrics = Dictionary(uniqueKeysWithValues: reports.map { ($0.name, $0.metrics) })
        record.failedGates = failed
        record.casesPassed = reports.flatMap(\.results).filter(\.passed).count
        record.cases = reports.flatMap(\.results).count
        if promoted {
            try registry.publish(assistant: assistant, version: version, label: "production")
            try await releases?.setPromptLabel(assistant: assistant, label: "production",
                                               release: PromptRelease(version: version, textHash: template.textHash), at: now())
        }
        try await log(record, folder: registry.folder.appendingPathComponent(assistant), releases: releases)
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

    /// Appends the attempt to the folder's promotions.jsonl and to the database's log.
    private func log(_ record: Record, folder: URL, releases: (any PromptReleaseStore)?) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let json = try encoder.encode(record)
        try await releases?.appendPromotion(assistant: record.assistant, record: String(decoding: json, as: UTF8.self), at: record.at)
        let line = json + Data("\n".utf8)
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
