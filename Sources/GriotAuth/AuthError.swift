import Foundation

/// Why a bearer token was refused. Every case means HTTP 401; `message` tells the caller what
/// is wrong and what to do, and is safe to send back (it never contains the token).
///
/// ```swift
/// do { caller = try await verifier.verify(authorizationHeader: header) }
/// catch { return errorResponse(status: .unauthorized, message: error.message,
///                              headers: [.wwwAuthenticate: error.challenge]) }
/// ```
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, CaseIterable {
        /// No `Authorization: Bearer` header, or an empty token.
        case missingToken
        /// Not a JWT: not three base64url parts, or a header or payload that is not JSON.
        case malformedToken
        /// Signed with an algorithm this server does not accept (`none`, HS512, HS256 when only
        /// public keys are configured, a key used with another algorithm than its own).
        case unsupportedAlgorithm
        /// The token names a key (`kid`) that is not in the key set, or names none when one is needed.
        case unknownKey
        /// The signature does not match: the token was altered or signed with another key.
        case badSignature
        /// A required claim is missing or a claim has the wrong type or value.
        case invalidClaims
        /// Past `exp` (plus the leeway).
        case expired
        /// Before `nbf`, or issued in the future (`iat`), beyond the leeway.
        case notYetValid
        /// `iss` is not the configured issuer.
        case wrongIssuer
        /// `aud` does not name the configured audience.
        case wrongAudience
    }

    public var reason: Reason
    /// What is wrong and what to do next, e.g. "the token expired at 2025-06-01T12:00:00Z; sign in again".
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }

    /// The `WWW-Authenticate` value for the 401 response (RFC 6750 §3): a bare challenge when no
    /// token was sent, `invalid_token` with the message otherwise.
    public var challenge: String {
        if reason == .missingToken { return #"Bearer realm="griot""# }
        let quoted = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return #"Bearer realm="griot", error="invalid_token", error_description="\#(quoted)""#
    }
}
