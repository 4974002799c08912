import Foundation
import GriotArchive
import GriotChat
import GriotImages
import GriotProviders
import GriotStore
import GriotStoryteller

/// How the storyteller is set up for a service: where drawings are kept, and which model tells
/// the stories.
///
/// | variable | meaning |
/// |---|---|
/// | `GRIOT_DRAWINGS_DIR` | the drawings' folder (default: `drawings/` beside the SQLite database, else `~/.local/share/griot/drawings`) |
/// | `GRIOT_STORYTELLER_BASE_URL` | an OpenAI-compatible endpoint with a vision model (Grok's: `https://api.x.ai/v1`) |
/// | `GRIOT_STORYTELLER_API_KEY` | its key |
/// | `GRIOT_STORYTELLER_MODEL` | the vision model (e.g. `grok-2-vision-1212`) |
///
/// With none of the three set, the storyteller writes sample stories offline (`TemplateStoryteller`),
/// whatever model chat uses: a text-only chat model cannot see drawings.
///
/// ```swift
/// let drawings = StorytellerSetup.drawingsFolder(configuration: configuration)
/// let storyteller = try await StorytellerSetup.declaration(chats: storage.chats, drawings: drawings)
/// let engine = try await ChatEngine.open(archive: archive, configuration: configuration, assistants: .builtIn.adding(storyteller))
/// ```
public enum StorytellerSetup {
    public static func drawingsFolder(configuration: GriotConfiguration,
                                      environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let folder = environment["GRIOT_DRAWINGS_DIR"], !folder.isEmpty { return URL(fileURLWithPath: folder, isDirectory: true) }
        let database = configuration.databasePath
        if !database.contains("://"), !database.isEmpty {
            let path = database.hasPrefix("sqlite:") ? String(database.dropFirst(7)) : database
            return URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("drawings", isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/griot/drawings", isDirectory: true)
    }

    /// The storyteller's declaration: its passages from `chats` and the drawings' folder, its
    /// model from the `GRIOT_STORYTELLER_*` variables (behind retries and a breaker shared through
    /// the database), or the offline sample storyteller when none is set.
    public static func declaration(chats: any ChatStore, drawings: URL, counters: TokenCounters = .bytePair,
                                   environment: [String: String] = ProcessInfo.processInfo.environment,
                                   retry: RetryPolicy = RetryPolicy()) async throws -> AssistantDeclaration {
        let source = DrawingPassageSource(chats: chats, blobs: DrawingBlobStore(folder: drawings), counters: counters)
        var declaration = Storyteller.declaration(source: source)
        declaration.provider = try await provider(chats: chats, environment: environment, retry: retry)
        return declaration
    }

    /// The vision model named by the `GRIOT_STORYTELLER_*` variables, or the offline responder.
    static func provider(chats: any ChatStore, environment: [String: String], retry: RetryPolicy) async throws -> any ChatProvider {
        let names = ["BASE_URL", "API_KEY", "MODEL"]
        guard names.contains(where: { !(environment["GRIOT_STORYTELLER_" + $0] ?? "").isEmpty }) else { return ExtractiveResponder() }
        // Chat's endpoint, key, model and Azure settings are not the storyteller's; its timeouts and
        // stream settings (OPENAI_CONNECT_TIMEOUT, OPENAI_READ_TIMEOUT, …) are shared.
        let chatOnly: Set<String> = ["OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL", "OPENAI_API_STYLE", "OPENAI_FOLD_SYSTEM"]
        var upstreamEnvironment = environment.filter { !chatOnly.contains($0.key) && !$0.key.hasPrefix("AZURE_OPENAI_") }
        for name in names { upstreamEnvironment["OPENAI_" + name] = environment["GRIOT_STORYTELLER_" + name] }
        var configuration = try OpenAICompatibleConfiguration(environment: upstreamEnvironment)
        configuration.name = "storyteller"
        let breakers = CircuitBreakerRegistry(ledger: StoredBreakerLedger(store: chats))
        return await ResilientProvider(wrapping: OpenAICompatibleProvider(configuration: configuration), registry: breakers, retryPolicy: retry)
    }
}
