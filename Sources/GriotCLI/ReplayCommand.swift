import ArgumentParser
import Foundation
import GriotArchive
import GriotChat
import GriotEval
import GriotStore
#if canImport(Glibc)
import Glibc
#endif

extension GriotConfiguration.ProviderChoice: ExpressibleByArgument {}
extension ReplayOptions.Index: ExpressibleByArgument {}

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Re-run a stored turn (or every turn of a thread) with another prompt, model or index, and show what changes.",
        discussion: """
            The replay runs through the same pipeline as the service, in a scratch copy of the \
            thread (nothing is written to anyone's conversation), with the clock at the turn's \
            time. It prints passages added, removed and reordered, the answer as a word diff \
            ([-removed-]{+added+}), citations, flags and the token ledger. With --cassette the \
            provider's recorded reply is played back wherever the request is the same, so a \
            replay with the same settings reproduces the stored text byte for byte. What it shows \
            follows the operators' rule (README, "What operators may read"): private and family-only \
            stories as masked excerpts unless their owner gave a support grant, personal details \
            masked, each read of such a story audited.
            """)

    @Argument(help: "A turn id (the meta event's turn_id) or a thread id.")
    var id: String

    @Option(name: .long, help: "The prompt version or label to replay with (default: the version the turn used).")
    var promptVersion: String?

    @Option(name: .long, help: "The provider: auto, extractive or openai (default: as configured).")
    var provider: GriotConfiguration.ProviderChoice?

    @Option(name: .long, help: "A model in place of the prompt's.")
    var model: String?

    @Option(name: .long, help: "snapshot: the passages the turn retrieved; current: search again on today's index.")
    var index: ReplayOptions.Index = .snapshot

    @Flag(name: .long, help: "Play back the provider's recorded reply where the request is unchanged.")
    var cassette = false

    @Flag(name: .long, help: "Print the results (both snapshots and the diff) as JSON.")
    var json = false

    @OptionGroup var options: ArchiveOptions

    func run() async throws {
        var configuration = try options.configuration()
        if let provider { configuration.provider = provider }
        let archive = try await options.openArchive()
        let engine = try await ChatEngine.open(archive: archive, configuration: configuration,
                                               assistants: try await .served(chats: archive.storage.chats, configuration: configuration))
        let results: [ReplayResult]
        do {
            // The replay's audit entry names who ran it: over HTTP the caller, here the
            // operating-system user ("os:alice").
            results = try await AuditContext.$current.withValue(AuditContext(actorID: Self.operatingSystemActor)) {
                try await OperatorView(engine: engine).results(try await TurnReplayer(engine: engine).replay(
                    id: id, options: ReplayOptions(promptVersion: promptVersion, model: model, index: index, cassette: cassette)))
            }
        } catch let error as ReplayError {
            throw ValidationError(error.description)
        }
        if json {
            print(try Terminal.json(results))
        } else {
            print(ReplayText.render(results))
        }
    }
}

extension ReplayCommand {
    /// "os:" and the login name of the user running the command (from the password database,
    /// else `USER`), as the actor of the audit entries a command-line replay leaves.
    static var operatingSystemActor: String {
        var name: String?
        #if canImport(Glibc)
        if let entry = getpwuid(geteuid()), let login = entry.pointee.pw_name { name = String(cString: login) }
        #endif
        return "os:" + (name ?? ProcessInfo.processInfo.environment["USER"] ?? "unknown")
    }
}
