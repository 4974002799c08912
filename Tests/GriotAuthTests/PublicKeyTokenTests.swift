import Foundation
import GriotAuth
import JWTKit
import Testing

/// Tokens signed by an identity provider whose public keys are in a JWKS file: RS256 and ES256
/// accepted by `kid`, and the ways a token may try to pick its own check refused.
@Suite struct PublicKeyTokenTests {
    let now = Date(timeIntervalSince1970: 1_750_000_000)
    var claims: [String: Any] { ["sub": "user-7", "role": "client", "family_group_ids": ["carter"], "exp": 1_750_000_600] }

    /// The provider's private keys, and a JWKS file with their public halves as the server gets it.
    struct Provider {
        let keys: JWTKeyCollection
        let rsaPublicKey: Insecure.RSA.PublicKey
        let jwksFile: String

        init(extraKeys: [[String: Any]] = []) async throws {
            let rsa = try TestKeys.rsaPrivateKey()
            let ec = ES256PrivateKey()
            keys = JWTKeyCollection()
            await keys.add(rsa: rsa, digestAlgorithm: .sha256, kid: "rsa-2025")
            await keys.add(ecdsa: ec, kid: "ec-2025")
            rsaPublicKey = rsa.publicKey
            jwksFile = try TestKeys.writeKeySet(
                [TestKeys.jwk(rsa.publicKey, kid: "rsa-2025"), TestKeys.jwk(ec.publicKey, kid: "ec-2025")] + extraKeys)
        }

        func verifier(secret: String? = nil) async throws -> TokenVerifier {
            try await TokenVerifier.make(AuthConfiguration(hs256Secret: secret, jwksFile: jwksFile))
        }

        func token(alg: String, kid: String?, claims: [String: Any], signingKid: String? = nil) async throws -> String {
            var header: [String: Any] = ["alg": alg, "typ": "JWT"]
            header["kid"] = kid
            return try await TestKeys.token(header: header, claims: claims, signedBy: keys, kid: signingKid ?? kid)
        }
    }

    func refusal(_ token: String, by verifier: TokenVerifier) async throws -> AuthError {
        let caught = await #expect(throws: AuthError.self) { try await verifier.verify(token, now: now) }
        return try #require(caught)
    }

    @Test func anRS256TokenIsVerifiedWithTheKeyItsKidNames() async throws {
        let provider = try await Provider()
        let caller = try await provider.verifier().verify(provider.token(alg: "RS256", kid: "rsa-2025", claims: claims), now: now)
        #expect(caller == Caller(userID: "user-7", role: .client, familyGroupIDs: ["carter"], expiresAt: Date(timeIntervalSince1970: 1_750_000_600)))
    }

    @Test func anES256TokenIsVerifiedWithAnECKeyThatNamesNoAlgorithm() async throws {
        let provider = try await Provider()
        let caller = try await provider.verifier().verify(provider.token(alg: "ES256", kid: "ec-2025", claims: claims), now: now)
        #expect(caller.userID == "user-7")
    }

    @Test func tokensFromJWTKitsOwnSignerAreAccepted() async throws {
        struct Payload: JWTPayload {
            var sub: SubjectClaim
            var role: String
            var exp: ExpirationClaim
            func verify(using algorithm: some JWTAlgorithm) throws {}
        }
        let provider = try await Provider()
        let payload = Payload(sub: "user-9", role: "operator", exp: .init(value: now.addingTimeInterval(60)))
        let token = try await provider.keys.sign(payload, kid: "ec-2025")
        #expect(try await provider.verifier().verify(token, now: now).role == .operator)
    }

    @Test func anUnknownKidIsRefused() async throws {
        let provider = try await Provider()
        let error = try await refusal(provider.token(alg: "RS256", kid: "rsa-2019", claims: claims, signingKid: "rsa-2025"), by: provider.verifier())
        #expect(error.reason == .unknownKey)
        #expect(error.message.contains("\"rsa-2019\", which is not in this server's key set"))
    }

    @Test func aTokenWithoutKidIsRefused() async throws {
        let provider = try await Provider()
        let error = try await refusal(provider.token(alg: "RS256", kid: nil, claims: claims, signingKid: "rsa-2025"), by: provider.verifier())
        #expect(error.reason == .unknownKey)
        #expect(error.message.contains("kid"))
    }

    @Test func aKeyInTheFileThatGriotCannotUseIsNamedWithTheReason() async throws {
        let provider = try await Provider(extraKeys: [
            ["kty": "oct", "kid": "shared", "k": "c2VjcmV0"],
            try TestKeys.jwk(TestKeys.rsaPrivateKey().publicKey, kid: "rsa-512", alg: "RS512"),
        ])
        let verifier = try await provider.verifier()
        let oct = try await refusal(provider.token(alg: "RS256", kid: "shared", claims: claims, signingKid: "rsa-2025"), by: verifier)
        #expect(oct.reason == .unknownKey)
        #expect(oct.message.contains("key type is \"oct\""))
        let rs512 = try await refusal(provider.token(alg: "RS256", kid: "rsa-512", claims: claims, signingKid: "rsa-2025"), by: verifier)
        #expect(rs512.message.contains("RS256 only"))
    }

    @Test func aTokenSignedByAnotherKeyUnderAKnownKidIsRefused() async throws {
        let provider = try await Provider()
        let impostor = await JWTKeyCollection().add(ecdsa: ES256PrivateKey(), kid: "ec-2025")
        let token = try await TestKeys.token(header: ["alg": "ES256", "kid": "ec-2025"], claims: claims, signedBy: impostor, kid: "ec-2025")
        #expect(try await refusal(token, by: provider.verifier()).reason == .badSignature)
    }

    /// The classic alg confusion: an HS256 token whose HMAC key is the provider's public key,
    /// which anyone can download.
    @Test func anHS256TokenIsRefusedWhenOnlyPublicKeysAreConfigured() async throws {
        let provider = try await Provider()
        let publicKeyAsSecret = await JWTKeyCollection().add(hmac: HMACKey(from: provider.rsaPublicKey.pemRepresentation), digestAlgorithm: .sha256)
        let token = try await TestKeys.token(header: ["alg": "HS256", "kid": "rsa-2025"], claims: claims, signedBy: publicKeyAsSecret)
        let error = try await refusal(token, by: provider.verifier())
        #expect(error.reason == .unsupportedAlgorithm)
        #expect(error.message.contains("signed with HS256, but this server accepts only RS256, ES256"))
    }

    @Test func anHS256TokenIsCheckedOnlyAgainstTheSecretWhenBothAreConfigured() async throws {
        let provider = try await Provider()
        let verifier = try await provider.verifier(secret: TestKeys.secret)
        let publicKeyAsSecret = await JWTKeyCollection().add(hmac: HMACKey(from: provider.rsaPublicKey.pemRepresentation), digestAlgorithm: .sha256)
        let forged = try await TestKeys.token(header: ["alg": "HS256", "kid": "rsa-2025"], claims: claims, signedBy: publicKeyAsSecret)
        #expect(try await refusal(forged, by: verifier).reason == .badSignature)
        let genuine = try await TestKeys.token(header: ["alg": "HS256"], claims: claims, signedBy: TestKeys.hmacKeys())
        #expect(try await verifier.verify(genuine, now: now).userID == "user-7")
        #expect(try await verifier.verify(provider.token(alg: "RS256", kid: "rsa-2025", claims: claims), now: now).userID == "user-7")
    }

    @Test func aTokenMayNotUseAKeyWithAnotherAlgorithmThanTheKeys() async throws {
        let provider = try await Provider()
        let error = try await refusal(provider.token(alg: "ES256", kid: "rsa-2025", claims: claims, signingKid: "ec-2025"), by: provider.verifier())
        #expect(error.reason == .unsupportedAlgorithm)
        #expect(error.message.contains("key \"rsa-2025\" is an RS256 key"))
    }

    @Test func claimsAreCheckedForPublicKeyTokensToo() async throws {
        let provider = try await Provider()
        var expired = claims
        expired["exp"] = 1_749_999_000
        #expect(try await refusal(provider.token(alg: "RS256", kid: "rsa-2025", claims: expired), by: provider.verifier()).reason == .expired)
    }
}
