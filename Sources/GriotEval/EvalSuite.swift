import Foundation
import Yams

/// One golden-question file (`evals/*.yaml`): the database it runs against, its gates and its
/// cases, with the file's defaults applied to each case. The format is in `evals/README.md`.
///
/// ```swift
/// let suite = try EvalSuite.load(URL(fileURLWithPath: "evals/demo.yaml"))
/// for item in suite.cases { print(item.id, item.question) }
/// ```
public struct EvalSuite: Sendable, Equatable {
    public var name: String
    public var description: String
    /// `demo` (the bundled corpus) or `wpa` (a database made by `griot import-wpa`).
    public var database: String
    /// A folder of story files ingested beside the bundled corpus for a `demo` file (`stories:`,
    /// relative to the eval file; made absolute by `load`).
    public var stories: String? = nil
    /// Metric name → threshold. `privacy_violations` is a maximum; every other gate is a minimum.
    public var gates: [String: Double]
    public var cases: [EvalCase]

    public static let knownGates: Set<String> = [
        "hit_at_5", "mrr", "ndcg_at_10", "cases_passed", "groundedness_under_0_4", "latency_p50_ms", "citation_precision", "citation_recall", "must_contain_pass", "must_not_contain_pass",
        "no_content_correct", "route_correct", "privacy_violations", "groundedness_mean", "latency_p95_ms",
        "facts", "citation_hit", "place_listed",
    ]

    /// Whether a gate name is known: one of `knownGates`, or a per-kind answer metric such as
    /// `facts_single` or `facts_person` (the facts stated by the answers of one kind of case).
    public static func isKnownGate(_ name: String) -> Bool {
        // A metric of the cases of one language: "citation_hit.es".
        if let dot = name.firstIndex(of: "."), name.index(after: dot) < name.endIndex { return isKnownGate(String(name[..<dot])) }
        return knownGates.contains(name) || (name.hasPrefix("facts_") && name.count > "facts_".count)
    }

    /// Reads and checks a file; every problem found is reported at once, with the case's id.
    public static func load(_ url: URL) throws -> EvalSuite {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw EvalFileError(file: url.lastPathComponent, problems: ["cannot be read (\(error.localizedDescription)); check the path"])
        }
        var suite = try parse(text, file: url.lastPathComponent)
        if let stories = suite.stories, !stories.hasPrefix("/") {
            suite.stories = url.deletingLastPathComponent().appendingPathComponent(stories).standardizedFileURL.path
        }
        return suite
    }

    public static func parse(_ text: String, file: String) throws -> EvalSuite {
        // The file's shape first (unknown keys with their lines, no gates, no cases), so a typo
        // is an error rather than a key nobody reads.
        let shape = EvalFileSchema.problems(in: text)
        let raw: RawSuite
        do {
            raw = try YAMLDecoder().decode(RawSuite.self, from: text)
        } catch {
            throw EvalFileError(file: file, problems: shape + [Self.describe(error, in: text)])
        }
        var problems: [String] = shape
        let gates = raw.gates ?? [:]
        for name in gates.keys.sorted() where !isKnownGate(name) {
            problems.append("gate `\(name)` is unknown; the gates are \(knownGates.sorted().joined(separator: ", ")), facts_<kind> and <gate>.<language>")
        }
        let database = raw.database ?? "demo"
        if !["demo", "wpa"].contains(database) { problems.append("database `\(database)` is unknown; use demo or wpa") }
        if raw.stories != nil, database != "demo" { problems.append("`stories` adds to the bundled corpus, so it needs database: demo") }
        var seen = Set<String>()
        var cases: [EvalCase] = []
        for (index, item) in (raw.cases ?? []).enumerated() {
            let label = item.id ?? "case \(index + 1)"
            guard let id = item.id, !id.isEmpty else { problems.append("\(label) has no id"); continue }
            if !seen.insert(id).inserted { problems.append("\(id): the id is used twice") }
            guard let question = item.question, !question.trimmingCharacters(in: .whitespaces).isEmpty else {
                problems.append("\(id) has no question")
                continue
            }
            let expect = item.expect ?? RawExpect()
            let route = expect.route ?? .answer
            let viewer = item.viewer ?? raw.defaults?.viewer ?? EvalViewer(user: "u-visitor", families: [])
            let split = item.split ?? EvalCase.tuningSplit
            if ![EvalCase.tuningSplit, EvalCase.heldOutSplit].contains(split) {
                problems.append("\(id): split `\(split)` is unknown; use \(EvalCase.tuningSplit) or \(EvalCase.heldOutSplit)")
            }
            for fact in expect.answer_facts ?? [] where EvalExpectation.alternatives(of: fact).isEmpty {
                problems.append("\(id): an answer fact is empty; write the phrase a good answer states")
            }
            cases.append(EvalCase(
                id: id, kind: item.kind ?? "other", split: split, language: item.language, assistant: item.assistant ?? raw.defaults?.assistant ?? "griot", question: question,
                conversation: item.conversation ?? [], viewer: viewer, course: item.course, role: item.role,
                expect: EvalExpectation(
                    stories: expect.stories ?? [], phrases: expect.phrases ?? [], mustContain: expect.must_contain ?? [],
                    mustNotContain: expect.must_not_contain ?? [], noContent: expect.no_content ?? false,
                    citationRequired: expect.citation_required ?? false, route: route,
                    forbiddenStories: expect.forbidden_stories ?? [], latencyMilliseconds: expect.latency_ms,
                    grades: expect.grades ?? [:], answerFacts: expect.answer_facts ?? [])))
            for (story, grade) in expect.grades ?? [:] where grade < 0 { problems.append("\(id): the grade of \(story) is \(grade); grades are 0 or more") }
        }
        if cases.isEmpty && problems.isEmpty { problems.append("has no cases") }
        guard problems.isEmpty else { throw EvalFileError(file: file, problems: problems) }
        return EvalSuite(name: raw.name ?? file, description: raw.description ?? "", database: database, stories: raw.stories, gates: gates, cases: cases)
    }
}

extension EvalSuite {
    /// A decoding failure as a reader can act on it: where in the file, and what was expected.
    static func describe(_ error: any Error, in text: String) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let line = EvalFileSchema.line(of: context.codingPath, in: text).map { "line \($0): " } ?? ""
            return line + context.codingPath.map { $0.intValue.map { "case \($0 + 1)" } ?? $0.stringValue }.joined(separator: " › ")
        }
        switch error as? DecodingError {
        case .typeMismatch(let type, let context)?:
            return "\(path(context)) has a value of the wrong type: \(type) expected (\(context.debugDescription)); see evals/README.md"
        case .valueNotFound(let type, let context)?:
            return "\(path(context)) has no value: \(type) expected; see evals/README.md"
        case .dataCorrupted(let context)?:
            return "\(path(context)) cannot be read: \(context.debugDescription); see evals/README.md"
        default:
            return "is not a golden-question file: \(error); see evals/README.md for the format"
        }
    }
}

/// One golden question and what its answer must show.
public struct EvalCase: Sendable, Equatable {
    public var id: String
    /// person, place, topic, synthesis, no_content, privacy, coaching, safety
    public var kind: String
    /// `tune` (may be read while a scorer is tuned) or `held_out` (judged, never looked at while tuning).
    public var split: String = EvalCase.tuningSplit
    /// The language of the stories the case asks about (`es`, `zh` ...), when a file measures
    /// languages apart; its metrics are then reported per language, and gated as `<metric>.<language>`.
    public var language: String? = nil
    public var assistant: String
    public var question: String
    /// Earlier user messages asked first, in the same thread.
    public var conversation: [String]
    public var viewer: EvalViewer
    public var course: String?
    public var role: String?
    public var expect: EvalExpectation

    public static let tuningSplit = "tune"
    public static let heldOutSplit = "held_out"
}

public struct EvalViewer: Sendable, Equatable, Decodable {
    public var user: String
    public var families: [String]

    public init(user: String, families: [String]) {
        self.user = user
        self.families = families
    }
}

public struct EvalExpectation: Sendable, Equatable {
    public enum Route: String, Sendable, Equatable, Decodable { case answer, crisis, block }

    /// Stories that should be retrieved in the top 5.
    public var stories: [String]
    /// Words some retrieved passage must contain.
    public var phrases: [String]
    public var mustContain: [String]
    public var mustNotContain: [String]
    public var noContent: Bool
    public var citationRequired: Bool
    public var route: Route
    /// Stories never to be retrieved or cited for this viewer.
    public var forbiddenStories: [String]
    public var latencyMilliseconds: Double?
    /// Graded relevance of stories (story → gain, e.g. 2 central, 1 related), for nDCG@10.
    public var grades: [String: Int] = [:]
    /// Short facts a good answer states, each with its key name, number or phrase; a fact may
    /// be written several ways, split by " | " ("Filmore Taylor | Fillmore Taylor").
    public var answerFacts: [String] = []

    /// The ways a fact may be written.
    static func alternatives(of fact: String) -> [String] {
        fact.components(separatedBy: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// Why a golden-question file cannot be used, with every problem found.
public struct EvalFileError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var problems: [String]

    public var description: String {
        problems.count == 1 ? "\(file) \(problems[0])" : (["\(file) has \(problems.count) problems:"] + problems.map { "  - \($0)" }).joined(separator: "\n")
    }
}

// The file as written, before defaults and checks.
private struct RawSuite: Decodable {
    var name: String?
    var description: String?
    var database: String?
    var stories: String?
    var gates: [String: Double]?
    var defaults: RawDefaults?
    var cases: [RawCase]?
}

private struct RawDefaults: Decodable {
    var assistant: String?
    var viewer: EvalViewer?
}

private struct RawCase: Decodable {
    var id: String?
    var kind: String?
    var split: String?
    var language: String?
    var assistant: String?
    var question: String?
    var conversation: [String]?
    var viewer: EvalViewer?
    var course: String?
    var role: String?
    var expect: RawExpect?
}

private struct RawExpect: Decodable {
    var stories: [String]?
    var phrases: [String]?
    var must_contain: [String]?
    var must_not_contain: [String]?
    var no_content: Bool?
    var citation_required: Bool?
    var route: EvalExpectation.Route?
    var forbidden_stories: [String]?
    var latency_ms: Double?
    var grades: [String: Int]?
    var answer_facts: [String]?
}
