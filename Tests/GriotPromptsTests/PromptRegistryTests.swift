import Foundation
@testable import GriotPrompts
import Testing

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A copy of the shipped prompts in a temporary folder, to break on purpose.
func promptsCopy() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-prompts-\(UUID().uuidString)")
    try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("prompts"), to: folder)
    return folder
}

func problems(loading folder: URL) -> String {
    do {
        _ = try PromptRegistry.load(folder: folder)
        return ""
    } catch {
        return "\(error)"
    }
}

@Suite struct PromptRegistryTests {
    @Test func theShippedPromptsLoadWithTheirProductionVersions() throws {
        let registry = try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts"))
        #expect(Set(registry.assistants.keys).isSuperset(of: ["griot", "coach"]))
        let griot = try registry.template(for: "griot")
        #expect(griot.version == 1)
        #expect(griot.textHash.hasPrefix("sha256:") && griot.textHash.count == 7 + 64)
        #expect(griot.retrieval.k > 0)
        #expect(griot.budget.total == 4000)
        #expect(griot.safety.contains(.citations))
        #expect(Set(griot.commands) == ["quiz", "summary", "resources"])
        let coach = try registry.template(for: "coach", label: "latest")
        #expect(Set(coach.roles) == ["client", "coach"])
        #expect(coach.retrieval.k == 0)
    }

    @Test func theTurnsPromptHasTheRoleCommandAndLanguageVariants() throws {
        let coach = try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts")).template(for: "coach")
        let client = try coach.systemPrompt(role: "client", command: nil, values: ["course_title": "Rooted Leadership", "user_name": "Ana"])
        #expect(client.contains("Rooted Leadership") && client.contains("Ana"))
        #expect(client.contains("talking with a client"))
        #expect(!client.contains("{{"))
        let coaching = try coach.systemPrompt(role: "coach", command: "summary", language: "es")
        #expect(coaching.contains("talking with the coach"))
        #expect(coaching.contains("summary of this conversation"))
        #expect(coaching.contains("Write your reply in Spanish."))
        #expect(throws: PromptError.self) { try coach.systemPrompt(role: "auditor", command: nil) }
        // English needs no instruction.
        #expect(!(try coach.systemPrompt(role: "client", command: nil, language: "en")).contains("Write your reply in"))
    }

    @Test func anUnknownPlaceholderIsAnErrorNamingTheFileAndLine() throws {
        let folder = try promptsCopy()
        let file = folder.appendingPathComponent("griot/2.md")
        var text = try String(contentsOf: folder.appendingPathComponent("griot/1.md"), encoding: .utf8)
        text = text.replacingOccurrences(of: "version: 1", with: "version: 2")
            .replacingOccurrences(of: "You are speaking with {{user_name}}.", with: "You are speaking with {{usr_name}}.")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let message = problems(loading: folder)
        #expect(message.contains("griot/2.md"))
        #expect(message.contains("unknown placeholder {{usr_name}}"))
        #expect(message.contains("line "))
    }

    @Test func aMissingFieldIsAnErrorNamingTheFile() throws {
        let folder = try promptsCopy()
        var text = try String(contentsOf: folder.appendingPathComponent("coach/1.md"), encoding: .utf8)
        text = text.replacingOccurrences(of: "version: 1", with: "version: 2").replacingOccurrences(of: "created: 2026-11-22\n", with: "")
        try text.write(to: folder.appendingPathComponent("coach/2.md"), atomically: true, encoding: .utf8)
        let message = problems(loading: folder)
        #expect(message.contains("coach/2.md: is missing the field `created`"))
    }

    @Test func changingThePublishedTextOfAVersionIsAnError() throws {
        let folder = try promptsCopy()
        let file = folder.appendingPathComponent("griot/1.md")
        let text = try String(contentsOf: file, encoding: .utf8)
        try text.replacingOccurrences(of: "Be warm and plain-spoken.", with: "Be brief.").write(to: file, atomically: true, encoding: .utf8)
        let message = problems(loading: folder)
        #expect(message.contains("griot/1.md: changed after version 1 was published"))
        #expect(message.contains("griot/2.md"), "the message says where the change belongs")
    }

    @Test func theCrisisReplyIsAVersionedResponseNobodyChatsWith() throws {
        let registry = try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts"))
        let crisis = try registry.template(for: "crisis")
        #expect(crisis.kind == .response)
        #expect(crisis.version == 1)
        #expect(try crisis.systemPrompt(role: nil, command: nil).contains("988"))
        #expect(registry.chatAssistants == ["coach", "griot", "storyteller"])
        #expect(try registry.template(for: "griot").kind == .assistant)

        // A response's text is its `## reply` section; `## system` there is an error, and so is an unknown kind.
        let folder = try promptsCopy()
        var text = try String(contentsOf: folder.appendingPathComponent("crisis/1.md"), encoding: .utf8)
        text = text.replacingOccurrences(of: "version: 1", with: "version: 2").replacingOccurrences(of: "## reply", with: "## system")
        try text.write(to: folder.appendingPathComponent("crisis/2.md"), atomically: true, encoding: .utf8)
        #expect(problems(loading: folder).contains("crisis/2.md"))
        text = text.replacingOccurrences(of: "## system", with: "## reply").replacingOccurrences(of: "kind: response", with: "kind: reply")
        try text.write(to: folder.appendingPathComponent("crisis/2.md"), atomically: true, encoding: .utf8)
        #expect(problems(loading: folder).contains("kind: reply is not a kind"))
    }

    @Test func unknownFieldsSectionsAndStagesAreErrors() throws {
        let cases: [(String, String, String)] = [
            ("temperature: 0.3", "temprature: 0.3", "unknown field `temprature`"),
            ("## command: quiz", "## comand: quiz", "is not a section name"),
            ("safety: [moderation, crisis", "safety: [moderaton, crisis", "unknown safety stage `moderaton`"),
            ("total: 4000", "total: 4000x", "`budget.total` must be a number"),
        ]
        for (from, to, expected) in cases {
            let folder = try promptsCopy()
            var text = try String(contentsOf: folder.appendingPathComponent("griot/1.md"), encoding: .utf8)
            #expect(text.contains(from))
            text = text.replacingOccurrences(of: "version: 1", with: "version: 2").replacingOccurrences(of: from, with: to)
            try text.write(to: folder.appendingPathComponent("griot/2.md"), atomically: true, encoding: .utf8)
            let message = problems(loading: folder)
            #expect(message.contains("griot/2.md"), "\(expected): \(message)")
            #expect(message.contains(expected), "\(message)")
        }
    }

    @Test func labelsPickVersionsAndPublishingMovesThem() throws {
        let folder = try promptsCopy()
        var text = try String(contentsOf: folder.appendingPathComponent("griot/1.md"), encoding: .utf8)
        text = text.replacingOccurrences(of: "version: 1", with: "version: 2").replacingOccurrences(of: "Be warm and plain-spoken.", with: "Be warm, plain-spoken and brief.")
        try text.write(to: folder.appendingPathComponent("griot/2.md"), atomically: true, encoding: .utf8)
        var registry = try PromptRegistry.load(folder: folder)
        #expect(try registry.template(for: "griot").version == 1)
        #expect(try registry.template(for: "griot", label: "latest").version == 2)
        #expect(try registry.template(for: "griot", label: "2").version == 2)
        #expect(throws: PromptError.self) { try registry.template(for: "griot", label: "staging") }

        try registry.publish(assistant: "griot", version: 2, label: "production")
        registry = try PromptRegistry.load(folder: folder)
        let production = try registry.template(for: "griot")
        #expect(production.version == 2)
        #expect(registry.assistants["griot"]?.published[2] == production.textHash)
        #expect(registry.assistants["griot"]?.published[1] != nil, "earlier versions stay published")
    }

    @Test func productionMustNameAPublishedVersion() throws {
        let folder = try promptsCopy()
        var text = try String(contentsOf: folder.appendingPathComponent("griot/1.md"), encoding: .utf8)
        text = text.replacingOccurrences(of: "version: 1", with: "version: 2")
        try text.write(to: folder.appendingPathComponent("griot/2.md"), atomically: true, encoding: .utf8)
        let releases = folder.appendingPathComponent("griot/releases.yaml")
        let yaml = try String(contentsOf: releases, encoding: .utf8).replacingOccurrences(of: "production: 1", with: "production: 2")
        try yaml.write(to: releases, atomically: true, encoding: .utf8)
        #expect(problems(loading: folder).contains("label `production` names version 2, which is not published"))
    }

    /// A releases file is written by hand too: a version key that is no number, or one too
    /// large for an Int, is refused with the file named, not unwrapped.
    @Test(arguments: ["v1", "99999999999999999999999"])
    func aPublishedVersionThatIsNoWholeNumberIsRefused(version: String) throws {
        let folder = try promptsCopy()
        let releases = folder.appendingPathComponent("griot/releases.yaml")
        let yaml = try String(contentsOf: releases, encoding: .utf8) + "  \(version): sha256:00\n"
        try yaml.write(to: releases, atomically: true, encoding: .utf8)
        #expect(problems(loading: folder).contains("`published:` must map version numbers to sha256 hashes"))
    }
}
