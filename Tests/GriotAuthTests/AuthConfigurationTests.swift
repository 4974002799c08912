import Foundation
import GriotAuth
import Testing

/// Reading the auth settings from the environment, and refusing the ones that cannot work.
@Suite struct AuthConfigurationTests {
    func refusal(_ environment: [String: String]) throws -> AuthConfigurationError {
        let caught = #expect(throws: AuthConfigurationError.self) { try AuthConfiguration(environment: environment) }
        return try #require(caught)
    }

    @Test func everyVariableIsRead() throws {
        let configuration = try AuthConfiguration(environment: [
            "GRIOT_JWT_SECRET": TestKeys.secret, "GRIOT_JWKS_FILE": "/etc/griot/jwks.json",
            "GRIOT_JWT_ISSUER": "https://id.griot.example", "GRIOT_JWT_AUDIENCE": "griot",
            "GRIOT_JWT_LEEWAY_SECONDS": "5", "GRIOT_AUTH_MODE": "production",
        ])
        #expect(configuration == AuthConfiguration(
            hs256Secret: TestKeys.secret, jwksFile: "/etc/griot/jwks.json", issuer: "https://id.griot.example",
            audience: "griot", leewaySeconds: 5, development: false))
    }

    @Test func defaultsAreProductionWithThirtySecondsOfLeeway() throws {
        let configuration = try AuthConfiguration(environment: ["GRIOT_JWKS_FILE": "/etc/griot/jwks.json", "GRIOT_JWT_ISSUER": ""])
        #expect(configuration == AuthConfiguration(jwksFile: "/etc/griot/jwks.json", leewaySeconds: 30, development: false))
    }

    @Test func developmentModeUsesThePublishedSecret() throws {
        let configuration = try AuthConfiguration(environment: ["GRIOT_AUTH_MODE": "development"])
        #expect(configuration.development)
        #expect(configuration.hs256Secret == "griot-development-secret-change-me")
        let own = "a-developer's-own-secret-of-32-bytes"
        #expect(try AuthConfiguration(environment: ["GRIOT_AUTH_MODE": "Development", "GRIOT_JWT_SECRET": own]).hs256Secret == own)
    }

    @Test func theDevelopmentSecretIsRefusedInProduction() throws {
        let error = try refusal(["GRIOT_JWT_SECRET": AuthConfiguration.developmentSecret])
        #expect(error.variable == "GRIOT_JWT_SECRET")
        #expect(error.message.contains("published development secret"))
    }

    @Test(arguments: ["production", "development"])
    func aSecretShorterThan32BytesIsRefused(mode: String) throws {
        let error = try refusal(["GRIOT_JWT_SECRET": "0123456789abcdef0123456789abcde", "GRIOT_AUTH_MODE": mode])
        #expect(error.variable == "GRIOT_JWT_SECRET")
        #expect(error.message.contains("is 31 bytes; HS256 needs at least 32"))
        #expect(try AuthConfiguration(environment: ["GRIOT_JWT_SECRET": "0123456789abcdef0123456789abcdef"]).hs256Secret != nil)
    }

    @Test func nothingToVerifyWithIsRefusedNamingWhatToSet() throws {
        let error = try refusal([:])
        #expect(error.message.contains("GRIOT_JWT_SECRET") && error.message.contains("GRIOT_JWKS_FILE")
            && error.message.contains("GRIOT_AUTH_MODE=development"))
    }

    @Test(arguments: [
        ("GRIOT_AUTH_MODE", "dev"), ("GRIOT_JWT_LEEWAY_SECONDS", "thirty"), ("GRIOT_JWT_LEEWAY_SECONDS", "-1"),
        ("GRIOT_JWT_LEEWAY_SECONDS", "3600"),
    ])
    func aBadValueIsRefusedNamingItsVariable(variable: String, value: String) throws {
        let error = try refusal(["GRIOT_JWT_SECRET": TestKeys.secret, variable: value])
        #expect(error.variable == variable)
        #expect(error.message.contains(variable))
    }

    @Test func aVerifierChecksAConfigurationBuiltInCode() async throws {
        await #expect(throws: AuthConfigurationError.self) {
            try await TokenVerifier.make(AuthConfiguration(hs256Secret: "short"))
        }
    }
}
