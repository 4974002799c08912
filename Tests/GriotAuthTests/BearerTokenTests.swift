import GriotAuth
import Testing

/// The `Authorization` header: `Bearer <token>`, the scheme in any case.
@Suite struct BearerTokenTests {
    @Test(arguments: ["Bearer abc.def.ghi", "bearer abc.def.ghi", "BEARER   abc.def.ghi ", "  Bearer abc.def.ghi"])
    func theTokenIsTakenFromABearerHeader(header: String) throws {
        #expect(try BearerToken(authorizationHeader: header).token == "abc.def.ghi")
    }

    @Test(arguments: [
        (nil, "send the header Authorization: Bearer <token>"),
        ("", "send the header Authorization: Bearer <token>"),
        ("Basic dXNlcjpwYXNz", "uses the Basic scheme; send Authorization: Bearer <token>"),
        ("Bearer", "carries no token"),
        ("Bearer   ", "carries no token"),
        ("eyJhbGciOiJIUzI1NiJ9.e30.sig", "uses no scheme; send Authorization: Bearer <token>"),
    ] as [(String?, String)])
    func aHeaderWithoutABearerTokenSaysWhatToSend(header: String?, message: String) throws {
        let error = #expect(throws: AuthError.self) { try BearerToken(authorizationHeader: header) }
        #expect(error?.reason == .missingToken)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("eyJ") == false)
    }

    @Test func theChallengeNamesTheProblemOnlyWhenATokenWasSent() {
        #expect(AuthError(.missingToken, "no bearer token").challenge == #"Bearer realm="griot""#)
        #expect(AuthError(.expired, #"the "token" expired"#).challenge
            == #"Bearer realm="griot", error="invalid_token", error_description="the \"token\" expired""#)
    }
}
