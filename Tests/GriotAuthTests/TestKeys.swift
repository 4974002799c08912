import Foundation
import JWTKit

/// Keys and token makers for the tests. Tokens are assembled by hand from header and claims
/// dictionaries, then signed with jwt-kit's algorithms, so a test can put anything in them:
/// a missing claim, a wrong type, a lying `alg`.
enum TestKeys {
    static let secret = "test-secret-0123456789-0123456789-abcdef"

    /// A 2048-bit RSA key made for these tests with `openssl genpkey`; jwt-kit 5 can load RSA
    /// keys but not generate them, and a fixed key keeps the suite fast.
    static let rsaPrivateKeyPEM = """
-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDpUyDaRk7UJ/rb
xWeN9e8vYj0ZUtksJdUP9JiHXy3ajpI6xwDjCh0NS7l+u6/NhDVvjOIsPGncwb/4
otxjp+LgGarOXdGMFv+aPW+2wShHaChutqOBB1obBzsjahCv1JBLQ3ee3FEr44Gd
RcwwIcDwXOwzi7yrMcsdvBmB/gAQoTi4HxbsRXMDgVRi5Ls9lERmBSHUQbflrxyr
JZ2VToY2us5TJnRi2eJh0qFSYrIO7DNRAqWTOpGfj/XjNmwsC+37M5ha419jy/6h
KxEeyjekYKMyfVueLAm+gY3XVgzmJfax30ZgmHY+1k5XQuPgoLYEMD5uOWNTJC3G
mzOec8mtAgMBAAECggEAHkRb1yTWtfvHtXmqoMY99Focjevq4yi3Nl4m6SymIJtt
CbXl/g3CTga8Nd34BMN5QRK4BkACBZKWqhTKXR0at7Jsr1+JPtB+8M22b7En3fd7
gz0rAaJoBGiQOdxY9M4wt6q1WkS/PN/C4Rl8TuQaCLQtKdSfMWAAtsc/UdcWwBFC
e5tgrVZaTcxwZ57+jttncj4MXFVsoQw6AVFjDzILJVhxWikgFO4o7UV75vJ7g7fD
cbFYiNeAQ2UOsTAEXhaxawrZQ2vuL3rUazoVdNvhE/uMYvnw4qjgw5EO3dKGD6Au
VdsHQ+8YShtwptYkkOX6XFCNFMjDZ2uXOHQ4GiEJoQKBgQD922vcmytNyVMrPcAx
wgM7o7KiFJhWquHqTidqJ2buBim1f6wY1TsLh9kvKUp2UESU9WrMcsKjYBDnCDh7
evSgtkWxT/M4o4kr+WCNRhIerAGlDCigMWonrB2KrAtyeHDjVxs6GkEBq/as/07i
an4XyukLfFIh64bgafHrhtmu3QKBgQDrS1ZHDD/XgLYNMvPHn7uLL6zkpMNDMYgD
FeaoII7btHTFN1Dqbz6x5AEmQ7PPVZWfIIEH/bPlbaJBuQyO3mDOSyO0PC5Ugmjr
A70vTtMcNiCt4nKq/tq+PWV9aenPhvMAtsNaCn9gqdPJzmQhxVB0z3spNWPHhQEX
GSLbxISREQKBgGlDHdOpB+jGTVVF0rcPMtX9B+pLTevKCcllRNSwp+6U4aCf4xWc
/VHHr9ftcDHlELsPlIxYHbsu73NNJlaVYnBthDKE616V+SAh1NZfss3DFx+ADix2
sQToSoug0VJS/MRX7zNFhaUS0ENlzij2bXiiK8YWc9wa1J+jbqvyC7uFAoGAUsUH
rqqCcr6WTAJWeyyXfpjgyvWisqpj3CICJ7Z8SpEqWo3g6vcDKPS56sn6IL9MiNOY
UEVQ2S4927zKzB8yEp+gCbD540SUv8dq749c+BmaWVDFYZ2ROUbDwuBVHWmtZdzk
z3HN6SUUmXL/ClosuUqbWp2rYe5JueRfvMtejuECgYEAwkOTCp8Z8s3gLMfWZpeL
M/RMPfYW3rQNjPe73d4MJGs8dldU5Ngbb15VlY2tX46FEULikgtwFdNp5r5oekmx
YRC7gro5pi/AuX66NnQwft/NWwEys2xxjkD6YYcAVjz1HxefbG5PI7jSi6LS4mnu
dCRlZuQZm3oWTz+mum9uEW0=
-----END PRIVATE KEY-----
"""

    static func rsaPrivateKey() throws -> Insecure.RSA.PrivateKey {
        try Insecure.RSA.PrivateKey(pem: rsaPrivateKeyPEM)
    }

    /// The public JWK of an RSA key, as an identity provider publishes it.
    static func jwk(_ key: Insecure.RSA.PublicKey, kid: String, alg: String? = "RS256") throws -> [String: Any] {
        let (modulus, exponent) = try key.getKeyPrimitives()
        var jwk: [String: Any] = ["kty": "RSA", "kid": kid, "use": "sig", "n": base64URL(modulus), "e": base64URL(exponent)]
        jwk["alg"] = alg
        return jwk
    }

    /// The public JWK of a P-256 key; like many providers' EC keys, without `alg`.
    static func jwk(_ key: ES256PublicKey, kid: String) -> [String: Any] {
        ["kty": "EC", "crv": "P-256", "kid": kid, "x": key.parameters!.x, "y": key.parameters!.y]
    }

    /// Writes `{"keys": [...]}` to a fresh file and returns its path.
    static func writeKeySet(_ keys: [[String: Any]]) throws -> String {
        try writeFile(JSONSerialization.data(withJSONObject: ["keys": keys]))
    }

    static func writeFile(_ data: Data) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("griot-jwks-\(UUID().uuidString).json").path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A JWT with exactly this header and these claims, signed by `keys` (its key `kid`, or its default).
    static func token(
        header: [String: Any], claims: [String: Any], signedBy keys: JWTKeyCollection, kid: String? = nil
    ) async throws -> String {
        let input = try unsignedToken(header: header, claims: claims)
        let key = try await keys.getKey(for: kid.map { JWKIdentifier(string: $0) })
        return input + "." + base64URL(Data(try key.sign(Array(input.utf8))))
    }

    /// `header.payload`, without the signature part.
    static func unsignedToken(header: [String: Any], claims: [String: Any]) throws -> String {
        let headerJSON = try JSONSerialization.data(withJSONObject: header, options: .sortedKeys)
        let claimsJSON = try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)
        return base64URL(headerJSON) + "." + base64URL(claimsJSON)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func hmacKeys(_ secret: String = TestKeys.secret) async -> JWTKeyCollection {
        await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
    }
}
