import Foundation
import GriotAuth
import JWTKit
import Testing

/// A JWKS file the server cannot use stops it at start, with a message naming GRIOT_JWKS_FILE.
@Suite struct JSONWebKeySetFileTests {
    func startupError(_ jwksFile: String) async throws -> AuthConfigurationError {
        let caught = await #expect(throws: AuthConfigurationError.self) {
            try await TokenVerifier.make(AuthConfiguration(jwksFile: jwksFile))
        }
        let error = try #require(caught)
        #expect(error.variable == "GRIOT_JWKS_FILE")
        return error
    }

    var ecKey: [String: Any] { TestKeys.jwk(ES256PrivateKey().publicKey, kid: "ec-1") }

    @Test func aMissingFileIsNamed() async throws {
        let error = try await startupError("/nonexistent/jwks.json")
        #expect(error.message.contains("/nonexistent/jwks.json, which does not exist"))
    }

    @Test func aFileThatIsNotAKeySetSaysWhatOneLooksLike() async throws {
        for text in ["not json", #"{"keys": "none"}"#, "[]"] {
            let error = try await startupError(TestKeys.writeFile(Data(text.utf8)))
            #expect(error.message.contains("is not a JSON Web Key Set"))
        }
    }

    @Test func aKeyWithoutKidIsRefused() async throws {
        var key = ecKey
        key["kid"] = nil
        let error = try await startupError(TestKeys.writeKeySet([key]))
        #expect(error.message.contains("without \"kid\""))
    }

    @Test func twoKeysWithOneKidAreRefused() async throws {
        let error = try await startupError(TestKeys.writeKeySet([ecKey, ecKey]))
        #expect(error.message.contains("two keys with kid \"ec-1\""))
    }

    @Test func privateKeyMaterialIsRefused() async throws {
        var key = ecKey
        key["d"] = "c2VjcmV0"
        let error = try await startupError(TestKeys.writeKeySet([key]))
        #expect(error.message.contains("private key material"))
    }

    @Test func aBrokenKeyIsRefused() async throws {
        var key = ecKey
        key["x"] = "AAAA"
        let error = try await startupError(TestKeys.writeKeySet([key]))
        #expect(error.message.contains("EC key \"ec-1\" without a valid P-256 point"))
    }

    @Test func aFileWithNoUsableKeyIsRefused() async throws {
        let error = try await startupError(TestKeys.writeKeySet([
            ["kty": "oct", "kid": "k", "k": "c2VjcmV0"],
            ["kty": "EC", "crv": "P-384", "kid": "p384", "x": "AAAA", "y": "AAAA"],
            ["kty": "EC", "crv": "P-256", "kid": "enc", "use": "enc", "x": "AAAA", "y": "AAAA"],
        ]))
        #expect(error.message.contains("has no RSA (RS256) or EC P-256 (ES256) signing key"))
    }
}
