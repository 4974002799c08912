import Foundation
import GriotAuth
import JWTKit
import Testing

/// Tokens signed with the shared HS256 secret: what a valid one yields, and each way one is refused.
@Suite struct HS256TokenTests {
    let now = Date(timeIntervalSince1970: 1_750_000_000)
    var nowSeconds: Int { Int(now.timeIntervalSince1970) }
    let header: [String: Any] = ["alg": "HS256", "typ": "JWT"]

    func verifier(issuer: String? = nil, audience: String? = nil, leeway: Double = 30) async throws -> TokenVerifier {
        try await TokenVerifier.make(AuthConfiguration(hs256Secret: TestKeys.secret, issuer: issuer, audience: audience, leewaySeconds: leeway))
    }

    /// A valid coach's claims, with `changes` applied (NSNull removes a claim).
    func claims(_ changes: [String: Any] = [:]) -> [String: Any] {
        var claims: [String: Any] = ["sub": "user-42", "role": "coach", "exp": nowSeconds + 600]
        for (name, value) in changes {
            claims[name] = value is NSNull ? nil : value
        }
        return claims
    }

    func token(_ claims: [String: Any], header: [String: Any]? = nil, secret: String = TestKeys.secret) async throws -> String {
        try await TestKeys.token(header: header ?? self.header, claims: claims, signedBy: TestKeys.hmacKeys(secret))
    }

    func refusal(_ token: String, by verifier: TokenVerifier? = nil) async throws -> AuthError {
        let verifier = if let verifier { verifier } else { try await self.verifier() }
        let caught = await #expect(throws: AuthError.self) { try await verifier.verify(token, now: now) }
        return try #require(caught)
    }

    @Test func aValidTokenGivesTheCallerWithEveryClaim() async throws {
        let token = try await token(claims([
            "family_group_ids": ["carter", "okafor"], "course_ids": ["c-1"], "locale": "es-MX",
            "iat": nowSeconds - 60, "nbf": nowSeconds - 60,
        ]))
        let caller = try await verifier().verify(token, now: now)
        #expect(caller == Caller(
            userID: "user-42", role: .coach, familyGroupIDs: ["carter", "okafor"], courseIDs: ["c-1"], locale: "es-MX",
            expiresAt: Date(timeIntervalSince1970: Double(nowSeconds + 600))))
    }

    @Test func optionalClaimsDefault() async throws {
        let caller = try await verifier().verify(token(claims()), now: now)
        #expect(caller.familyGroupIDs == [])
        #expect(caller.courseIDs == nil)
        #expect(caller.locale == nil)
    }

    @Test func anExpiredTokenIsRefusedWithItsExpiryAndWhatToDo() async throws {
        let error = try await refusal(token(claims(["exp": nowSeconds - 31])))
        #expect(error.reason == .expired)
        #expect(error.message == "the token expired at 2025-06-15T15:06:09Z; sign in again")
    }

    @Test func expiryHasAConfigurableLeeway() async throws {
        let justExpired = try await token(claims(["exp": nowSeconds - 20]))
        #expect(try await verifier().verify(justExpired, now: now).userID == "user-42")
        let strict = try await verifier(leeway: 0)
        #expect(try await refusal(justExpired, by: strict).reason == .expired)
    }

    @Test func aTokenBeforeItsNotBeforeTimeIsRefused() async throws {
        let error = try await refusal(token(claims(["nbf": nowSeconds + 600])))
        #expect(error.reason == .notYetValid)
        #expect(error.message.contains("not valid before 2025-06-15T15:16:40Z"))
    }

    @Test func aTokenIssuedInTheFutureIsRefused() async throws {
        let error = try await refusal(token(claims(["iat": nowSeconds + 600])))
        #expect(error.reason == .notYetValid)
        #expect(error.message.contains("clock"))
    }

    @Test func aTokenSignedWithAnotherSecretIsRefused() async throws {
        let error = try await refusal(token(claims(), secret: "another-secret-0123456789-0123456789"))
        #expect(error.reason == .badSignature)
        #expect(error.message.contains("sign in again"))
    }

    @Test func aTamperedPayloadIsRefused() async throws {
        let parts = try await token(claims()).split(separator: ".")
        let forged = try TestKeys.unsignedToken(header: header, claims: claims(["role": "admin"])).split(separator: ".")[1]
        let error = try await refusal("\(parts[0]).\(forged).\(parts[2])")
        #expect(error.reason == .badSignature)
    }

    /// Each case: the claims changed, as JSON (null removes a claim), and what the message must name.
    @Test(arguments: [
        (#"{"sub": null}"#, "\"sub\""),
        (#"{"sub": ""}"#, "\"sub\""),
        (#"{"role": null}"#, "\"role\""),
        (#"{"role": "guest"}"#, "client, coach, admin, operator"),
        (#"{"role": "Admin"}"#, "client, coach, admin, operator"),
        (#"{"exp": null}"#, "\"exp\""),
        (#"{"family_group_ids": "carter"}"#, "\"family_group_ids\" claim is not an array of strings"),
        (#"{"exp": "tomorrow"}"#, "\"exp\" claim is not a number"),
    ])
    func aTokenWithAMissingOrWrongClaimIsRefusedNamingIt(changes: String, named: String) async throws {
        let changes = try #require(JSONSerialization.jsonObject(with: Data(changes.utf8)) as? [String: Any])
        let error = try await refusal(token(claims(changes)))
        #expect(error.reason == .invalidClaims)
        #expect(error.message.contains(named), "\(error.message)")
    }

    @Test func anUnsignedTokenIsRefused() async throws {
        for alg in ["none", "None", "NONE"] {
            let unsigned = try TestKeys.unsignedToken(header: ["alg": alg], claims: claims())
            for token in [unsigned + ".", unsigned + ".c2lnbmF0dXJl"] {
                let error = try await refusal(token)
                #expect(error.reason == .unsupportedAlgorithm)
                #expect(error.message.contains("unsigned"))
            }
        }
    }

    @Test func otherAlgorithmsAreRefusedEvenWithTheRightSecret() async throws {
        let keys = await JWTKeyCollection().add(hmac: HMACKey(from: TestKeys.secret + TestKeys.secret), digestAlgorithm: .sha512)
        let token = try await TestKeys.token(header: ["alg": "HS512"], claims: claims(), signedBy: keys)
        let error = try await refusal(token)
        #expect(error.reason == .unsupportedAlgorithm)
        #expect(error.message.contains("accepts only HS256"))
    }

    @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "..", "!!!.e30.sig", "e30.e30.sig", "bm90IGpzb24.e30.sig"])
    func somethingThatIsNotAJWTIsMalformed(token: String) async throws {
        #expect(try await refusal(token).reason == .malformedToken)
    }

    @Test func aPayloadThatIsNotAnObjectIsMalformed() async throws {
        let keys = await TestKeys.hmacKeys()
        let input = TestKeys.base64URL(Data(#"{"alg":"HS256"}"#.utf8)) + "." + TestKeys.base64URL(Data("[1,2]".utf8))
        let signature = try await TestKeys.base64URL(Data(keys.getKey().sign(Array(input.utf8))))
        #expect(try await refusal(input + "." + signature).reason == .malformedToken)
    }

    @Test func theIssuerIsCheckedWhenConfigured() async throws {
        let verifier = try await verifier(issuer: "https://id.griot.example")
        #expect(try await verifier.verify(token(claims(["iss": "https://id.griot.example"])), now: now).role == .coach)
        let wrong = try await refusal(token(claims(["iss": "https://evil.example"])), by: verifier)
        #expect(wrong.reason == .wrongIssuer)
        #expect(wrong.message.contains("https://evil.example") && wrong.message.contains("https://id.griot.example"))
        #expect(try await refusal(token(claims()), by: verifier).reason == .wrongIssuer)
    }

    @Test func theAudienceIsCheckedWhenConfigured() async throws {
        let verifier = try await verifier(audience: "griot")
        #expect(try await verifier.verify(token(claims(["aud": "griot"])), now: now).userID == "user-42")
        #expect(try await verifier.verify(token(claims(["aud": ["selffull", "griot"]])), now: now).userID == "user-42")
        let wrong = try await refusal(token(claims(["aud": ["selffull"]])), by: verifier)
        #expect(wrong.reason == .wrongAudience)
        #expect(wrong.message.contains("request a token for the audience \"griot\""))
        #expect(try await refusal(token(claims()), by: verifier).reason == .wrongAudience)
    }

    @Test func issuerAndAudienceAreIgnoredWhenNotConfigured() async throws {
        let caller = try await verifier().verify(token(claims(["iss": "anyone", "aud": "anything"])), now: now)
        #expect(caller.userID == "user-42")
    }
}
