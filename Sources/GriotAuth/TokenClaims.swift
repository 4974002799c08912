import Foundation
import JWTKit

/// The claims of a Griot bearer token as they travel: snake_case names, times in seconds since
/// 1970. Decoding checks only the types, naming the claim at fault; which claims are required
/// and what their values must be is ``TokenVerifier``'s business.
///
/// ```swift
/// let claims = try JSONDecoder().decode(TokenClaims.self, from: payload)
/// claims.role  // "coach"
/// ```
struct TokenClaims: JWTPayload, Equatable {
    var sub: String?
    var role: String?
    var familyGroupIDs: [String]?
    var courseIDs: [String]?
    var locale: String?
    /// The region whose database keeps the user's conversations (residency); nil: the node's default.
    var region: String?
    var exp: Double?
    var nbf: Double?
    var iat: Double?
    var iss: String?
    /// `aud` is a string or an array of strings; both arrive here as an array.
    var aud: [String]?

    init(
        sub: String? = nil, role: String? = nil, familyGroupIDs: [String]? = nil, courseIDs: [String]? = nil,
        locale: String? = nil, exp: Double? = nil, nbf: Double? = nil, iat: Double? = nil, iss: String? = nil,
        aud: [String]? = nil, region: String? = nil
    ) {
        self.sub = sub
        self.role = role
        self.familyGroupIDs = familyGroupIDs
        self.courseIDs = courseIDs
        self.locale = locale
        self.region = region
        self.exp = exp
        self.nbf = nbf
        self.iat = iat
        self.iss = iss
        self.aud = aud
    }

    enum CodingKeys: String, CodingKey {
        case sub, role, locale, region, exp, nbf, iat, iss, aud
        case familyGroupIDs = "family_group_ids"
        case courseIDs = "course_ids"
    }

    init(from decoder: any Decoder) throws {
        let container: KeyedDecodingContainer<CodingKeys>
        do {
            container = try decoder.container(keyedBy: CodingKeys.self)
        } catch {
            throw AuthError(.malformedToken, "the token's payload is not a JSON object; send the token exactly as your sign-in returned it")
        }
        func claim<Value: Decodable>(_ key: CodingKeys, _ type: Value.Type, _ expected: String) throws -> Value? {
            do {
                return try container.decodeIfPresent(type, forKey: key)
            } catch {
                throw AuthError(.invalidClaims, "the token's \"\(key.rawValue)\" claim is not \(expected); ask the token's issuer to fix it, then sign in again")
            }
        }
        sub = try claim(.sub, String.self, "a string")
        role = try claim(.role, String.self, "a string")
        familyGroupIDs = try claim(.familyGroupIDs, [String].self, "an array of strings")
        courseIDs = try claim(.courseIDs, [String].self, "an array of strings")
        locale = try claim(.locale, String.self, "a string")
        region = try claim(.region, String.self, "a string")
        exp = try claim(.exp, Double.self, "a number of seconds since 1970")
        nbf = try claim(.nbf, Double.self, "a number of seconds since 1970")
        iat = try claim(.iat, Double.self, "a number of seconds since 1970")
        iss = try claim(.iss, String.self, "a string")
        if let single = try? container.decodeIfPresent(String.self, forKey: .aud) {
            aud = [single]
        } else {
            aud = try claim(.aud, [String].self, "a string or an array of strings")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(sub, forKey: .sub)
        try container.encodeIfPresent(role, forKey: .role)
        try container.encodeIfPresent(familyGroupIDs, forKey: .familyGroupIDs)
        try container.encodeIfPresent(courseIDs, forKey: .courseIDs)
        try container.encodeIfPresent(locale, forKey: .locale)
        try container.encodeIfPresent(region, forKey: .region)
        // Whole seconds, as most issuers write them.
        try container.encodeIfPresent(exp.map { Int64($0.rounded(.down)) }, forKey: .exp)
        try container.encodeIfPresent(nbf.map { Int64($0.rounded(.down)) }, forKey: .nbf)
        try container.encodeIfPresent(iat.map { Int64($0.rounded(.down)) }, forKey: .iat)
        try container.encodeIfPresent(iss, forKey: .iss)
        if let aud, aud.count == 1 {
            try container.encode(aud[0], forKey: .aud)
        } else {
            try container.encodeIfPresent(aud, forKey: .aud)
        }
    }

    /// Claims are checked by ``TokenVerifier`` against its clock and configuration, not here.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
