import Foundation

/// Who is calling, read from a verified bearer token.
///
/// ```swift
/// let caller = try await verifier.verify(authorizationHeader: request.headers[.authorization])
/// guard caller.has(role: .coach, .admin) else { throw HTTPError(.forbidden) }
/// let stories = archive.search(query, visibleTo: caller.familyGroupIDs)
/// ```
public struct Caller: Sendable, Hashable {
    /// The token's `sub`: the user id in the calling app.
    public var userID: String
    public var role: CallerRole
    /// The family groups whose `family_only` stories the caller may read; empty when the token has none.
    public var familyGroupIDs: [String]
    /// The courses the caller belongs to, or nil when the token does not say.
    public var courseIDs: [String]?
    /// The caller's preferred language as a BCP 47 tag ("en", "es-MX"), if the token carries one.
    public var locale: String?
    /// When the token stops being accepted (its `exp`, without leeway).
    public var expiresAt: Date
    /// The region whose database keeps the caller's conversations (the token's `region` claim,
    /// or an API key's region); nil: the node's default region. Read only when the node is
    /// configured with regions (`GRIOT_REGION_DATABASES`).
    public var region: String?

    public init(
        userID: String, role: CallerRole, familyGroupIDs: [String] = [], courseIDs: [String]? = nil,
        locale: String? = nil, expiresAt: Date, region: String? = nil
    ) {
        self.userID = userID
        self.role = role
        self.familyGroupIDs = familyGroupIDs
        self.courseIDs = courseIDs
        self.locale = locale
        self.expiresAt = expiresAt
        self.region = region
    }

    /// Whether the caller's role is one of `roles`.
    public func has(role roles: CallerRole...) -> Bool { roles.contains(role) }

    /// Whether the caller belongs to the family group `id`.
    public func belongs(toFamily id: String) -> Bool { familyGroupIDs.contains(id) }
}
