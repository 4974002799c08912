import Foundation

/// The report as people and CI tools read it.
public enum EvalText {
    public static func summary(_ report: EvalReport) -> String {
        var lines = ["\(report.name): \(report.results.filter(\.passed).count)/\(report.results.count) cases passed"]
        for key in report.metrics.keys.sorted() {
            lines.append("  " + key.padding(toLength: 24, withPad: " ", startingAt: 0) + String(format: " %.3f", report.metrics[key]!))
        }
        lines += breakdown(report).map { "  " + $0 }
        for gate in report.gates {
            let value = gate.value.map { String(format: "%.3f", $0) } ?? "not measured"
            lines.append("  gate \(gate.metric) \(gate.passed ? "passed" : "FAILED"): \(value) against \(gate.threshold)")
        }
        let failed = report.results.filter { !$0.passed }
        if !failed.isEmpty {
            lines.append("  failed cases:")
            lines += failureTable(failed).map { "    " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// The answer metrics per kind of case, then per split (tune, held_out) when the file has both,
    /// then per language when the file names languages.
    static func breakdown(_ report: EvalReport) -> [String] {
        let columns = ["cases_passed", "hit_at_5", "citation_hit", "facts", "place_listed", "no_content_correct"]
        func row(_ name: String, _ metrics: [String: Double], count: Int) -> [String] {
            [name, String(count)] + columns.map { metrics[$0].map { String(format: "%.3f", $0) } ?? "-" }
        }
        var rows: [[String]] = []
        for (kind, metrics) in (report.kinds ?? [:]).sorted(by: { $0.key < $1.key }) {
            rows.append(row(kind, metrics, count: report.results.filter { $0.kind == kind }.count))
        }
        for (split, metrics) in (report.splits ?? [:]).sorted(by: { $0.key > $1.key }) {
            rows.append(row("split " + split, metrics, count: report.results.filter { ($0.split ?? EvalCase.tuningSplit) == split }.count))
        }
        for (language, metrics) in (report.languages ?? [:]).sorted(by: { $0.key < $1.key }) {
            rows.append(row("language " + language, metrics, count: report.results.filter { $0.language == language }.count))
        }
        guard !rows.isEmpty else { return [] }
        let header = ["by kind", "cases", "passed", "hit@5", "cite_hit", "facts", "listed", "no_content"]
        let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max()! }
        return ([header] + rows).map { row in
            (0..<header.count).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }
    }

    /// One row per failed case: id, kind, rank of the first expected story, stories cited,
    /// groundedness, latency, and every failed expectation.
    static func failureTable(_ failed: [EvalCaseResult]) -> [String] {
        let header = ["case", "kind", "rank", "cited", "grounded", "ms", "why"]
        let rows = failed.map { result in
            [result.id, result.kind, result.firstExpectedRank.map(String.init) ?? "-", String(result.cited.count),
             result.groundedness.map { String(format: "%.2f", $0) } ?? "-", String(format: "%.0f", result.milliseconds),
             result.failures.joined(separator: "; ")]
        }
        let widths = (0..<header.count - 1).map { column in ([header] + rows).map { $0[column].count }.max()! }
        return ([header] + rows).map { row in
            (0..<header.count - 1).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ") + "  " + row.last!
        }
    }

    /// Case by case against an earlier run (`--baseline`): cases that failed and now pass, cases
    /// that passed and now fail, cases new or gone, and how each metric moved.
    public static func comparison(_ reports: [EvalReport], baseline: [EvalReport]) -> String {
        var lines: [String] = []
        for report in reports {
            guard let before = baseline.first(where: { $0.name == report.name }) else {
                lines.append("\(report.name): not in the baseline")
                continue
            }
            let old = Dictionary(before.results.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let regressions = report.results.filter { old[$0.id]?.passed == true && !$0.passed }
            let improvements = report.results.filter { old[$0.id]?.passed == false && $0.passed }
            let added = report.results.filter { old[$0.id] == nil }.map(\.id)
            let gone = before.results.map(\.id).filter { id in !report.results.contains { $0.id == id } }
            lines.append("\(report.name) against the baseline: \(regressions.count) regression\(regressions.count == 1 ? "" : "s"), \(improvements.count) improvement\(improvements.count == 1 ? "" : "s")")
            for result in regressions { lines.append("  regressed: \(result.id): \(result.failures.joined(separator: "; "))") }
            for result in improvements { lines.append("  improved:  \(result.id) (was: \(old[result.id]!.failures.joined(separator: "; ")))") }
            if !added.isEmpty { lines.append("  new cases: \(added.joined(separator: ", "))") }
            if !gone.isEmpty { lines.append("  cases no longer in the file: \(gone.joined(separator: ", "))") }
            for key in report.metrics.keys.sorted() {
                guard let now = report.metrics[key], let was = before.metrics[key], abs(now - was) > 1e-9 else { continue }
                lines.append("  " + key.padding(toLength: 24, withPad: " ", startingAt: 0) + String(format: " %.3f → %.3f (%+.3f)", was, now, now - was))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Reads reports written by `griot eval --json`.
    public static func readReports(_ data: Data) throws -> [EvalReport] {
        try JSONDecoder().decode([EvalReport].self, from: data)
    }

    /// The reports as `griot eval --json` writes them (snake_case keys).
    public static func encodeReports(_ reports: [EvalReport]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(reports)
    }

    public static func junit(_ reports: [EvalReport]) -> String {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
        for report in reports {
            let failures = report.results.filter { !$0.passed }.count + report.gates.filter { !$0.passed }.count
            let seconds = report.results.map(\.milliseconds).reduce(0, +) / 1000
            xml += "  <testsuite name=\"\(escape(report.name))\" tests=\"\(report.results.count + report.gates.count)\" failures=\"\(failures)\" time=\"\(String(format: "%.3f", seconds))\">\n"
            for result in report.results {
                xml += "    <testcase classname=\"\(escape(report.name)).\(escape(result.kind))\" name=\"\(escape(result.id))\" time=\"\(String(format: "%.3f", result.milliseconds / 1000))\""
                if result.passed {
                    xml += "/>\n"
                } else {
                    xml += ">\n      <failure message=\"\(escape(result.failures.joined(separator: "; ")))\"/>\n    </testcase>\n"
                }
            }
            for gate in report.gates {
                xml += "    <testcase classname=\"\(escape(report.name)).gates\" name=\"\(escape(gate.metric))\""
                if gate.passed {
                    xml += "/>\n"
                } else {
                    let value = gate.value.map { String(format: "%.3f", $0) } ?? "not measured"
                    xml += ">\n      <failure message=\"\(escape("\(value) against \(gate.threshold)"))\"/>\n    </testcase>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }
}
