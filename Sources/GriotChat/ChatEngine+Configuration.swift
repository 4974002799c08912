import Foundation
import GriotArchive
import GriotPrompts
import GriotProviders
import GriotStore

extension ChatEngine {
    /// The engine as configured: prompts from the configured folder (checked at once), the
    /// provider chosen by `GriotConfiguration.provider`, exact BPE token counts.
    public static func open(archive: StoryArchive, configuration: GriotConfiguration,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ChatEngine {
        guard let promptsPath = configuration.promptsPath else {
            throw ConfigurationError("the prompts folder (prompts/ of the checkout) was not found; run griot from the checkout or set GRIOT_PROMPTS")
        }
        let prompts = try PromptRegistry.load(folder: URL(fileURLWithPath: promptsPath))
        let provider = try makeProvider(configuration.provider, environment: environment)
        return ChatEngine(archive: archive, chats: try ChatStore(writer: archive.store.writer), prompts: prompts,
                          provider: provider, counters: .bytePair)
    }

    /// `auto` picks the OpenAI-compatible provider when a key or a base URL is configured.
    static func makeProvider(_ choice: GriotConfiguration.ProviderChoice, environment: [String: String]) throws -> any ChatProvider {
        let wantsRemote: Bool
        switch choice {
        case .extractive: wantsRemote = false
        case .openai: wantsRemote = true
        case .auto: wantsRemote = !(environment["OPENAI_API_KEY"] ?? "").isEmpty || !(environment["OPENAI_BASE_URL"] ?? "").isEmpty
        }
        guard wantsRemote else { return ExtractiveResponder() }
        return try remoteProvider(environment: environment)
    }
}
