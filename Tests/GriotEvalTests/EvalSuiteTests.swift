import Foundation
import GriotEval
import Testing

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Golden-question files: what they hold after defaults, and the errors a broken one gets.
@Suite struct EvalSuiteTests {
    @Test func theReadmesExampleParsesWithDefaultsApplied() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("evals/README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "```yaml\n"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let suite = try EvalSuite.parse(String(readme[start.upperBound..<end.lowerBound]), file: "README.md")
        #expect(suite.name == "demo")
        #expect(suite.database == "demo")
        #expect(suite.gates["privacy_violations"] == 0)
        let item = try #require(suite.cases.first)
        #expect(item.assistant == "griot", "from the defaults")
        #expect(item.viewer == EvalViewer(user: "u-ruth-carter", families: ["fam-carter"]))
        #expect(item.expect.stories == ["carter-1927-flood"])
        #expect(item.expect.mustContain == ["Ida Mae"])
        #expect(item.expect.route == .answer)
        #expect(item.expect.citationRequired)
        #expect(item.expect.grades == ["carter-1927-flood": 2, "carter-leaving-clarksdale": 1])
        #expect(item.expect.latencyMilliseconds == 2000)
    }

    @Test func everyProblemOfAFileIsReportedAtOnceWithTheCase() {
        let text = """
            name: broken
            database: moon
            gates: {hit_at_50: 0.9}
            cases:
              - id: one
                question: Who was Ida Mae?
              - id: one
                question: Again?
              - id: two
            """
        #expect {
            try EvalSuite.parse(text, file: "broken.yaml")
        } throws: { error in
            let message = "\(error)"
            return message.contains("broken.yaml has 4 problems") && message.contains("gate `hit_at_50` is unknown")
                && message.contains("database `moon` is unknown") && message.contains("one: the id is used twice")
                && message.contains("two has no question")
        }
    }

    @Test func aFileThatIsNotYAMLSaysWhereTheFormatIs() {
        #expect {
            try EvalSuite.parse("cases: [unclosed", file: "bad.yaml")
        } throws: { "\($0)".contains("see evals/README.md") }
    }
}
