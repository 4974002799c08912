import Foundation
import Testing

/// Issue 26: an eval file with a mistake exits 2 naming it; a failed gate exits 1; --check checks
/// without running.
@Suite struct EvalCommandTests {
    static let good = """
        name: good
        database: demo
        gates: {route_correct: 1.0}
        cases:
          - id: flood
            question: What happened in the 1927 flood?
            expect: {route: answer}
        """

    @Test(arguments: [
        ("gates spelt gate", "name: t\ngate: {hit_at_5: 1.0}\ncases:\n  - id: a\n    question: Who?\n", ["line 2: unknown key `gate`", "did you mean `gates`", "has no `gates:`"]),
        ("a misspelt expectation", "name: t\ngates: {hit_at_5: 1.0}\ncases:\n  - id: a\n    question: Who?\n    expect: {must_contian: [x]}\n",
         ["line 6: unknown key `must_contian` in case `a` (expect)", "did you mean `must_contain`"]),
        ("no cases", "name: t\ngates: {hit_at_5: 1.0}\ncases: []\n", ["line 3: `cases` is empty"]),
        ("empty gates", "name: t\ngates: {}\ncases:\n  - id: a\n    question: Who?\n", ["`gates` is empty"]),
        ("a value of the wrong type", "name: t\ngates: {hit_at_5: 1.0}\ncases:\n  - id: a\n    question: Who?\n    expect: {no_content: maybe}\n",
         ["line 6: cases › case 1 › expect › no_content has a value of the wrong type"]),
    ])
    func aWrongFileExitsTwoNamingTheProblem(_ kind: String, _ text: String, _ said: [String]) throws {
        let sandbox = try GriotSandbox()
        let file = try sandbox.write("broken.yaml", text)
        for arguments in [["eval", "--check", file], ["eval", file]] {
            let run = try sandbox.run(arguments, useDefaultDatabase: true)
            #expect(run.status == 2, "\(kind): \(run.errors)")
            for words in said { #expect(run.errors.contains(words), "\(kind): \(run.errors)") }
        }
    }

    @Test func checkPassesTheProjectsFilesAndAFailedGateExitsOne() throws {
        let sandbox = try GriotSandbox()
        let check = try sandbox.run(["eval", "--check", "evals/demo.yaml", "evals/wpa.yaml", "evals/multilingual.yaml"], useDefaultDatabase: true)
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.output.contains("demo: 72 cases"))
        // A gate no answer can meet: the file is right, the answers fail it.
        let failing = try sandbox.write("failing.yaml", Self.good.replacingOccurrences(of: "route_correct: 1.0", with: "latency_p95_ms: 0"))
        let run = try sandbox.run(["eval", failing], useDefaultDatabase: true)
        #expect(run.status == 1, "\(run.errors)\n\(run.output)")
        let passing = try sandbox.write("good.yaml", Self.good)
        #expect(try sandbox.run(["eval", passing], useDefaultDatabase: true).status == 0)
    }
}
