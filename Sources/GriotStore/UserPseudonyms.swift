import Crypto
import Foundation
import GRDB

/// The key under which the state that protects other people is kept: a user's rate-limit
/// windows and moderation warning count are stored under an HMAC-SHA256 of the user id with a
/// server secret, never under the id. Erasing the user removes everything that names them,
/// while these rows stay for their window (a day of rate limits, 90 days of warnings): the
/// same id signing in again meets the same limits, so erasure is no way to reset them, and the
/// rows alone (without the secret, which is not in the database) cannot be turned back into
/// the user, not even by trying every user id.
///
/// The secret is `GRIOT_AUDIT_SALT`, else the file beside the database that the audit's IP
/// hashes use (`<db>.audit-salt`, 32 random bytes made once, mode 0600), else (an in-memory
/// database) one made for this process. A separate key is derived from it, so a user's
/// pseudonym never equals the hash of an address.
///
/// ```swift
/// let pseudonyms = try UserPseudonyms(environment: ProcessInfo.processInfo.environment, databasePath: "griot.sqlite")
/// pseudonyms.key(for: "u-maya")   // "9c2e…" (64 hex digits), the same on every node sharing the secret
/// ```
public struct UserPseudonyms: Sendable {
    private let key: SymmetricKey

    public init(secret: Data) {
        key = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Data("griot user pseudonym v1".utf8), using: SymmetricKey(data: secret)))
    }

    /// A secret for this process only (tests, in-memory databases).
    public static func ephemeral() -> UserPseudonyms {
        UserPseudonyms(secret: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    public init(environment: [String: String], databasePath: String?) throws {
        if let salt = environment["GRIOT_AUDIT_SALT"], !salt.isEmpty {
            self.init(secret: Data(salt.utf8))
            return
        }
        guard let databasePath, databasePath != ":memory:", !databasePath.isEmpty else {
            self = .ephemeral()
            return
        }
        let path = databasePath + ".audit-salt"
        if let existing = FileManager.default.contents(atPath: path), existing.count >= 16 {
            self.init(secret: existing)
            return
        }
        let secret = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        // Another process may have made the file meanwhile: its secret wins, so all agree.
        if !FileManager.default.createFile(atPath: path, contents: secret, attributes: [.posixPermissions: 0o600]) {
            guard let existing = FileManager.default.contents(atPath: path), existing.count >= 16 else {
                throw ChatStoreError(.invalid, "Could not create the secret file \(path); make its folder writable, or set GRIOT_AUDIT_SALT to a secret string.")
            }
            self.init(secret: existing)
            return
        }
        self.init(secret: secret)
    }

    /// The pseudonyms for a database: its file's secret, or a process's own for an in-memory one.
    public static func forDatabase(_ writer: any DatabaseWriter) throws -> UserPseudonyms {
        guard let pool = writer as? DatabasePool else { return .ephemeral() }
        return try UserPseudonyms(environment: ProcessInfo.processInfo.environment, databasePath: pool.path)
    }

    /// The user's pseudonym: HMAC-SHA256 of the id, 64 hex digits.
    public func key(for userID: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(userID.utf8), using: key).map { String(format: "%02x", $0) }.joined()
    }
}
