import ArgumentParser
import Foundation
import GriotArchive
import GriotChat
import GriotEval
import GriotPrompts

struct PromptsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompts",
        abstract: "List, check and publish the assistants' versioned prompts (prompts/<assistant>/<version>.md).",
        subcommands: [List.self, Publish.self, Promote.self], defaultSubcommand: List.self)

    /// Where the prompts are: --prompts, else the configuration (GRIOT_PROMPTS or the checkout's prompts/).
    struct Location: ParsableArguments {
        @Option(name: .long, help: "The prompts folder (default: $GRIOT_PROMPTS, else prompts/ of the checkout).")
        var prompts: String?

        @Option(name: .long, help: "A JSON configuration file (see the README).")
        var config: String?

        func registry() throws -> PromptRegistry {
            guard let path = try prompts ?? GriotConfiguration.load(file: config).promptsPath else {
                throw ValidationError("the prompts folder was not found; run griot from the checkout, or pass --prompts DIR")
            }
            do {
                return try PromptRegistry.load(folder: URL(fileURLWithPath: path))
            } catch {
                throw ValidationError("\(error)")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check every prompt and list versions, labels and hashes.")
        @OptionGroup var location: Location

        func run() throws {
            let registry = try location.registry()
            for (id, assistant) in registry.assistants.sorted(by: { $0.key < $1.key }) {
                print(id)
                for (version, template) in assistant.versions.sorted(by: { $0.key < $1.key }) {
                    var labels = assistant.labels.filter { $0.value == version }.map(\.key).sorted()
                    if version == assistant.latest { labels.append("latest") }
                    let state = assistant.published[version] == nil ? "draft" : "published"
                    print("  v\(version)  \(state)  \(template.textHash.prefix(19))…  \(labels.joined(separator: ", "))  \(template.created)")
                }
            }
        }
    }

    struct Publish: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish a version (its text becomes immutable), optionally moving a label to it.",
            discussion: "Moving `production` without running the evals is for development; releases go through the eval gate.")
        @Argument(help: "The assistant, e.g. griot.") var assistant: String
        @Argument(help: "The version number.") var version: Int
        @Option(name: .long, help: "A label to move to this version, e.g. production.") var label: String?
        @OptionGroup var location: Location

        func run() throws {
            let registry = try location.registry()
            do {
                try registry.publish(assistant: assistant, version: version, label: label)
            } catch {
                throw ValidationError("\(error)")
            }
            print("published \(assistant) v\(version)\(label.map { "; \($0) → v\(version)" } ?? "")")
        }
    }

    struct Promote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the assistant's eval files with a version and move `production` to it only if every gate passes.",
            discussion: """
                The eval files are those of --eval, else every *.yaml in the evals/ folder beside the \
                prompts folder (with --prompts DIR, DIR/../evals; by default the checkout's evals/) with \
                cases for the assistant (a wpa file only with --db). The other assistants answer at their \
                production versions. The gates run with the configured provider. The offline extractive \
                responder does not read a prompt's wording, so a version whose instructions differ from \
                production's is refused under it unless --allow-offline is given; a change of settings \
                alone (retrieval, budget) it can judge. Every attempt, refused or not, is appended to \
                prompts/<assistant>/promotions.jsonl with who, when, the provider that judged and the \
                metrics, and to the database's log; a promotion moves `production` in the database \
                (--database), where every node of it reads the label within a second. Exits 1 when refused.
                """)
        @Argument(help: "The assistant, e.g. griot.") var assistant: String
        @Argument(help: "The version number.") var version: Int
        @Option(name: .long, help: "An eval file to run (repeatable; default: the evals/*.yaml beside the prompts folder that ask the assistant).")
        var eval: [String] = []
        @Option(name: .long, help: "Who releases it (recorded; default: $USER).") var by: String?
        @Option(name: .long, help: "The prompts folder (default: $GRIOT_PROMPTS, else prompts/ of the checkout); without --eval, the eval files are read from the evals/ folder beside it.") var prompts: String?
        @Option(name: .long, help: "The provider the evals run with: auto, extractive or openai (default: as configured).")
        var provider: GriotConfiguration.ProviderChoice?
        @Flag(name: .long, help: "Let the offline responder judge a version whose instructions changed (it cannot read them; recorded in the promotion log).")
        var allowOffline = false
        @OptionGroup var options: ArchiveOptions

        func run() async throws {
            var configuration = try options.configuration()
            if let prompts { configuration.promptsPath = prompts }
            if let provider { configuration.provider = provider }
            guard let folder = configuration.promptsPath else {
                throw ValidationError("the prompts folder was not found; run griot from the checkout, or pass --prompts DIR")
            }
            let registry: PromptRegistry
            do { registry = try PromptRegistry.load(folder: URL(fileURLWithPath: folder)) } catch { throw ValidationError("\(error)") }
            let promotion = PromptPromotion(assistant: assistant, version: version,
                                            by: by ?? ProcessInfo.processInfo.environment["USER"] ?? "unknown", allowOffline: allowOffline)
            let files = eval.isEmpty ? nil : eval.map { URL(fileURLWithPath: $0) }
            let progress = ProgressBar(label: "\(assistant) v\(version)")
            let outcome: PromptPromotion.Outcome
            do {
                // The database every node reads the `production` label from (and the promotion log).
                let releases = try await options.openStorage().chats
                // The gates of the console's promote too (`EvalBench`, `PromptPromotion`): one path.
                outcome = try await promotion.run(
                    files: try files ?? EvalBench.evalFiles(besidePrompts: URL(fileURLWithPath: folder)),
                    bench: options.evalBench(configuration: configuration, databaseFiles: false), registry: registry, releases: releases,
                    skipped: { suite in Terminal.note("note: \(suite.name) needs a \(suite.database) database; pass --db to include it") },
                    progress: { _, done, total in progress.update(done, total) })
            } catch let error as PromotionError {
                throw ValidationError(error.description)
            } catch let error as EvalBenchError {
                throw ValidationError(error.description)
            }
            progress.finish()
            for report in outcome.reports { print(EvalText.summary(report)) }
            let record = outcome.record
            if let refusal = record.refusal {
                print("refused: \(refusal); production stays at v\(record.previous.map(String.init) ?? "none")")
                throw ExitCode(1)
            }
            print("judged by \(record.judgedBy ?? "?")\(record.allowOffline == true ? " (--allow-offline: the changed instructions were not read)" : "")")
            if record.promoted {
                print("promoted \(assistant) v\(version) to production (was v\(record.previous.map(String.init) ?? "none")); recorded in \(folder)/\(assistant)/\(PromptPromotion.logFile)")
            } else {
                print("refused: \(assistant) v\(version) misses \(record.failedGates.count) gate\(record.failedGates.count == 1 ? "" : "s"); production stays at v\(record.previous.map(String.init) ?? "none")")
                for gate in record.failedGates { print("  \(gate)") }
                throw ExitCode(1)
            }
        }
    }
}
