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

extension ArchiveOptions {
    /// The database an eval file runs on. The demo files run on a fresh in-memory copy of the
    /// bundled corpus, so a run never depends on what a local database holds; anything else
    /// needs --db.
    func evalArchive(for suite: EvalSuite, configuration: GriotConfiguration) async throws -> StoryArchive {
        if db != nil || suite.database != "demo" {
            guard db != nil || !configuration.usesDefaultDatabase else {
                throw ValidationError("\(suite.name) runs on the \(suite.database) database; pass --db FILE (made by griot import-wpa)")
            }
            return try await openArchive()
        }
        guard let corpus = configuration.corpusPath else {
            throw ValidationError("the demo corpus (corpus/ of the checkout) was not found; run from the checkout or set GRIOT_CORPUS")
        }
        let archive = StoryArchive(storage: try .inMemory(), configuration: configuration.bm25, embedder: try SentenceEmbedder())
        let progress = ProgressBar(label: "demo corpus")
        // A file's own stories (evals/multilingual/stories) go in beside the bundled corpus.
        let read = StoryFiles.read([corpus] + (suite.stories.map { [$0] } ?? []))
        if let stories = suite.stories, !read.problems.isEmpty {
            throw ValidationError("the stories of \(suite.name) (\(stories)) could not all be read: \(read.problems.prefix(3).map { "\($0)" }.joined(separator: "; "))")
        }
        _ = try await archive.ingest(read.stories, progress: progress.update)
        progress.finish()
        return archive
    }

    /// A fresh engine for an eval file: its database, and a scratch store for the threads it asks in.
    func evalEngine(for suite: EvalSuite, configuration: GriotConfiguration) async throws -> ChatEngine {
        try await ChatEngine.open(archive: try evalArchive(for: suite, configuration: configuration), configuration: configuration,
                                  chats: try Storage.inMemory().chats)
    }
}
