import Foundation
import GriotProviders

/// One version of an assistant's prompt, read from `prompts/<assistant>/<version>.md`.
///
/// ```swift
/// let template = try registry.template(for: "griot")            // the production version
/// let system = try template.systemPrompt(role: nil, command: "quiz", values: ["today": "2026-11-22"])
/// print(template.version, template.textHash)
/// ```
public struct PromptTemplate: Sendable, Hashable {
    public var assistant: String
    public var version: Int
    /// The date the author wrote down (free text, usually ISO 8601).
    public var created: String
    public var description: String
    /// An assistant, or a fixed reply such as the crisis template.
    public var kind: PromptKind = .assistant
    public var model: ModelPolicy
    public var retrieval: RetrievalPolicy
    public var budget: BudgetPolicy
    public var safety: Set<SafetyStage>
    public var sections: PromptSections
    /// The file it was read from, as given to the registry (for messages).
    public var file: String
    /// "sha256:<hex>" of the file's bytes: what a turn records, and what makes a published version immutable.
    public var textHash: String

    /// The roles this assistant has variants for ("client", "coach"); empty for a single voice.
    public var roles: [String] { sections.roles.keys.sorted() }
    public var commands: [String] { sections.commands.keys.sorted() }

    /// The system prompt for one turn: the system section, then the role's variant, then the slash
    /// command's variant, then the language instruction when a language other than English was asked for.
    public func systemPrompt(role: String?, command: String?, language: String? = nil, values: [String: String] = [:]) throws -> String {
        var parts = [sections.system]
        if !sections.roles.isEmpty {
            let chosen = role ?? sections.defaultRole
            guard let chosen, let variant = sections.roles[chosen] else {
                throw PromptError(file: file, "has no variant for role \(role ?? "(none)"); roles here: \(roles.joined(separator: ", "))")
            }
            parts.append(variant)
        }
        if let command {
            guard let variant = sections.commands[command] else {
                throw PromptError(file: file, "has no variant for /\(command); commands here: \(commands.map { "/" + $0 }.joined(separator: ", "))")
            }
            parts.append(variant)
        }
        var values = values
        if let language, language != "en", let instruction = sections.language {
            values["language_name"] = LanguageNames.name(of: language)
            parts.append(instruction)
        }
        return PromptPlaceholders.fill(parts.filter { !$0.isEmpty }.joined(separator: "\n\n"), values: values)
    }
}

/// The `## ...` sections of a prompt's body.
public struct PromptSections: Sendable, Hashable {
    public var system: String
    public var roles: [String: String] = [:]
    /// The role used when a turn names none: the first one written in the file.
    public var defaultRole: String?
    public var commands: [String: String] = [:]
    public var language: String?
    /// The reply used when nothing relevant was found (for responders that do not write their own).
    public var noContent: String?
}

extension PromptSections {
    /// The sections whose text differs from `other`'s, by name: `system`, `role NAME`,
    /// `command NAME`, `language`, `no_content` (added or removed ones included). Empty when a
    /// version changes only settings (model, retrieval, budget).
    public func differences(from other: PromptSections) -> [String] {
        var names: [String] = []
        if system != other.system { names.append("system") }
        for role in Set(roles.keys).union(other.roles.keys).sorted() where roles[role] != other.roles[role] { names.append("role \(role)") }
        if defaultRole != other.defaultRole { names.append("default role") }
        for command in Set(commands.keys).union(other.commands.keys).sorted() where commands[command] != other.commands[command] {
            names.append("command \(command)")
        }
        if language != other.language { names.append("language") }
        if noContent != other.noContent { names.append("no_content") }
        return names
    }
}

/// Model settings from the front matter's `model:` block.
public struct ModelPolicy: Sendable, Hashable {
    public var model: String?
    public var temperature: Double?
    /// The BPE vocabulary used to count tokens: `o200k_base` (GPT-4o and later) unless set.
    public var encoding: String?

    public init(model: String? = nil, temperature: Double? = nil, encoding: String? = nil) {
        self.model = model
        self.temperature = temperature
        self.encoding = encoding
    }

    public func settings(maxTokens: Int) -> ModelSettings {
        ModelSettings(model: model, temperature: temperature, maxTokens: maxTokens)
    }
}

/// Retrieval settings from the front matter's `retrieval:` block.
public struct RetrievalPolicy: Sendable, Hashable {
    /// Passages retrieved per turn; 0 turns retrieval off.
    public var k = 6
    public var mode = "hybrid"
    public var fusion = "weighted"
    public var lexicalWeight = 0.5
    public var rrfK = 60

    public init() {}
}

/// The token budget from the front matter's `budget:` block.
public struct BudgetPolicy: Sendable, Hashable {
    /// Tokens per request, including the reply reserve.
    public var total = 4000
    /// Tokens kept free for the reply (sent as max_tokens).
    public var replyReserve = 700
    /// How many earlier messages of the thread are offered to the model.
    public var historyMessages = 20
    /// The largest share of `total` each optional part may take before it is shortened:
    /// `instructions` (the course's custom instructions), `profile` (the user's bio), `course`.
    public var shares: [String: Double] = ["instructions": 0.15, "profile": 0.08, "course": 0.08]

    public init() {}
}

/// What a prompt file is: an assistant's prompt, or a fixed reply sent instead of a model's
/// answer (the crisis template), versioned and published the same way.
public enum PromptKind: String, Sendable, Hashable {
    case assistant, response
}

/// The safety stages an assistant switches on.
public enum SafetyStage: String, Sendable, Hashable, CaseIterable {
    case moderation, crisis, pii, citations, groundedness, copyright
}

/// Why a prompt file or the registry is unusable; always names the file.
public struct PromptError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var problem: String

    public init(file: String, _ problem: String) {
        self.file = file
        self.problem = problem
    }

    public var description: String { "\(file): \(problem)" }
}

/// Several problems found while loading prompts, reported together.
public struct PromptProblems: Error, Sendable, CustomStringConvertible {
    public var problems: [PromptError]

    public var description: String {
        (["prompts are invalid (\(problems.count) problem\(problems.count == 1 ? "" : "s")):"] + problems.map { "  - \($0)" })
            .joined(separator: "\n")
    }
}
