import Foundation

/// How bearer tokens are verified: an HS256 shared secret, public keys from a JWKS file, or
/// both; the expected issuer and audience; the clock leeway; and whether development mode is on.
///
/// | setting | environment | default |
/// |---|---|---|
/// | HS256 shared secret, at least 32 bytes | `GRIOT_JWT_SECRET` | none; in development mode ``developmentSecret`` |
/// | JWKS file with RS256/ES256 public keys | `GRIOT_JWKS_FILE` | none |
/// | required `iss` | `GRIOT_JWT_ISSUER` | not checked |
/// | required `aud` | `GRIOT_JWT_AUDIENCE` | not checked |
/// | clock leeway for `exp`/`nbf`/`iat`, seconds (0...300) | `GRIOT_JWT_LEEWAY_SECONDS` | 30 |
/// | longest token lifetime, `exp` after `iat` (or after now), seconds (60...2,592,000) | `GRIOT_JWT_MAX_LIFETIME_SECONDS` | 86,400 (24 h) |
/// | `production` or `development` | `GRIOT_AUTH_MODE` | `production` |
///
/// At least one of the secret and the JWKS file is needed outside development mode. An empty
/// variable counts as unset.
///
/// ```swift
/// let configuration = try AuthConfiguration(environment: ProcessInfo.processInfo.environment)
/// let verifier = try await TokenVerifier.make(configuration)
/// ```
public struct AuthConfiguration: Sendable, Equatable {
    /// The development secret, published here and in the README so that local curl examples work.
    /// Used only when `GRIOT_AUTH_MODE=development` and no `GRIOT_JWT_SECRET` is set; refused in production.
    public static let developmentSecret = "griot-development-secret-change-me"
    /// The shortest HS256 secret accepted: 256 bits, the size of the hash (RFC 7518 §3.2).
    public static let minimumSecretBytes = 32
    public static let defaultLeewaySeconds: Double = 30
    /// 24 hours: a stolen token is good for a day at most, and apps refresh tokens well within that.
    public static let defaultMaxLifetimeSeconds: Double = 86_400
    /// The range `GRIOT_JWT_MAX_LIFETIME_SECONDS` may take: a minute to 30 days.
    public static let maxLifetimeRange: ClosedRange<Double> = 60...2_592_000

    public var hs256Secret: String?
    /// Path of a JSON Web Key Set (`{"keys": [...]}`) with RSA and EC P-256 public keys.
    public var jwksFile: String?
    public var issuer: String?
    public var audience: String?
    /// How far past `exp`, or before `nbf`, a token is still accepted, for clocks that disagree.
    public var leewaySeconds: Double
    /// The longest a token may be valid: its `exp` at most this long after its `iat` (after the
    /// time of the request when it has no `iat`). A token that would live longer is refused, so
    /// that a leaked long-lived token is not good forever.
    public var maxLifetimeSeconds: Double
    public var development: Bool

    public init(
        hs256Secret: String? = nil, jwksFile: String? = nil, issuer: String? = nil, audience: String? = nil,
        leewaySeconds: Double = AuthConfiguration.defaultLeewaySeconds,
        maxLifetimeSeconds: Double = AuthConfiguration.defaultMaxLifetimeSeconds, development: Bool = false
    ) {
        self.hs256Secret = hs256Secret
        self.jwksFile = jwksFile
        self.issuer = issuer
        self.audience = audience
        self.leewaySeconds = leewaySeconds
        self.maxLifetimeSeconds = maxLifetimeSeconds
        self.development = development
    }

    /// Reads the `GRIOT_JWT_*`, `GRIOT_JWKS_FILE` and `GRIOT_AUTH_MODE` variables (see the table above).
    public init(environment: [String: String]) throws(AuthConfigurationError) {
        func value(_ name: String) -> String? {
            guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            return value
        }
        self.init(issuer: value("GRIOT_JWT_ISSUER"), audience: value("GRIOT_JWT_AUDIENCE"))
        switch value("GRIOT_AUTH_MODE")?.lowercased() {
        case nil, "production": development = false
        case "development": development = true
        case let other?:
            throw AuthConfigurationError(
                "GRIOT_AUTH_MODE is \"\(other)\"; set it to \"development\" for local use with the published secret, or to \"production\" (or leave it unset)",
                variable: "GRIOT_AUTH_MODE")
        }
        // The secret is taken as it is: spaces may be part of it.
        if let secret = environment["GRIOT_JWT_SECRET"], !secret.isEmpty { hs256Secret = secret }
        jwksFile = value("GRIOT_JWKS_FILE")
        /// A number of seconds from `name`, or nil when it is unset; `example` is what to write.
        func seconds(_ name: String, example: String) throws(AuthConfigurationError) -> Double? {
            guard let text = value(name) else { return nil }
            guard let seconds = Double(text), seconds.isFinite else {
                throw AuthConfigurationError("\(name) is \"\(text)\", not a number of seconds; use e.g. \(example), or leave it unset", variable: name)
            }
            return seconds
        }
        if let leeway = try seconds("GRIOT_JWT_LEEWAY_SECONDS", example: "30") { leewaySeconds = leeway }
        if let lifetime = try seconds("GRIOT_JWT_MAX_LIFETIME_SECONDS", example: "86400 (24 h)") { maxLifetimeSeconds = lifetime }
        if development, hs256Secret == nil { hs256Secret = Self.developmentSecret }
        try check()
    }

    /// The one check of the settings, wherever they came from; ``TokenVerifier/make(_:)`` runs it too.
    public func check() throws(AuthConfigurationError) {
        guard (0...300).contains(leewaySeconds) else {
            throw AuthConfigurationError(
                "the clock leeway is \(leewaySeconds) s, outside 0...300; use e.g. 30 (GRIOT_JWT_LEEWAY_SECONDS), or leave it unset",
                variable: "GRIOT_JWT_LEEWAY_SECONDS")
        }
        guard Self.maxLifetimeRange.contains(maxLifetimeSeconds) else {
            throw AuthConfigurationError(
                "the longest token lifetime is \(maxLifetimeSeconds) s, outside 60...2592000 (a minute to 30 days); use e.g. 86400 (GRIOT_JWT_MAX_LIFETIME_SECONDS), or leave it unset",
                variable: "GRIOT_JWT_MAX_LIFETIME_SECONDS")
        }
        if let secret = hs256Secret {
            guard development || secret != Self.developmentSecret else {
                throw AuthConfigurationError(
                    "GRIOT_JWT_SECRET is the published development secret, which anyone can use to sign tokens; generate your own (openssl rand -base64 48), or set GRIOT_AUTH_MODE=development for local use",
                    variable: "GRIOT_JWT_SECRET")
            }
            // In development mode too: jwt-kit asserts an HMAC key at least as long as the hash.
            guard secret.utf8.count >= Self.minimumSecretBytes else {
                throw AuthConfigurationError(
                    "GRIOT_JWT_SECRET is \(secret.utf8.count) bytes; HS256 needs at least \(Self.minimumSecretBytes) random bytes, e.g. the output of openssl rand -base64 48",
                    variable: "GRIOT_JWT_SECRET")
            }
        }
        if hs256Secret == nil, jwksFile == nil {
            throw AuthConfigurationError(
                "no way to verify bearer tokens: set GRIOT_JWT_SECRET (an HS256 secret of 32 bytes or more) or GRIOT_JWKS_FILE (a JSON Web Key Set with RS256/ES256 public keys), or GRIOT_AUTH_MODE=development for local use")
        }
    }
}
