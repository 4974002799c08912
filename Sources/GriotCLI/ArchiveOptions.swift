import ArgumentParser
import Foundation
import GriotArchive
import GriotEmbedding
import GriotStore

/// The options every command that opens the database shares.
struct ArchiveOptions: ParsableArguments {
    @Option(name: [.customLong("db"), .customLong("database")],
            help: "The database: a SQLite file (PATH or sqlite:PATH), or postgres://USER:PASSWORD@HOST:PORT/DB shared by several nodes (default: $GRIOT_DATABASE_URL, $GRIOT_DB, else ~/.local/share/griot/griot.sqlite).")
    var db: String?

    @Option(name: .long, help: "A JSON configuration file (see the README).")
    var config: String?

    func configuration() throws -> GriotConfiguration { try GriotConfiguration.load(file: config) }

    /// Opens the archive. On first use of the default database the bundled demo corpus is
    /// ingested (once: emptying the database later does not bring it back). A database named
    /// with --db or GRIOT_DB must exist unless the command creates stories.
    func openArchive(creating: Bool = false, embedding: Bool = true) async throws -> StoryArchive {
        var configuration = try GriotConfiguration.load(file: config)
        if let db {
            configuration.databasePath = db
            configuration.usesDefaultDatabase = false
        }
        let location: StorageLocation
        do { location = try StorageLocation.configured(configuration) } catch { throw ValidationError("\(error)") }
        if !creating, !configuration.usesDefaultDatabase, case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("no database at \(path); ingest stories first (griot ingest FILE --db \(path)) or check the path")
        }
        // The model is loaded before the database is touched, so a missing model changes nothing.
        let embedder = embedding ? try SentenceEmbedder() : nil
        let storage = try await location.open()
        let archive = StoryArchive(storage: storage, configuration: configuration.bm25, embedder: embedder)
        if configuration.usesDefaultDatabase, try await storage.stories.metaValue(Self.seededKey) == nil {
            try await seed(archive, corpus: configuration.corpusPath, into: configuration.databasePath)
        }
        return archive
    }

    /// The database alone, without the index or the demo corpus (for writing prompt releases).
    func openStorage() async throws -> Storage {
        var configuration = try GriotConfiguration.load(file: config)
        if let db { configuration.databasePath = db }
        do { return try await StorageLocation.configured(configuration).open() } catch let error as ChatStoreError { throw ValidationError("\(error)") }
    }

    /// The home database and, with `GRIOT_REGION_DATABASES`, each region's own (once each), for
    /// the commands that look after every database a node writes: key rotation, retention.
    func openEveryStorage() async throws -> [Storage] {
        let home = try await openStorage()
        guard let regions = try GriotConfiguration.load(file: config).regions else { return [home] }
        return [home] + (try await regions.open(home: home).storages)
    }

    private static let seededKey = "demo_corpus_seeded"

    private func seed(_ archive: StoryArchive, corpus: String?, into path: String) async throws {
        guard try await archive.storyCount() == 0 else {
            try await archive.store.setMetaValue(Self.seededKey, "skipped: the database already had stories")
            return
        }
        guard let corpus else {
            Terminal.note("note: the demo corpus (corpus/ of the checkout) was not found, so the database starts empty; set GRIOT_CORPUS to load it")
            return
        }
        let batch = StoryFiles.read([corpus])
        for problem in batch.problems { Terminal.note("demo corpus: \(problem)") }
        let progress = ProgressBar(label: "demo corpus")
        let summary = try await archive.ingest(batch.stories, progress: progress.update)
        progress.finish()
        try await archive.store.setMetaValue(Self.seededKey, ISO8601DateFormatter().string(from: Date()))
        Terminal.note("first use: ingested \(summary.added) demo stories from \(corpus) into \(path)")
    }
}

enum Terminal {
    static func note(_ message: String) {
        StandardOutput.writeError(Data((message + "\n").utf8))
    }

    /// `value` as the JSON the command line prints: snake_case keys, ISO 8601 dates, indented
    /// and sorted, as the service's routes name the same fields.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}
