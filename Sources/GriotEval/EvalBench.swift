import Foundation
import GriotArchive
import GriotChat
import GriotEmbedding
import GriotPrompts
import GriotStore

/// Where golden-question files run, and the engine that answers them: a fresh in-memory copy of
/// the bundled corpus for a `demo` file (so that a run never depends on what a local database
/// holds), the given database for any other file. `griot eval`, `griot prompts promote` and
/// `POST /api/ops/prompts/{assistant}/promote` all run files here, so a release is judged by
/// the same gates whichever door it comes through.
///
/// ```swift
/// let bench = EvalBench(configuration: configuration)
/// let engine = try await bench.engine(for: try EvalSuite.load(URL(fileURLWithPath: "evals/demo.yaml")))
/// ```
public struct EvalBench: Sendable {
    public var configuration: GriotConfiguration
    /// The database a file of another database (`wpa`) runs on; nil: such files cannot run here.
    public var database: (@Sendable () async throws -> StoryArchive)?
    /// Run the `demo` files on `database` as well, instead of on a copy of the corpus.
    public var demoOnDatabase: Bool
    /// The sentence model the corpus copy is indexed with (nil: loaded for each copy).
    public var embedder: SentenceEmbedder?
    /// The engine over an eval archive; the default is `ChatEngine.open` with the configured
    /// provider and a scratch store for the threads the cases ask in.
    public var makeEngine: @Sendable (StoryArchive, GriotConfiguration) async throws -> ChatEngine
    /// Reports the corpus copy's ingest (done, total).
    public var ingestProgress: @Sendable (Int, Int) -> Void

    public init(configuration: GriotConfiguration, database: (@Sendable () async throws -> StoryArchive)? = nil, demoOnDatabase: Bool = false,
                embedder: SentenceEmbedder? = nil, ingestProgress: @escaping @Sendable (Int, Int) -> Void = { _, _ in },
                makeEngine: @escaping @Sendable (StoryArchive, GriotConfiguration) async throws -> ChatEngine = EvalBench.openEngine) {
        self.configuration = configuration
        self.database = database
        self.demoOnDatabase = demoOnDatabase
        self.embedder = embedder
        self.ingestProgress = ingestProgress
        self.makeEngine = makeEngine
    }

    @Sendable public static func openEngine(archive: StoryArchive, configuration: GriotConfiguration) async throws -> ChatEngine {
        try await ChatEngine.open(archive: archive, configuration: configuration, chats: try Storage.inMemory().chats)
    }

    /// Whether a file can run here: a `demo` file always, another only with a database.
    public func runs(_ suite: EvalSuite) -> Bool {
        suite.database == "demo" || database != nil
    }

    /// The archive a file runs on.
    public func archive(for suite: EvalSuite) async throws -> StoryArchive {
        if demoOnDatabase || suite.database != "demo" {
            guard let database else { throw EvalBenchError.needsDatabase(suite: suite.name, database: suite.database) }
            return try await database()
        }
        guard let corpus = configuration.corpusPath else { throw EvalBenchError.noCorpus }
        let archive = StoryArchive(storage: try .inMemory(), configuration: configuration.bm25, embedder: try embedder ?? SentenceEmbedder())
        // A file's own stories (evals/multilingual/stories) go in beside the bundled corpus.
        let read = StoryFiles.read([corpus] + (suite.stories.map { [$0] } ?? []))
        if let stories = suite.stories, !read.problems.isEmpty {
            throw EvalBenchError.unreadableStories(suite: suite.name, folder: stories, problems: read.problems.prefix(3).map { "\($0)" })
        }
        _ = try await archive.ingest(read.stories, progress: ingestProgress)
        return archive
    }

    /// A fresh engine for a file: its archive, and a scratch store for the threads it asks in.
    public func engine(for suite: EvalSuite) async throws -> ChatEngine {
        try await makeEngine(try await archive(for: suite), configuration)
    }

    /// The eval files a release is measured by when none are named: every `*.yaml` of the
    /// `evals/` folder beside the prompts folder.
    public static func evalFiles(besidePrompts prompts: URL) throws -> [URL] {
        let folder = prompts.deletingLastPathComponent().appendingPathComponent("evals")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let files = names.filter { $0.hasSuffix(".yaml") }.sorted().map { folder.appendingPathComponent($0) }
        guard !files.isEmpty else { throw EvalBenchError.noEvalFiles(folder: folder.path) }
        return files
    }
}

public enum EvalBenchError: Error, CustomStringConvertible, Sendable {
    case needsDatabase(suite: String, database: String)
    case noCorpus
    case unreadableStories(suite: String, folder: String, problems: [String])
    case noEvalFiles(folder: String)

    public var description: String {
        switch self {
        case .needsDatabase(let suite, let database):
            "\(suite) runs on the \(database) database; pass --db FILE (made by griot import-wpa)"
        case .noCorpus:
            "the demo corpus (corpus/ of the checkout) was not found; run from the checkout or set GRIOT_CORPUS"
        case .unreadableStories(let suite, let folder, let problems):
            "the stories of \(suite) (\(folder)) could not all be read: \(problems.joined(separator: "; "))"
        case .noEvalFiles(let folder):
            "no eval files in \(folder); pass --eval FILE"
        }
    }
}

extension PromptPromotion {
    /// A release judged on `bench` by the eval files that ask the assistant anything (those the
    /// bench cannot run are named through `skipped` and left out): the one path of `griot prompts
    /// promote` and of the operators' console. See `run(suites:registry:releases:progress:engine:)`.
    public func run(files: [URL], bench: EvalBench, registry: PromptRegistry, releases: (any PromptReleaseStore)?,
                    skipped: (EvalSuite) -> Void = { _ in },
                    progress: @escaping @Sendable (String, Int, Int) -> Void = { _, _, _ in }) async throws -> Outcome {
        let suites = try files.map { try EvalSuite.load($0) }
        let runnable = relevant(suites).filter { suite in
            if bench.runs(suite) { return true }
            skipped(suite)
            return false
        }
        return try await run(suites: runnable, registry: registry, releases: releases, progress: progress) { suite in
            try await bench.engine(for: suite)
        }
    }
}
