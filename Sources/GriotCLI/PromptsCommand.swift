import ArgumentParser
import Foundation
import GriotArchive
import GriotPrompts

struct PromptsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompts",
        abstract: "List, check and publish the assistants' versioned prompts (prompts/<assistant>/<version>.md).",
        subcommands: [List.self, Publish.self], defaultSubcommand: List.self)

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
}
