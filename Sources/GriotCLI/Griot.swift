import ArgumentParser

@main
struct Griot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "griot",
        abstract: "Ask the family stories: ingest oral-history transcripts, search them, answer from them.",
        subcommands: [IngestCommand.self, DeleteCommand.self, ImportWPACommand.self, SearchCommand.self, ReindexCommand.self])
}
