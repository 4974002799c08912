import Foundation
import JWTKit

/// Turns a bearer JWT into a ``Caller``, or refuses it with an ``AuthError`` that says why.
///
/// The algorithm is chosen by the server's keys, never by the token: an HS256 token is checked
/// only against the configured secret, an RS256 or ES256 token only against the key its `kid`
/// names in the JWKS file and only with that key's own algorithm; `none` and everything else
/// is refused, and so is a header that marks any extension critical (`crit`: this server
/// implements none, RFC 7515 §4.1.11). Then `sub`, `role` and `exp` are required, `exp` at most
/// ``AuthConfiguration/maxLifetimeSeconds`` after `iat` (or now), `nbf`/`iat` respected, and
/// `iss`/`aud` compared when configured, with ``AuthConfiguration/leewaySeconds`` of clock leeway.
/// Every identifier in the claims follows ``ClaimIdentifier``.
///
/// ```swift
/// let verifier = try await TokenVerifier.make(AuthConfiguration(environment: environment))
/// let caller = try await verifier.verify(authorizationHeader: "Bearer eyJhbGciOi...")
/// print(caller.userID, caller.role, caller.familyGroupIDs)
/// ```
public final class TokenVerifier: Sendable {
    public let configuration: AuthConfiguration
    /// The HS256 secret, when configured; signs development tokens too.
    private let secretKey: JWTKeyCollection?
    /// The JWKS file's usable keys, each under its kid.
    private let publicKeys: JWTKeyCollection?
    private let keySet: JSONWebKeySet?

    private init(configuration: AuthConfiguration, secretKey: JWTKeyCollection?, publicKeys: JWTKeyCollection?, keySet: JSONWebKeySet?) {
        self.configuration = configuration
        self.secretKey = secretKey
        self.publicKeys = publicKeys
        self.keySet = keySet
    }

    /// Checks the configuration and loads its keys (reading the JWKS file once).
    public static func make(_ configuration: AuthConfiguration) async throws(AuthConfigurationError) -> TokenVerifier {
        try configuration.check()
        var secretKey: JWTKeyCollection?
        if let secret = configuration.hs256Secret {
            secretKey = await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        }
        var keySet: JSONWebKeySet?
        var publicKeys: JWTKeyCollection?
        if let path = configuration.jwksFile {
            let loaded = try JSONWebKeySet(contentsOf: path)
            let collection = JWTKeyCollection()
            for (kid, entry) in loaded.keys {
                switch entry.key {
                case .rsa(let key): await collection.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
                case .p256(let key): await collection.add(ecdsa: key, kid: JWKIdentifier(string: kid))
                }
            }
            keySet = loaded
            publicKeys = collection
        }
        return TokenVerifier(configuration: configuration, secretKey: secretKey, publicKeys: publicKeys, keySet: keySet)
    }

    /// Verifies the token in an `Authorization` header value ("Bearer eyJ...").
    public func verify(authorizationHeader: String?, now: Date = Date()) async throws(AuthError) -> Caller {
        try await verify(BearerToken(authorizationHeader: authorizationHeader).token, now: now)
    }

    /// Verifies a bearer token (the JWT itself, without "Bearer ").
    public func verify(_ token: String, now: Date = Date()) async throws(AuthError) -> Caller {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw AuthError(.malformedToken, "the bearer token is not a JWT (three base64url parts joined by dots); send the token exactly as your sign-in returned it")
        }
        let header = try Self.header(parts[0])
        if let critical = header.crit {
            let names = critical.map { "\"\($0.prefix(40))\"" }.joined(separator: ", ")
            throw AuthError(.malformedToken, "the token's header marks \(names.isEmpty ? "an empty list" : names) as critical (crit), an extension this server does not implement, so it must refuse the token (RFC 7515); ask the token's issuer for a token without crit")
        }
        let keys = try keys(for: header)
        do {
            _ = try await keys.verify(token, as: SignedPayload.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw AuthError(.badSignature, "the token's signature does not match: it was altered, or signed with another key; sign in again")
        } catch {
            throw AuthError(.malformedToken, "the token could not be checked (its signature or payload is not valid base64url); send the token exactly as your sign-in returned it")
        }
        guard let payload = Data(base64URLEncoded: parts[1]) else {
            throw AuthError(.malformedToken, "the token's payload is not base64url; send the token exactly as your sign-in returned it")
        }
        let claims: TokenClaims
        do {
            claims = try JSONDecoder().decode(TokenClaims.self, from: payload)
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(.malformedToken, "the token's payload is not JSON; send the token exactly as your sign-in returned it")
        }
        return try caller(from: claims, now: now)
    }

    /// Signs a token with the configured HS256 secret, for local use, the README's curl examples
    /// and tests. It carries the configured issuer and audience, so this verifier accepts it.
    /// A verifier without a secret (JWKS only) cannot mint.
    public func mintDevelopmentToken(
        userID: String, role: CallerRole, familyGroupIDs: [String] = [], courseIDs: [String]? = nil,
        locale: String? = nil, region: String? = nil, expiresIn: TimeInterval = 3600, now: Date = Date()
    ) async throws(AuthConfigurationError) -> String {
        guard expiresIn <= configuration.maxLifetimeSeconds else {
            throw AuthConfigurationError(
                "a token valid for \(Int(expiresIn)) s would be refused: this server accepts tokens valid for at most \(Int(configuration.maxLifetimeSeconds)) s (GRIOT_JWT_MAX_LIFETIME_SECONDS)",
                variable: "GRIOT_JWT_MAX_LIFETIME_SECONDS")
        }
        guard let secretKey else {
            throw AuthConfigurationError(
                "this server has no HS256 secret, so it cannot mint tokens; set GRIOT_JWT_SECRET, or GRIOT_AUTH_MODE=development for local use, or get tokens from the identity provider",
                variable: "GRIOT_JWT_SECRET")
        }
        let issued = now.timeIntervalSince1970
        let claims = TokenClaims(
            sub: userID, role: role.rawValue, familyGroupIDs: familyGroupIDs, courseIDs: courseIDs, locale: locale,
            exp: issued + expiresIn, iat: issued, iss: configuration.issuer, aud: configuration.audience.map { [$0] }, region: region)
        do {
            return try await secretKey.sign(claims)
        } catch {
            throw AuthConfigurationError("could not sign a development token: \(error)")
        }
    }

    // MARK: - Steps of verify

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
        /// Extensions the token says a verifier must understand. `crit` of any other JSON type
        /// fails decoding, and so refuses the token as malformed.
        var crit: [String]?
    }

    private static func header(_ part: Substring) throws(AuthError) -> Header {
        guard let data = Data(base64URLEncoded: part), let header = try? JSONDecoder().decode(Header.self, from: data) else {
            throw AuthError(.malformedToken, "the token's header is not base64url JSON; send the token exactly as your sign-in returned it")
        }
        return header
    }

    /// The keys that may check this token: chosen by the header's `alg` and `kid`, but only among
    /// what the server configured, so a token cannot pick a weaker check (alg confusion).
    private func keys(for header: Header) throws(AuthError) -> JWTKeyCollection {
        let accepted = acceptedAlgorithms.map(\.rawValue).joined(separator: ", ")
        guard let alg = header.alg else {
            throw AuthError(.malformedToken, "the token's header names no algorithm (alg); send the token exactly as your sign-in returned it")
        }
        guard alg.lowercased() != "none" else {
            throw AuthError(.unsupportedAlgorithm, "the token is unsigned (alg \"none\"); this server accepts only tokens signed with \(accepted); sign in again")
        }
        guard let algorithm = SigningAlgorithm(rawValue: alg), acceptedAlgorithms.contains(algorithm) else {
            throw AuthError(.unsupportedAlgorithm, "the token is signed with \(alg.prefix(20)), but this server accepts only \(accepted); get a token from the sign-in this server trusts")
        }
        if algorithm == .hs256, let secretKey { return secretKey }
        guard let kid = header.kid, !kid.isEmpty else {
            throw AuthError(.unknownKey, "the token does not name its signing key (kid); tokens signed with \(alg) must, so that the key can be found; sign in again")
        }
        guard let keySet, let publicKeys, let entry = keySet.keys[kid] else {
            let why = keySet?.unusable[kid].map { ": the key set has it, but \($0)" } ?? ", which is not in this server's key set"
            throw AuthError(.unknownKey, "the token was signed with key \"\(kid.prefix(64))\"\(why); sign in again, and if it persists, the server's key set (GRIOT_JWKS_FILE) needs updating")
        }
        guard entry.algorithm == algorithm else {
            throw AuthError(.unsupportedAlgorithm, "the token says \(alg), but key \"\(kid)\" is an \(entry.algorithm.rawValue) key; sign in again")
        }
        return publicKeys
    }

    private var acceptedAlgorithms: [SigningAlgorithm] {
        var algorithms: [SigningAlgorithm] = []
        if secretKey != nil { algorithms.append(.hs256) }
        let keyAlgorithms = Set(keySet?.keys.values.map(\.algorithm) ?? [])
        algorithms += [.rs256, .es256].filter(keyAlgorithms.contains)
        return algorithms
    }

    private func caller(from claims: TokenClaims, now: Date) throws(AuthError) -> Caller {
        let leeway = configuration.leewaySeconds
        let stamp = Date.ISO8601FormatStyle()
        guard let sub = claims.sub, !sub.isEmpty else {
            throw AuthError(.invalidClaims, "the token has no \"sub\" claim (the user id); ask the token's issuer to include it, then sign in again")
        }
        guard ClaimIdentifier.isValid(sub) else {
            throw AuthError(.invalidClaims, "the token's \"sub\" claim is not a valid user id (\(ClaimIdentifier.rule)); ask the token's issuer to fix it, then sign in again")
        }
        for (name, ids) in [("family_group_ids", claims.familyGroupIDs ?? []), ("course_ids", claims.courseIDs ?? [])] {
            if ids.count > 1_000 || !ids.allSatisfy({ ClaimIdentifier.isValid($0) }) {
                throw AuthError(.invalidClaims, "the token's \"\(name)\" claim holds an id that is not valid (\(ClaimIdentifier.rule); at most 1,000 ids); ask the token's issuer to fix it, then sign in again")
            }
        }
        if let region = claims.region, !ClaimIdentifier.isValid(region) {
            throw AuthError(.invalidClaims, "the token's \"region\" claim is not a region name (\(ClaimIdentifier.rule)), e.g. \"eu\"; ask the token's issuer to fix it, then sign in again")
        }
        guard let roleName = claims.role else {
            throw AuthError(.invalidClaims, "the token has no \"role\" claim; it must be one of \(CallerRole.names); ask the token's issuer to include it, then sign in again")
        }
        guard let role = CallerRole(rawValue: roleName) else {
            throw AuthError(.invalidClaims, "the token's role \"\(roleName.prefix(40))\" is not one of \(CallerRole.names); sign in with an account that has a Griot role")
        }
        guard let exp = claims.exp else {
            throw AuthError(.invalidClaims, "the token has no \"exp\" claim; this server accepts only tokens that expire; ask the token's issuer to set one, then sign in again")
        }
        // Times a calendar can show (1970 to 9999): a claim of 1e300 s is no time, and formatting
        // it for a message must not be where the request fails.
        for (name, time) in [("exp", claims.exp), ("nbf", claims.nbf), ("iat", claims.iat)] {
            if let time, !(0...253_402_300_799).contains(time) {
                throw AuthError(.invalidClaims, "the token's \"\(name)\" claim is not a time between 1970 and 9999 in seconds since 1970; ask the token's issuer to fix it, then sign in again")
            }
        }
        let expiresAt = Date(timeIntervalSince1970: exp)
        guard now.timeIntervalSince1970 <= exp + leeway else {
            throw AuthError(.expired, "the token expired at \(expiresAt.formatted(stamp)); sign in again")
        }
        // A token's life is counted from its `iat`, or from now when it has none (so leaving `iat`
        // out does not make a year-long token acceptable).
        let issuedAt = claims.iat ?? now.timeIntervalSince1970
        let lifetime = configuration.maxLifetimeSeconds
        guard exp - issuedAt <= lifetime + leeway else {
            throw AuthError(.invalidClaims, "the token is valid until \(expiresAt.formatted(stamp)), \(Self.hours(exp - issuedAt)) after it was issued, but this server accepts tokens valid for at most \(Self.hours(lifetime)); ask the token's issuer for a shorter-lived token, then sign in again")
        }
        if let nbf = claims.nbf, now.timeIntervalSince1970 + leeway < nbf {
            throw AuthError(.notYetValid, "the token is not valid before \(Date(timeIntervalSince1970: nbf).formatted(stamp)); wait until then, or check the clock of the machine that issued it")
        }
        if let iat = claims.iat, now.timeIntervalSince1970 + leeway < iat {
            throw AuthError(.notYetValid, "the token says it was issued at \(Date(timeIntervalSince1970: iat).formatted(stamp)), in the future; check the clock of the machine that issued it")
        }
        if let issuer = configuration.issuer, claims.iss != issuer {
            let actual = claims.iss.map { "was issued by \"\($0.prefix(100))\"" } ?? "names no issuer (iss)"
            throw AuthError(.wrongIssuer, "the token \(actual), but this server accepts tokens from \"\(issuer)\" only; sign in through that issuer")
        }
        if let audience = configuration.audience, !(claims.aud ?? []).contains(audience) {
            let actual = claims.aud.map { "is meant for \($0.map { "\"\($0.prefix(100))\"" }.joined(separator: ", "))" } ?? "names no audience (aud)"
            throw AuthError(.wrongAudience, "the token \(actual), not for this server (\"\(audience)\"); request a token for the audience \"\(audience)\"")
        }
        return Caller(
            userID: sub, role: role, familyGroupIDs: claims.familyGroupIDs ?? [], courseIDs: claims.courseIDs,
            locale: claims.locale, expiresAt: expiresAt, region: claims.region)
    }
}

extension TokenVerifier {
    /// "24 h", "90 min", "1.5 h": a lifetime as a person reads it.
    static func hours(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "forever" }
        if seconds < 7_200 { return "\(Int((seconds / 60).rounded())) min" }
        let hours = seconds / 3_600
        return hours == hours.rounded() || hours > 1_000 ? "\(Int(min(hours, 1e12).rounded())) h" : String(format: "%.1f h", hours)
    }
}

/// What jwt-kit decodes once the signature holds: nothing, since ``TokenClaims`` are read
/// afterwards with messages that name the claim at fault.
private struct SignedPayload: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
