import Foundation
import GriotAuth
import Testing

/// Minting tokens for local use and tests, with the verifier's own HS256 secret only.
@Suite struct DevelopmentTokenTests {
    @Test func aMintedDevelopmentTokenVerifiesToTheSameCaller() async throws {
        let verifier = try await TokenVerifier.make(AuthConfiguration(environment: ["GRIOT_AUTH_MODE": "development"]))
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        let token = try await verifier.mintDevelopmentToken(
            userID: "ada", role: .admin, familyGroupIDs: ["carter"], courseIDs: ["c-1", "c-2"], locale: "en",
            expiresIn: 900, now: now)
        let caller = try await verifier.verify(authorizationHeader: "Bearer \(token)", now: now.addingTimeInterval(60))
        #expect(caller == Caller(
            userID: "ada", role: .admin, familyGroupIDs: ["carter"], courseIDs: ["c-1", "c-2"], locale: "en",
            expiresAt: now.addingTimeInterval(900)))
        let late = await #expect(throws: AuthError.self) { try await verifier.verify(token, now: now.addingTimeInterval(1000)) }
        #expect(late?.reason == .expired)
    }

    @Test func aMintedTokenCarriesTheConfiguredIssuerAndAudience() async throws {
        let verifier = try await TokenVerifier.make(AuthConfiguration(
            hs256Secret: TestKeys.secret, issuer: "https://id.griot.example", audience: "griot"))
        let token = try await verifier.mintDevelopmentToken(userID: "u", role: .client)
        #expect(try await verifier.verify(token).userID == "u")
    }

    @Test func aTokenMintedWithTheDevelopmentSecretIsRefusedByAServerWithItsOwn() async throws {
        let development = try await TokenVerifier.make(AuthConfiguration(environment: ["GRIOT_AUTH_MODE": "development"]))
        let production = try await TokenVerifier.make(AuthConfiguration(environment: ["GRIOT_JWT_SECRET": TestKeys.secret]))
        let token = try await development.mintDevelopmentToken(userID: "u", role: .operator)
        let error = await #expect(throws: AuthError.self) { try await production.verify(token) }
        #expect(error?.reason == .badSignature)
    }

    @Test func aVerifierWithOnlyPublicKeysCannotMint() async throws {
        let jwks = try TestKeys.writeKeySet([TestKeys.jwk(TestKeys.rsaPrivateKey().publicKey, kid: "rsa")])
        let verifier = try await TokenVerifier.make(AuthConfiguration(jwksFile: jwks))
        let error = await #expect(throws: AuthConfigurationError.self) {
            try await verifier.mintDevelopmentToken(userID: "u", role: .admin)
        }
        #expect(error?.message.contains("cannot mint tokens") == true)
    }
}
