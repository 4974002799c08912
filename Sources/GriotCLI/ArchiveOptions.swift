import ArgumentParser
import Foundation
import GriotArchive
import GriotStore

/// The options every command that opens the database shares.
struct ArchiveOptions: ParsableArguments {
    @Option(name: .long, help: "The SQLite database file (default: $GRIOT_DB, else ~/.local/share/griot/griot.sqlite).")
    var db: String?

    @Option(name: .long, help: "A JSON configuration file (see the README).")
    var config: String?

    /// Opens the archive. On first use of the default database, the bundled demo corpus is
    /// ingested so that a new user can search at once.
    func openArchive(seedIfEmpty: Bool = true) throws -> StoryArchive {
        var configuration = try GriotConfiguration.load(file: config)
        if let db {
            configuration.databasePath = db
            configuration.usesDefaultDatabase = false
        }
        let store = try StoryStore(path: configuration.databasePath)
        let archive = try StoryArchive(store: store, configuration: configuration.bm25)
        if seedIfEmpty, configuration.usesDefaultDatabase, archive.storyCount == 0, let corpus = configuration.corpusPath {
            let batch = StoryFiles.read([corpus])
            let progress = ProgressBar(label: "demo corpus")
            let summary = try archive.ingest(batch.stories, progress: progress.update)
            progress.finish()
            Terminal.note("first use: ingested \(summary.added) demo stories from \(corpus) into \(configuration.databasePath)")
        }
        return archive
    }
}

enum Terminal {
    static func note(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}
