import Foundation

/// A run of one golden-question file: each case's result, the set's metrics, and its gates.
public struct EvalReport: Codable, Sendable {
    public struct Gate: Codable, Sendable, Equatable {
        public var metric: String
        public var threshold: Double
        /// Nil when no case measured the metric (the gate then fails: a gate must be measured).
        public var value: Double?
        public var passed: Bool
    }

    public var name: String
    public var database: String
    public var metrics: [String: Double]
    public var gates: [Gate]
    public var results: [EvalCaseResult]
    /// The same metrics for each kind of case (person, place, single ...), and for each split
    /// (`tune`, `held_out`) when the file has both; nil in reports written before they existed.
    public var kinds: [String: [String: Double]]?
    public var splits: [String: [String: Double]]?
    /// The same metrics for the cases of each language, when the file names languages.
    public var languages: [String: [String: Double]]?

    public var passed: Bool { gates.allSatisfy(\.passed) }

    enum CodingKeys: String, CodingKey { case name, database, metrics, gates, results, kinds, splits, languages }

    /// Gates on these are maxima; every other gate is a minimum.
    static let maxima: Set<String> = ["privacy_violations", "latency_p95_ms", "latency_p50_ms", "groundedness_under_0_4"]

    public init(suite: EvalSuite, results: [EvalCaseResult]) {
        name = suite.name
        database = suite.database
        self.results = results
        let cases = Dictionary(uniqueKeysWithValues: suite.cases.map { ($0.id, $0) })
        let metrics = Self.metrics(results, cases: cases)
        self.metrics = metrics
        kinds = Dictionary(grouping: results, by: \.kind).mapValues { Self.metrics($0, cases: cases) }
        let bySplit = Dictionary(grouping: results) { $0.split ?? EvalCase.tuningSplit }
        splits = bySplit.count > 1 ? bySplit.mapValues { Self.metrics($0, cases: cases) } : nil
        let byLanguage = Dictionary(grouping: results.filter { $0.language != nil }) { $0.language! }
        let languages = byLanguage.isEmpty ? nil : byLanguage.mapValues { Self.metrics($0, cases: cases) }
        self.languages = languages
        gates = suite.gates.keys.sorted().map { metric in
            let threshold = suite.gates[metric]!
            let value: Double?
            if let dot = metric.firstIndex(of: ".") {
                value = languages?[String(metric[metric.index(after: dot)...])]?[String(metric[..<dot])]
            } else {
                value = metrics[metric]
            }
            let base = metric.split(separator: ".").first.map(String.init) ?? metric
            let passed = value.map { Self.maxima.contains(base) ? $0 <= threshold : $0 >= threshold } ?? false
            return Gate(metric: metric, threshold: threshold, value: value, passed: passed)
        }
    }

    static func metrics(_ results: [EvalCaseResult], cases: [String: EvalCase]) -> [String: Double] {
        var metrics: [String: Double] = [:]
        func share(_ subset: [EvalCaseResult], _ holds: (EvalCaseResult) -> Bool) -> Double? {
            subset.isEmpty ? nil : Double(subset.filter(holds).count) / Double(subset.count)
        }
        func expect(_ result: EvalCaseResult) -> EvalExpectation? { cases[result.id]?.expect }

        let retrieving = results.filter { !(expect($0)?.stories.isEmpty ?? true) || !(expect($0)?.phrases.isEmpty ?? true) }
        metrics["hit_at_5"] = share(retrieving) { ($0.firstExpectedRank ?? Int.max) <= EvalRunner.hitDepth }
        if !retrieving.isEmpty {
            metrics["mrr"] = retrieving.map { $0.firstExpectedRank.map { 1 / Double($0) } ?? 0 }.reduce(0, +) / Double(retrieving.count)
            var cited = 0, relevant = 0, expected = 0, found = 0
            // Citations are judged against named stories; a phrase-only case names none.
            for result in retrieving where !(expect(result)?.stories.isEmpty ?? true) {
                let stories = Set(expect(result)?.stories ?? [])
                cited += result.cited.count
                relevant += result.cited.filter { stories.contains($0) }.count
                expected += stories.count
                found += stories.filter { result.cited.contains($0) }.count
            }
            if cited > 0 { metrics["citation_precision"] = Double(relevant) / Double(cited) }
            if expected > 0 { metrics["citation_recall"] = Double(found) / Double(expected) }
        }
        metrics["must_contain_pass"] = share(results.filter { !(expect($0)?.mustContain.isEmpty ?? true) }) { result in
            !result.failures.contains { $0.hasPrefix("the answer lacks") }
        }
        metrics["must_not_contain_pass"] = share(results.filter { !(expect($0)?.mustNotContain.isEmpty ?? true) }) { result in
            !result.failures.contains { $0.hasPrefix("the answer contains") }
        }
        metrics["no_content_correct"] = share(results.filter { expect($0)?.noContent == true }) { $0.cited.isEmpty }
        metrics["route_correct"] = share(results) { !$0.failures.contains { $0.hasPrefix("routed") } }
        metrics["privacy_violations"] = Double(results.filter(\.privacyViolation).count)
        let grounded = results.compactMap(\.groundedness)
        if !grounded.isEmpty {
            metrics["groundedness_mean"] = grounded.reduce(0, +) / Double(grounded.count)
            metrics["groundedness_under_0_4"] = Double(grounded.filter { $0 < 0.4 }.count) / Double(grounded.count)
        }
        let latencies = results.map(\.milliseconds).sorted()
        if !latencies.isEmpty {
            metrics["latency_p50_ms"] = latencies[(latencies.count - 1) / 2]
            metrics["latency_p95_ms"] = latencies[min(latencies.count - 1, Int((Double(latencies.count) * 0.95).rounded(.up)) - 1)]
        }
        let tokens = results.compactMap(\.promptTokens)
        if !tokens.isEmpty { metrics["tokens_in_mean"] = Double(tokens.reduce(0, +)) / Double(tokens.count) }
        let replies = results.compactMap(\.completionTokens)
        if !replies.isEmpty { metrics["tokens_out_mean"] = Double(replies.reduce(0, +)) / Double(replies.count) }
        let graded = results.compactMap(\.ndcg)
        if !graded.isEmpty { metrics["ndcg_at_10"] = graded.reduce(0, +) / Double(graded.count) }
        metrics["cases_passed"] = share(results) { $0.passed }
        // What the answers state: the share of each case's answer facts found in its answer,
        // averaged over the cases that have them, overall and per kind (facts_single, facts_person ...).
        func factShare(_ subset: [EvalCaseResult]) -> Double? {
            let measured = subset.compactMap { result in result.factsExpected.flatMap { $0 > 0 ? Double(result.factsStated ?? 0) / Double($0) : nil } }
            return measured.isEmpty ? nil : measured.reduce(0, +) / Double(measured.count)
        }
        metrics["facts"] = factShare(results)
        for (kind, subset) in Dictionary(grouping: results, by: \.kind) { metrics["facts_\(kind)"] = factShare(subset) }
        // An answer that cites at least one right story, among cases that name stories and want an answer.
        let answering = results.filter { result in
            guard let expect = expect(result) else { return false }
            return !expect.stories.isEmpty && !expect.noContent && expect.route == .answer
        }
        metrics["citation_hit"] = share(answering) { result in result.cited.contains { expect(result)?.stories.contains($0) ?? false } }
        // Place questions: the share of the interviews filed under the place that the answer cites.
        let places = answering.filter { $0.kind == "place" }
        if !places.isEmpty {
            metrics["place_listed"] = places.map { result in
                let stories = Set(expect(result)?.stories ?? [])
                return Double(stories.filter(result.cited.contains).count) / Double(stories.count)
            }.reduce(0, +) / Double(places.count)
        }
        return metrics
    }
}
