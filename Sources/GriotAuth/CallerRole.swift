/// What a caller is to Griot, from the token's `role` claim.
///
/// The rights below are the defaults, written down once; the HTTP layer asks them and answers
/// 403 when a verified caller lacks one.
///
/// ```swift
/// guard caller.role.mayExportConversations else { throw HTTPError(.forbidden) }
/// let export = try exporter.export(thread)
/// ```
public enum CallerRole: String, Sendable, Codable, CaseIterable {
    /// A person asking questions in their own threads.
    case client
    /// A coach, who also reads and exports the threads of their clients.
    case coach
    /// Manages assistants, stories and people.
    case admin
    /// Runs the service: metrics, replays of stored turns, evals.
    case `operator`

    /// May export conversations (JSON, or PDF marked "Confidential").
    public var mayExportConversations: Bool { self == .coach || self == .admin }

    /// May manage assistants, stories and people.
    public var mayAdminister: Bool { self == .admin }

    /// May see metrics and replay stored turns.
    public var mayOperate: Bool { self == .operator || self == .admin }

    /// The role names a token may carry, for messages: "client, coach, admin, operator".
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
