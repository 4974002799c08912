import Crypto
import Foundation
import NIOCore

/// Turns a client's IP address into the salted hash the audit log keeps (HMAC-SHA256 with a
/// secret salt, hex), so the log can tell one address from another without holding any.
///
/// The salt comes from `GRIOT_AUDIT_SALT`; without it, from a file beside the database
/// (`<db>.audit-salt`, made once with 32 random bytes, mode 0600) so that hashes stay
/// comparable across restarts; for an in-memory database, a salt made for this process.
///
/// ```swift
/// let hasher = try AddressHasher(environment: ProcessInfo.processInfo.environment, databasePath: "griot.sqlite")
/// hasher.hash("203.0.113.7")   // "3f1c…" (64 hex digits)
/// ```
public struct AddressHasher: Sendable {
    private let key: SymmetricKey

    public init(salt: Data) {
        key = SymmetricKey(data: salt)
    }

    /// A salt for this process only (tests, in-memory databases).
    public static func ephemeral() -> AddressHasher {
        AddressHasher(salt: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    public init(environment: [String: String], databasePath: String?) throws {
        if let salt = environment["GRIOT_AUDIT_SALT"], !salt.isEmpty {
            self.init(salt: Data(salt.utf8))
            return
        }
        guard let databasePath, databasePath != ":memory:", !databasePath.isEmpty else {
            self = .ephemeral()
            return
        }
        let saltPath = databasePath + ".audit-salt"
        if let existing = FileManager.default.contents(atPath: saltPath), existing.count >= 16 {
            self.init(salt: existing)
            return
        }
        let salt = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        guard FileManager.default.createFile(atPath: saltPath, contents: salt, attributes: [.posixPermissions: 0o600]) else {
            throw AddressHasherError(path: saltPath)
        }
        self.init(salt: salt)
    }

    public func hash(_ address: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(address.utf8), using: key).map { String(format: "%02x", $0) }.joined()
    }

    /// The hash of a socket's IP address (without the port); nil when there is none (a Unix socket, a test channel).
    func hash(_ address: SocketAddress?) -> String? {
        guard let ip = address?.ipAddress else { return nil }
        return hash(ip)
    }
}

public struct AddressHasherError: Error, CustomStringConvertible {
    var path: String
    public var description: String {
        "Could not create the audit salt file \(path); make its folder writable, or set GRIOT_AUDIT_SALT to a secret string."
    }
}
