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
    /// Stories within this many of the top retrieved count as a hit.
    public static let hitDepth = 5

    public init(engine: ChatEngine) {
        self.engine = engine
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
            let turn = try engine.startTurn(TurnRequest(assistant: item.assistant, message: earlier, viewer: viewer, threadID: threadID,
                                                        courseID: item.course, role: item.role))
            threadID = turn.threadID
            await turn.finished()
        }
        let started = ContinuousClock.now
        let turn = try engine.startTurn(TurnRequest(assistant: item.assistant, message: item.question, viewer: viewer, threadID: threadID,
                                                    courseID: item.course, role: item.role))
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
        let retrieved = try retrievedStories(turnID: turn.id)
        return EvalCaseResult.judge(item, retrieved: retrieved, citations: citations, flags: flags, summary: summary,
                                    milliseconds: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15,
                                    promptTokens: promptTokens)
    }

    /// The turn's retrieved stories in rank order (a story once, at its best passage), from its stored snapshot.
    private func retrievedStories(turnID: String) throws -> [String] {
        struct Snapshot: Decodable {
            struct Passage: Decodable { var number: Int; var storyId: String }
            var passages: [Passage]
        }
        guard let record = try engine.chats.turn(id: turnID) else { return [] }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let snapshot = try decoder.decode(Snapshot.self, from: Data(record.snapshot.utf8))
        var stories: [String] = []
        for passage in snapshot.passages.sorted(by: { $0.number < $1.number }) where !stories.contains(passage.storyId) {
            stories.append(passage.storyId)
        }
        return stories
    }
}

/// What one case's answer showed, and which of its expectations failed.
public struct EvalCaseResult: Codable, Sendable, Equatable {
    public var id: String
    public var kind: String
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
    /// Rank (from 1) of the first expected story among the retrieved ones; nil when none was expected or found.
    public var firstExpectedRank: Int?
    public var privacyViolation: Bool

    static func judge(_ item: EvalCase, retrieved: [String], citations: [Citation], flags: [SafetyFlag], summary: TurnSummary?,
                      milliseconds: Double, promptTokens: Int?) -> EvalCaseResult {
        let expect = item.expect
        let text = summary?.text ?? ""
        let lowered = text.lowercased()
        let cited = citations.map(\.storyID).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let route = flags.contains { $0.kind == .crisis } ? "crisis" : (summary?.status == .blocked ? "block" : "answer")
        var failures: [String] = []
        let rank = retrieved.firstIndex { expect.stories.contains($0) }.map { $0 + 1 }
        if !expect.stories.isEmpty, (rank ?? Int.max) > EvalRunner.hitDepth {
            failures.append("none of \(expect.stories.joined(separator: ", ")) in the top \(EvalRunner.hitDepth) (retrieved: \(retrieved.prefix(EvalRunner.hitDepth).joined(separator: ", ")))")
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
        return EvalCaseResult(
            id: item.id, kind: item.kind, passed: failures.isEmpty, failures: failures, retrieved: retrieved, cited: cited, route: route,
            status: summary?.status.rawValue ?? "none", text: text, flags: flags.map(\.kind.rawValue), groundedness: summary?.groundedness,
            milliseconds: milliseconds, promptTokens: promptTokens, firstExpectedRank: rank, privacyViolation: !leaked.isEmpty)
    }
}
