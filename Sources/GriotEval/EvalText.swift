import Foundation

/// The report as people and CI tools read it.
public enum EvalText {
    public static func summary(_ report: EvalReport) -> String {
        var lines = ["\(report.name): \(report.results.filter(\.passed).count)/\(report.results.count) cases passed"]
        for key in report.metrics.keys.sorted() {
            lines.append("  " + key.padding(toLength: 24, withPad: " ", startingAt: 0) + String(format: " %.3f", report.metrics[key]!))
        }
        for gate in report.gates {
            let value = gate.value.map { String(format: "%.3f", $0) } ?? "not measured"
            lines.append("  gate \(gate.metric) \(gate.passed ? "passed" : "FAILED"): \(value) against \(gate.threshold)")
        }
        let failed = report.results.filter { !$0.passed }
        if !failed.isEmpty {
            lines.append("  failed cases:")
            for result in failed { lines.append("    \(result.id) (\(result.kind)): \(result.failures.joined(separator: "; "))") }
        }
        return lines.joined(separator: "\n")
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
