import Foundation
import GriotChat
import GriotSearch
import GriotStore

/// Runs golden questions through the same pipeline as the service (`ChatEngine.startTurn`),
/// checks each answer against its expectations, and computes the set's metrics and gates.
///
/// ```swift
/// let report = try await EvalRunner(engine: engine).run(suite) { done, total in … }
/// if !report.passed { exit(1) }
/// ```
public struct EvalRunner: Sendable {
    public let engine: ChatEngine
    /// The prompt version each assistant is asked with (a label or a number); `production` otherwise.
    public let promptLabels: [String: String]
    /// Stories within this many of the top retrieved count as a hit.
    public static let hitDepth = 5

    public init(engine: ChatEngine, promptLabels: [String: String] = [:]) {
        self.engine = engine
        self.promptLabels = promptLabels
    }

    public func run(_ suite: EvalSuite, progress: @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> EvalReport {
        var results: [EvalCaseResult] = []
        for (index, item) in suite.cases.enumerated() {
            results.append(try await run(item))
            progress(index + 1, suite.cases.count)
        }
        return EvalReport(suite: suite, results: results)
    }

    func run(_ item: EvalCase) async throws -> EvalCaseResult {
        let viewer = Viewer(userID: item.viewer.user, familyGroupIDs: Set(item.viewer.families))
        var threadID: String?
        for earlier in item.conversation {
            let turn = try await engine.startTurn(TurnRequest(assistant: item.assistant, message: earlier, viewer: viewer, threadID: threadID,
                                                        courseID: item.course, role: item.role, promptLabel: label(item)))
            threadID = turn.threadID
            await turn.finished()
        }
        let started = ContinuousClock.now
        let turn = try await engine.startTurn(TurnRequest(assistant: item.assistant, message: item.question, viewer: viewer, threadID: threadID,
                                                    courseID: item.course, role: item.role, promptLabel: label(item)))
        var citations: [Citation] = []
        var flags: [SafetyFlag] = []
        var summary: TurnSummary?
        var promptTokens: Int?
        for await event in turn.events {
            switch event {
            case .citation(let citation): citations.append(citation)
            case .flag(let flag): flags.append(flag)
            case .budget(let ledger): promptTokens = ledger.promptTokens
            case .done(let done): summary = done
            default: break
            }
        }
        let elapsed = ContinuousClock.now - started
        let stored = try await stored(turnID: turn.id, phrases: item.expect.phrases)
        return EvalCaseResult.judge(item, retrieved: stored.stories, phraseStories: stored.phraseStories, citations: citations, flags: flags,
                                    summary: summary,
                                    milliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
                                    promptTokens: promptTokens, completionTokens: stored.completionTokens)
    }

    private func label(_ item: EvalCase) -> String { promptLabels[item.assistant] ?? "production" }

    /// From the turn's stored snapshot: the retrieved stories in rank order (a story once, at its
    /// best passage), those with a retrieved passage that holds one of `phrases`, and the reply's tokens.
    private func stored(turnID: String, phrases: [String]) async throws -> (stories: [String], phraseStories: Set<String>, completionTokens: Int?) {
        guard let record = try await engine.chats.turn(id: turnID) else { return ([], [], nil) }
        let snapshot = try TurnSnapshot.decode(record.snapshot)
        var stories: [String] = []
        var phraseStories = Set<String>()
        let wanted = phrases.map { $0.lowercased() }
        for passage in snapshot.passages.sorted(by: { $0.number < $1.number }) {
            if !stories.contains(passage.storyID) { stories.append(passage.storyID) }
            if !wanted.isEmpty, let text = try await engine.archive.store.passage(id: passage.passageID)?.text.lowercased(),
               wanted.contains(where: text.contains) {
                phraseStories.insert(passage.storyID)
            }
        }
        // A provider that reports no usage (the offline responder): the reply counted with the ledger's encoding.
        let counted = try snapshot.ledger.map { try engine.counters.counter(for: $0.encoding).count(snapshot.text) }
        return (stories, phraseStories, snapshot.usage?.completionTokens ?? counted)
    }
}

/// What one case's answer showed, and which of its expectations failed.
public struct EvalCaseResult: Codable, Sendable, Equatable {
    public var id: String
    public var kind: String
    /// `tune` or `held_out` (see `EvalCase.split`).
    public var split: String?
    /// The language of the stories asked about, when the file names one (see `EvalCase.language`).
    public var language: String?
    public var passed: Bool
    public var failures: [String]
    public var retrieved: [String]
    public var cited: [String]
    public var route: String
    public var status: String
    public var text: String
    public var flags: [String]
    public var groundedness: Double?
    public var milliseconds: Double
    public var promptTokens: Int?
    public var completionTokens: Int?
    /// Rank (from 1) of the first expected story among the retrieved ones (or of the first story
    /// with a passage that holds an expected phrase); nil when none was expected or found.
    public var firstExpectedRank: Int?
    /// nDCG@10 of the retrieved stories against the case's grades, when it has them.
    public var ndcg: Double?
    public var privacyViolation: Bool
    /// The case's answer facts the answer states, and how many it has (nil: the case has none).
    public var factsStated: Int?
    public var factsExpected: Int?
    /// The answer facts the answer does not state, as written in the file.
    public var factsMissed: [String]?

    // Spelled out so that reports read back exactly (a key strategy would also rename the metrics' keys).
    enum CodingKeys: String, CodingKey {
        case id, kind, split, language, passed, failures, retrieved, cited, route, status, text, flags, groundedness, milliseconds, ndcg
        case promptTokens = "prompt_tokens", completionTokens = "completion_tokens", firstExpectedRank = "first_expected_rank"
        case privacyViolation = "privacy_violation", factsStated = "facts_stated", factsExpected = "facts_expected", factsMissed = "facts_missed"
    }

    static func judge(_ item: EvalCase, retrieved: [String], phraseStories: Set<String> = [], citations: [Citation], flags: [SafetyFlag],
                      summary: TurnSummary?, milliseconds: Double, promptTokens: Int?, completionTokens: Int? = nil) -> EvalCaseResult {
        let expect = item.expect
        let text = summary?.text ?? ""
        let lowered = text.lowercased()
        let cited = citations.map(\.storyID).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let route = flags.contains { $0.kind == .crisis } ? "crisis" : (summary?.status == .blocked ? "block" : "answer")
        var failures: [String] = []
        let rank = retrieved.firstIndex { expect.stories.contains($0) || phraseStories.contains($0) }.map { $0 + 1 }
        if !expect.stories.isEmpty || !expect.phrases.isEmpty, (rank ?? Int.max) > EvalRunner.hitDepth {
            let wanted = expect.stories + expect.phrases.map { "a passage with “\($0)”" }
            failures.append("none of \(wanted.joined(separator: ", ")) in the top \(EvalRunner.hitDepth) (retrieved: \(retrieved.prefix(EvalRunner.hitDepth).joined(separator: ", ")))")
        }
        for phrase in expect.mustContain where !lowered.contains(phrase.lowercased()) { failures.append("the answer lacks “\(phrase)”") }
        for phrase in expect.mustNotContain where lowered.contains(phrase.lowercased()) { failures.append("the answer contains “\(phrase)”") }
        if expect.route.rawValue != route { failures.append("routed \(route), expected \(expect.route.rawValue)") }
        if expect.noContent, !cited.isEmpty { failures.append("expected no content, but it cites \(cited.joined(separator: ", "))") }
        if expect.citationRequired, cited.isEmpty { failures.append("no citation") }
        let leaked = expect.forbiddenStories.filter { retrieved.contains($0) || cited.contains($0) }
        if !leaked.isEmpty { failures.append("privacy: \(leaked.joined(separator: ", ")) reached this viewer") }
        if let bound = expect.latencyMilliseconds, milliseconds > bound { failures.append(String(format: "took %.0f ms, bound %.0f ms", milliseconds, bound)) }
        if route == "answer", summary?.status != .complete { failures.append("the turn ended \(summary?.status.rawValue ?? "without done")") }
        // Facts are measured, not required: a case passes or fails on its other expectations, and
        // the `facts` metrics and gates judge how much of what was asked the answers state.
        let missed = expect.answerFacts.filter { !states(text, fact: $0) }
        return EvalCaseResult(
            id: item.id, kind: item.kind, split: item.split, language: item.language, passed: failures.isEmpty, failures: failures, retrieved: retrieved, cited: cited, route: route,
            status: summary?.status.rawValue ?? "none", text: text, flags: flags.map(\.kind.rawValue), groundedness: summary?.groundedness,
            milliseconds: milliseconds, promptTokens: promptTokens, completionTokens: completionTokens, firstExpectedRank: rank,
            ndcg: expect.grades.isEmpty ? nil : ndcg(retrieved, grades: expect.grades), privacyViolation: !leaked.isEmpty,
            factsStated: expect.answerFacts.isEmpty ? nil : expect.answerFacts.count - missed.count,
            factsExpected: expect.answerFacts.isEmpty ? nil : expect.answerFacts.count,
            factsMissed: expect.answerFacts.isEmpty ? nil : missed)
    }

    /// Whether an answer states a fact: one of its ways of writing is in the answer, ignoring
    /// case, quotation-mark styles and runs of white space ("Sour Apple Tree" in “…sour apple tree”).
    static func states(_ answer: String, fact: String) -> Bool {
        let text = folded(answer)
        return EvalExpectation.alternatives(of: fact).contains { text.contains(folded($0)) }
    }

    private static func folded(_ text: String) -> String {
        var result = ""
        var space = false
        for character in text.lowercased() {
            if character.isWhitespace {
                space = true
                continue
            }
            if space, !result.isEmpty { result.append(" ") }
            space = false
            switch character {
            case "’", "‘", "ʼ", "`": result.append("'")
            case "“", "”", "„": result.append("\"")
            default: result.append(character)
            }
        }
        return result
    }

    /// nDCG@10 with gains 2^grade - 1 and log2 discounts, over stories in rank order.
    static func ndcg(_ ranked: [String], grades: [String: Int], depth: Int = 10) -> Double {
        func dcg(_ gains: [Int]) -> Double {
            gains.prefix(depth).enumerated().reduce(0) { $0 + (pow(2, Double($1.element)) - 1) / log2(Double($1.offset) + 2) }
        }
        let ideal = dcg(grades.values.sorted(by: >))
        return ideal > 0 ? dcg(ranked.map { grades[$0] ?? 0 }) / ideal : 0
    }
}
