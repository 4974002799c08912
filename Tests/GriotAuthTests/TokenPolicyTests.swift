import Foundation
import GriotAuth
import JWTKit
import Testing

/// Issue 25's token policy: a token lives at most the configured lifetime, names no critical
/// extension, and carries identifiers that cannot pass for someone else's.
extension HS256TokenTests {
    @Test func aTokenLivingLongerThanTheLimitIsRefused() async throws {
        // 24 h after iat is the default limit; a day and a minute is over it (the leeway is 30 s).
        let error = try await refusal(token(claims(["iat": nowSeconds, "exp": nowSeconds + 86_400 + 60])))
        #expect(error.reason == .invalidClaims)
        #expect(error.message.contains("at most 24 h"), "\(error.message)")
        // Exactly a day is accepted.
        _ = try await verifier().verify(token(claims(["iat": nowSeconds, "exp": nowSeconds + 86_400])), now: now)
    }

    @Test func withoutIatTheLifetimeIsCountedFromNow() async throws {
        let farFuture = try await token(claims(["exp": nowSeconds + 10 * 365 * 86_400]))
        let error = try await refusal(farFuture)
        #expect(error.reason == .invalidClaims)
        #expect(error.message.contains("shorter-lived token"))
    }

    @Test func theLifetimeLimitIsConfigurable() async throws {
        let verifier = try await TokenVerifier.make(AuthConfiguration(hs256Secret: TestKeys.secret, maxLifetimeSeconds: 3_600))
        let twoHours = try await token(claims(["iat": nowSeconds, "exp": nowSeconds + 7_200]))
        _ = try await refusal(twoHours, by: verifier)
        let environment = try AuthConfiguration(environment: ["GRIOT_JWT_SECRET": TestKeys.secret, "GRIOT_JWT_MAX_LIFETIME_SECONDS": "3600"])
        #expect(environment.maxLifetimeSeconds == 3_600)
        #expect(throws: AuthConfigurationError.self) {
            try AuthConfiguration(environment: ["GRIOT_JWT_SECRET": TestKeys.secret, "GRIOT_JWT_MAX_LIFETIME_SECONDS": "31536000"])
        }
    }

    @Test func aDevelopmentTokenCannotBeMintedPastTheLimit() async throws {
        let verifier = try await verifier()
        await #expect(throws: AuthConfigurationError.self) {
            _ = try await verifier.mintDevelopmentToken(userID: "u", role: .client, expiresIn: 2 * 86_400)
        }
    }

    @Test(arguments: [#"["exp"]"#, #"["b64"]"#, "[]", #""exp""#])
    func aCriticalHeaderIsRefused(crit: String) async throws {
        var header = self.header
        header["crit"] = try JSONSerialization.jsonObject(with: Data(crit.utf8), options: .fragmentsAllowed)
        let error = try await refusal(token(claims(), header: header))
        #expect(error.reason == .malformedToken)
    }

    /// The attack seen: the victim's id, a NUL, then more; stored ids were cut at the NUL.
    @Test(arguments: ["user-42\u{0}evil", "user-42\u{200B}", " user-42", "user-42\n", "\u{202E}24-resu", String(repeating: "x", count: 256)])
    func aSubThatCouldPassForAnotherIdIsRefused(sub: String) async throws {
        let error = try await refusal(token(claims(["sub": sub])))
        #expect(error.reason == .invalidClaims)
        #expect(error.message.contains("\"sub\""))
    }

    @Test(arguments: ["auth0|5f8a0c", "zofia.łukasiewicz@example.pl", "李秀英", "8f14e45f-ceea-467f-a0c8-1c1b9d0b1a2b"])
    func realIdentifiersPass(sub: String) async throws {
        let caller = try await verifier().verify(token(claims(["sub": sub, "course_ids": ["c-1"], "family_group_ids": ["fam-łódź"]])), now: now)
        #expect(caller.userID == sub)
    }

    @Test(arguments: ["course_ids", "family_group_ids"])
    func aGroupIdWithAControlCharacterIsRefused(claim: String) async throws {
        let error = try await refusal(token(claims([claim: ["c-1\u{0}c-2"]])))
        #expect(error.reason == .invalidClaims)
        #expect(error.message.contains(claim))
    }

    @Test(arguments: [1e300, -5.0])
    func aTimeNoCalendarCanShowIsRefused(exp: Double) async throws {
        let error = try await refusal(token(claims(["exp": exp])))
        #expect(error.reason == .invalidClaims)
        #expect(error.message.contains("\"exp\""))
    }
}
