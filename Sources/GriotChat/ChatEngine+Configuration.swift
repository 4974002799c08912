import Foundation
import GriotArchive
import GriotEmbedding
import GriotPrompts
import GriotProviders
import GriotStore

extension ChatEngine {
    /// The engine as configured: prompts from the configured folder (checked at once), the
    /// provider chosen by `GriotConfiguration.provider`, exact BPE token counts, and the safety
    /// stages' tools (a remote moderation endpoint when `GRIOT_MODERATION_URL` is set).
    /// `chats` defaults to the archive's own database; an eval passes a scratch one. `assistants`:
    /// what each assistant declares (Ask the Griot and the coach unless more are added).
    public static func open(archive: StoryArchive, configuration: GriotConfiguration,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            chats: (any ChatStore)? = nil, assistants: AssistantCatalog = .builtIn) async throws -> ChatEngine {
        guard let promptsPath = configuration.promptsPath else {
            throw ConfigurationError("the prompts folder (prompts/ of the checkout) was not found; run griot from the checkout or set GRIOT_PROMPTS")
        }
        let prompts = try PromptRegistry.load(folder: URL(fileURLWithPath: promptsPath))
        let chats = chats ?? archive.storage.chats
        // Shared through the database: a breaker one node opens is open on every node.
        let breakers = CircuitBreakerRegistry(policy: configuration.breaker, ledger: StoredBreakerLedger(store: chats))
        let provider = try await makeProvider(configuration.provider, environment: environment, breakers: breakers, retry: configuration.retry,
                                              embedder: archive.embedder)
        return ChatEngine(archive: archive, chats: chats, prompts: prompts,
                          provider: provider, counters: .bytePair, breakers: breakers,
                          safety: .standard(embedder: archive.embedder, environment: environment), assistants: assistants)
    }

    /// `auto` picks the OpenAI-compatible provider when a key or a base URL is configured; a
    /// remote provider gets the registry's breaker (its policy) and `retry`.
    public static func makeProvider(_ choice: GriotConfiguration.ProviderChoice, environment: [String: String],
                             breakers: CircuitBreakerRegistry, retry: RetryPolicy = RetryPolicy(),
                             embedder: SentenceEmbedder? = nil) async throws -> any ChatProvider {
        let wantsRemote: Bool
        switch choice {
        case .extractive: wantsRemote = false
        case .openai: wantsRemote = true
        case .auto:
            wantsRemote = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY"]
                .contains { !(environment[$0] ?? "").isEmpty }
        }
        guard wantsRemote else { return ExtractiveResponder.scoring(with: embedder) }
        // Retries before the first token and a circuit breaker per provider, around every remote call.
        let upstream = OpenAICompatibleProvider(configuration: try OpenAICompatibleConfiguration(environment: environment))
        return await ResilientProvider(wrapping: upstream, registry: breakers, retryPolicy: retry)
    }
}
