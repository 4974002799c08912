import GriotStore

/// What `AccessPolicy` admitted a caller to: the thread or message the route's `{id}` named,
/// already checked. Handlers take it from `context.grant` instead of looking the id up (and
/// deciding access) again.
struct AccessGrant: Sendable {
    var thread: ThreadRecord?
    var message: MessageRecord?
    var supportGrant: SupportGrant?

    /// The admitted thread; a route whose rule admits none is a programming error, reported as 500.
    func requireThread() throws -> ThreadRecord {
        guard let thread else { throw APIError(.internalServerError, code: "internal_error", "The route's access rule admitted no thread; report this.") }
        return thread
    }

    /// The admitted message; see `requireThread`.
    func requireMessage() throws -> MessageRecord {
        guard let message else { throw APIError(.internalServerError, code: "internal_error", "The route's access rule admitted no message; report this.") }
        return message
    }
}
