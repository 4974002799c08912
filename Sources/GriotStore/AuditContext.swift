/// Who is making a request and from where, for the audit entries its writes leave.
///
/// Pass it to a store method, or bind it for a whole request so that writes made deeper down
/// (the chat engine appending messages) carry it too:
///
/// ```swift
/// let context = AuditContext(actorID: user.id, ipHash: hasher.hash(request.remoteAddress))
/// try await AuditContext.$current.withValue(context) { try await handleTurn(request) }
/// ```
///
/// `ipHash` is already hashed (salted SHA-256, by the HTTP layer): the store never stores an
/// address.
public struct AuditContext: Sendable, Hashable {
    public var actorID: String?
    public var ipHash: String?

    public init(actorID: String? = nil, ipHash: String? = nil) {
        self.actorID = actorID
        self.ipHash = ipHash
    }

    /// The request being served, when the HTTP layer bound one.
    @TaskLocal public static var current: AuditContext?
}
