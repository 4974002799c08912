import GriotArchive
import GriotChat
import GriotServer
import GriotStore

extension AssistantCatalog {
    /// The assistants the command line's engines serve, answer and replay: Ask the Griot, the
    /// coach and the storyteller (its drawings read from `chats` and the configured drawings
    /// folder, its model from `GRIOT_STORYTELLER_*`). The one place a new assistant's declaration
    /// is added for `griot serve`, `ask` and `replay`.
    static func served(chats: any ChatStore, configuration: GriotConfiguration) async throws -> AssistantCatalog {
        let storyteller = try await StorytellerSetup.declaration(chats: chats, drawings: StorytellerSetup.drawingsFolder(configuration: configuration),
                                                                  retry: configuration.retry)
        return AssistantCatalog.builtIn.adding(storyteller)
    }
}
