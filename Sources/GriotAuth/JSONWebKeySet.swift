import Foundation
import JWTKit

/// The public keys of a JWKS file (RFC 7517), each under its `kid` with the one algorithm it verifies.
///
/// RSA keys verify RS256 and EC P-256 keys ES256. Keys Griot cannot use (other key types,
/// curves or algorithms, encryption keys) are kept aside with the reason, so that a token
/// naming one is told why; a file with no usable key, a key without `kid`, or private key
/// material is refused.
///
/// ```swift
/// let keySet = try JSONWebKeySet(contentsOf: "/etc/griot/jwks.json")
/// keySet.keys["2024-rsa"]?.algorithm  // .rs256
/// ```
struct JSONWebKeySet: Sendable {
    enum PublicKey: Sendable {
        case rsa(Insecure.RSA.PublicKey)
        case p256(ES256PublicKey)
    }

    struct Entry: Sendable {
        var algorithm: SigningAlgorithm
        var key: PublicKey
    }

    var keys: [String: Entry] = [:]
    /// Keys in the file that Griot does not use, by `kid`, with why.
    var unusable: [String: String] = [:]

    init(contentsOf path: String) throws(AuthConfigurationError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw AuthConfigurationError(
                "GRIOT_JWKS_FILE names \(path), which does not exist; check the path, or unset GRIOT_JWKS_FILE to verify HS256 tokens only",
                variable: "GRIOT_JWKS_FILE")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuthConfigurationError(
                "cannot read the JWKS file \(path) (GRIOT_JWKS_FILE); check its permissions",
                variable: "GRIOT_JWKS_FILE")
        }
        try self.init(json: data, source: path)
    }

    init(json: Data, source: String) throws(AuthConfigurationError) {
        func failure(_ message: String) -> AuthConfigurationError {
            AuthConfigurationError("the JWKS file \(source) (GRIOT_JWKS_FILE) \(message)", variable: "GRIOT_JWKS_FILE")
        }
        let file: KeySetFile
        do {
            file = try JSONDecoder().decode(KeySetFile.self, from: json)
        } catch {
            throw failure(#"is not a JSON Web Key Set; it should read {"keys": [{"kty": "RSA", "kid": ..., "n": ..., "e": ...}, ...]}"#)
        }
        for (index, key) in file.keys.enumerated() {
            guard let kid = key.kid, !kid.isEmpty else {
                throw failure(#"has a key without "kid" (number \#(index + 1)); give every key a kid, since tokens name their key by it"#)
            }
            guard keys[kid] == nil, unusable[kid] == nil else {
                throw failure("has two keys with kid \"\(kid)\"; give each key its own kid")
            }
            guard key.d == nil, key.p == nil else {
                throw failure("holds private key material in key \"\(kid)\"; publish only the public parts (kty, kid, n, e or crv, x, y) on the server")
            }
            if let use = key.use, use != "sig" {
                unusable[kid] = "it is marked for use \"\(use)\", not for signatures"
                continue
            }
            switch key.kty {
            case "RSA":
                guard key.alg == nil || key.alg == "RS256" else {
                    unusable[kid] = "it is an RSA key for \(key.alg!), and Griot verifies RSA keys with RS256 only"
                    continue
                }
                guard let n = key.n, let e = key.e,
                      let publicKey = try? Insecure.RSA.PublicKey(modulus: n, exponent: e)
                else {
                    throw failure("has RSA key \"\(kid)\" without a valid \"n\" and \"e\" (base64url, 2048 bits or more); export the key again")
                }
                keys[kid] = Entry(algorithm: .rs256, key: .rsa(publicKey))
            case "EC":
                guard key.crv == "P-256", key.alg == nil || key.alg == "ES256" else {
                    unusable[kid] = "it is an EC key on \(key.crv ?? "no curve") for \(key.alg ?? "no algorithm"), and Griot verifies EC keys on P-256 with ES256 only"
                    continue
                }
                guard let x = key.x, let y = key.y, let publicKey = try? ES256PublicKey(parameters: (x, y)) else {
                    throw failure("has EC key \"\(kid)\" without a valid P-256 point in \"x\" and \"y\" (base64url); export the key again")
                }
                keys[kid] = Entry(algorithm: .es256, key: .p256(publicKey))
            default:
                unusable[kid] = "its key type is \"\(key.kty ?? "none")\", and Griot verifies RSA (RS256) and EC P-256 (ES256) keys only"
            }
        }
        guard !keys.isEmpty else {
            throw failure("has no RSA (RS256) or EC P-256 (ES256) signing key; add one, or unset GRIOT_JWKS_FILE to verify HS256 tokens only")
        }
    }

    /// The file's JSON, every member optional so that each problem gets its own message.
    private struct KeySetFile: Decodable {
        var keys: [KeyFields]
    }

    private struct KeyFields: Decodable {
        var kty: String?
        var kid: String?
        var alg: String?
        var use: String?
        var crv: String?
        var n: String?
        var e: String?
        var x: String?
        var y: String?
        var d: String?
        var p: String?
    }
}
