import ArgumentParser

@main
struct Griot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "griot",
        abstract: "Ask the family stories: ingest oral-history transcripts, search them, answer from them.",
        subcommands: [ServeCommand.self, AskCommand.self, PromptsCommand.self, SearchCommand.self, IngestCommand.self, DeleteCommand.self, ImportWPACommand.self, ReindexCommand.self, TokenCommand.self, EvalCommand.self, ReplayCommand.self, TurnsCommand.self])
}
