import ArgumentParser
import Foundation

@main
struct Griot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "griot",
        abstract: "Ask the family stories: ingest oral-history transcripts, search them, answer from them.",
        subcommands: [ServeCommand.self, AskCommand.self, PromptsCommand.self, SearchCommand.self, IngestCommand.self, DeleteCommand.self, ImportWPACommand.self, ReindexCommand.self, TokenCommand.self, EvalCommand.self, ReplayCommand.self, TurnsCommand.self, MigrateStoreCommand.self, KeysCommand.self, RetentionCommand.self])

    /// A reader that closes the pipe (`griot ask --json | head`) must not kill the process
    /// mid-write: with SIGPIPE ignored the write fails with EPIPE, which the commands handle
    /// (see `StandardOutput`) by stopping and exiting quietly.
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
