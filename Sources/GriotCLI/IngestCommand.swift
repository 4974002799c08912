import ArgumentParser
import GriotArchive

struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Add or update stories from JSON or JSONL files (or folders of them).",
        discussion: """
            Each story is checked field by field; a story with a problem is rejected whole and \
            the others go on. Re-ingesting an artifact_id updates that story. Exits with status 1 \
            when any story was rejected or any path could not be read.
            """)

    @Argument(help: "Story files (.json, .jsonl) or folders to search for them.")
    var paths: [String]

    @OptionGroup var options: ArchiveOptions

    func run() async throws {
        let archive = try await options.openArchive(creating: true)
        let batch = StoryFiles.read(paths)
        for warning in batch.warnings { Terminal.note("warning: \(warning)") }
        for problem in batch.problems { Terminal.note("rejected: \(problem)") }
        let progress = ProgressBar(label: "ingesting")
        let summary = try await archive.ingest(batch.stories, progress: progress.update)
        progress.finish()
        print("\(batch.stories.count + batch.rejectedCount) stories in \(batch.filesRead) files: "
            + "\(summary.added) added, \(summary.updated) updated, \(summary.unchanged) unchanged, \(batch.rejectedCount) rejected")
        if !batch.problems.isEmpty { throw ExitCode(1) }
    }
}

struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Remove a story and its passages.")

    @Argument(help: "The story's artifact_id.")
    var id: String

    @OptionGroup var options: ArchiveOptions

    func run() async throws {
        let archive = try await options.openArchive(embedding: false)
        if try await archive.delete(storyID: id) {
            print("deleted \(id)")
        } else {
            Terminal.note("no story with artifact_id \"\(id)\" in this database; check the id (the artifact_id of the story file) and --db")
            throw ExitCode(1)
        }
    }
}

struct ReindexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reindex",
        abstract: "Re-embed every passage with the current model (after a model change) and rebuild the index.")

    @OptionGroup var options: ArchiveOptions

    func run() async throws {
        let archive = try await options.openArchive()
        let progress = ProgressBar(label: "embedding")
        let count = try await archive.reindex(progress: progress.update)
        progress.finish()
        print("re-embedded \(count) passages with \(archive.embedder?.modelID ?? "?")")
    }
}
