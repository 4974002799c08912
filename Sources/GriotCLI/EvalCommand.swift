import ArgumentParser
import Foundation
import GriotArchive
import GriotChat
import GriotEmbedding
import GriotEval
import GriotStore

struct EvalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Run golden-question files through the chat pipeline and check their gates.",
        discussion: """
            Each case goes through the same pipeline as the service (moderation, retrieval under the \
            viewer's access, the prompt, the provider, the safety stages). A file whose database is \
            `demo` runs on a fresh copy of the bundled corpus unless --db is given; a `wpa` file needs \
            --db (a database made by griot import-wpa). Exits 1 when a gate fails, 2 when a file is \
            wrong (an unknown key, no gates, no cases, a value of the wrong type: each named with its \
            line); --check only checks the files. The format is in evals/README.md.
            """)

    @Argument(help: "Golden-question files (evals/*.yaml).")
    var files: [String]

    @Option(name: .long, help: "Write the whole report (metrics, gates, every case) as JSON here.")
    var json: String?

    @Option(name: .long, help: "Write the cases as JUnit XML here (one test case each, failures with their reasons).")
    var junit: String?

    @Option(name: .long, help: "A report written earlier with --json: list regressions and improvements case by case.")
    var baseline: String?

    @Option(name: .long, help: "The provider: auto, extractive or openai (default: as configured).")
    var provider: GriotConfiguration.ProviderChoice?

    @Option(name: .long, help: "Only the cases of this split: tune (look at these while tuning) or held_out (judge only).")
    var split: String?

    @Flag(name: .long, help: "Check the files (keys, gates, cases, types) without running them; exits 2 when one is wrong.")
    var check = false

    @OptionGroup var options: ArchiveOptions

    /// Exit status for a file that is wrong, apart from 1 for a gate that failed, so CI can tell
    /// a broken file from a failed answer.
    static let fileErrorStatus: Int32 = 2

    func run() async throws {
        var suites: [EvalSuite] = []
        var broken = false
        for file in files {
            do {
                suites.append(try EvalSuite.load(URL(fileURLWithPath: file)))
            } catch let error as EvalFileError {
                FileHandle.standardError.write(Data("griot eval: \(error)\n".utf8))
                broken = true
            }
        }
        if broken { throw ExitCode(Self.fileErrorStatus) }
        if check {
            for suite in suites { print("\(suite.name): \(suite.cases.count) cases, \(suite.gates.count) gates; the file is well formed") }
            return
        }
        if let split {
            guard [EvalCase.tuningSplit, EvalCase.heldOutSplit].contains(split) else {
                throw ValidationError("--split must be \(EvalCase.tuningSplit) or \(EvalCase.heldOutSplit)")
            }
            for index in suites.indices { suites[index].cases.removeAll { $0.split != split } }
        }
        var configuration = try options.configuration()
        if let provider { configuration.provider = provider }
        var reports: [EvalReport] = []
        for suite in suites {
            let engine = try await options.evalEngine(for: suite, configuration: configuration)
            let progress = ProgressBar(label: suite.name)
            let report = try await EvalRunner(engine: engine).run(suite, progress: progress.update)
            progress.finish()
            print(EvalText.summary(report))
            reports.append(report)
        }
        if let baseline {
            let earlier: [EvalReport]
            do {
                earlier = try EvalText.readReports(Data(contentsOf: URL(fileURLWithPath: baseline)))
            } catch {
                throw ValidationError("the baseline \(baseline) is not a report written by griot eval --json (\(error))")
            }
            print(EvalText.comparison(reports, baseline: earlier))
        }
        if let json { try EvalText.encodeReports(reports).write(to: URL(fileURLWithPath: json)) }
        if let junit { try EvalText.junit(reports).write(toFile: junit, atomically: true, encoding: .utf8) }
        if reports.contains(where: { !$0.passed }) { throw ExitCode(1) }
    }
}

// Two optional strings, parsed once and never changed: an eval bench may open the database from any task.
extension ArchiveOptions: @unchecked Sendable {}

extension ArchiveOptions {
    /// Where eval files run (`EvalBench`): a `demo` file on a fresh in-memory copy of the bundled
    /// corpus unless --db is given; any other file on the database, which must then be named
    /// (--db, or GRIOT_DB). `databaseFiles: false` leaves the latter out unless --db is given.
    func evalBench(configuration: GriotConfiguration, databaseFiles: Bool = true) -> EvalBench {
        let named = db != nil || (databaseFiles && !configuration.usesDefaultDatabase)
        let options = self
        var database: (@Sendable () async throws -> StoryArchive)?
        if named { database = { @Sendable in try await options.openArchive() } }
        let progress = ProgressBar(label: "demo corpus")
        let ingested: @Sendable (Int, Int) -> Void = { done, total in
            progress.update(done, total)
            if done == total { progress.finish() }
        }
        return EvalBench(configuration: configuration, database: database, demoOnDatabase: db != nil, ingestProgress: ingested)
    }

    /// A fresh engine for an eval file: its database, and a scratch store for the threads it asks in.
    func evalEngine(for suite: EvalSuite, configuration: GriotConfiguration) async throws -> ChatEngine {
        do {
            return try await evalBench(configuration: configuration).engine(for: suite)
        } catch let error as EvalBenchError {
            throw ValidationError(error.description)
        }
    }
}
