import GriotChat

extension AssistantCatalog {
    /// The assistants the command line's engines serve, answer and replay: the one place a new
    /// assistant's declaration is added for `griot serve`, `ask` and `replay`.
    static let served = AssistantCatalog.builtIn
}
