import Foundation

/// The token in an `Authorization: Bearer <token>` header value (RFC 6750 §2.1; the scheme's
/// case does not matter).
///
/// ```swift
/// let token = try BearerToken(authorizationHeader: request.headers[.authorization]).token
/// let caller = try await verifier.verify(token)
/// ```
public struct BearerToken: Sendable, Hashable {
    public var token: String

    public init(authorizationHeader: String?) throws(AuthError) {
        let value = (authorizationHeader ?? "").trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else {
            throw AuthError(.missingToken, "no bearer token; send the header Authorization: Bearer <token>")
        }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts[0].lowercased() == "bearer" else {
            // Name the scheme only when there is one, so that a bare token is never echoed back.
            let scheme = parts.count == 2 && parts[0].count <= 20 ? "the \(parts[0]) scheme" : "no scheme"
            throw AuthError(.missingToken, "the Authorization header uses \(scheme); send Authorization: Bearer <token>")
        }
        let token = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        guard !token.isEmpty else {
            throw AuthError(.missingToken, "the Authorization header says Bearer but carries no token; send Authorization: Bearer <token>")
        }
        self.token = token
    }
}
