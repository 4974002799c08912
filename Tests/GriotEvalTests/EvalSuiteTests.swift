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

    /// Issue 23: a file's own stories beside the bundled corpus, and metrics gated per language.
    @Test func theMultilingualFileNamesItsStoriesAndGatesEachLanguage() throws {
        let suite = try EvalSuite.load(packageRoot.appendingPathComponent("evals/multilingual.yaml"))
        let stories = try #require(suite.stories)
        #expect(stories.hasSuffix("/evals/multilingual/stories") && FileManager.default.fileExists(atPath: stories))
        #expect(Set(suite.cases.compactMap(\.language)) == ["es", "fr", "de", "pl", "zh", "ar"])
        for language in ["es", "fr", "de", "pl", "zh", "ar"] { #expect(suite.gates["citation_hit.\(language)"] == 0.9) }
        #expect(EvalSuite.isKnownGate("citation_hit.es") && !EvalSuite.isKnownGate("hit_at_50.es"))
        #expect(throws: EvalFileError.self) { try EvalSuite.parse("database: wpa\nstories: extra\ngates: {hit_at_5: 1}\ncases: [{id: a, question: b}]", file: "x.yaml") }
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
