import Foundation
import GriotStore
import PostgresNIO

extension PostgresDatabase {
    /// This database's stores together: its stories, its conversations and its rate limiter,
    /// all counting in the one database every node shares.
    ///
    /// ```swift
    /// let storage = try await PostgresDatabase.open(url: url).storage()
    /// let limiter = try storage.rateLimiter([.perMinute(30)])
    /// ```
    /// With a keyring (`GRIOT_MASTER_KEY_FILE`, or `cipher`'s), fails here when it cannot open
    /// the database's data keys, naming the master key.
    public func storage(environment: [String: String] = ProcessInfo.processInfo.environment, cipher: FieldCipher? = nil) async throws -> Storage {
        let cipher = try cipher ?? FieldCipher(keyring: MasterKeyring.configured(environment))
        try await PostgresDataKeys(database: self, cipher: cipher).checkOpens()
        let pseudonyms = try await userPseudonyms(environment: environment)
        let chats = PostgresChatStore(database: self, pseudonyms: pseudonyms, cipher: cipher)
        return Storage(location: location, stories: PostgresStoryStore(database: self, cipher: cipher), chats: chats) { limits in
            try chats.rateLimiter(limits)
        }
    }

    /// The `meta` key of the pseudonym secret made for a database run without `GRIOT_AUDIT_SALT`.
    static let pseudonymSecretKey = "user_pseudonym_secret"

    /// The keys of rate limits and warning counts, the same on every node: `GRIOT_AUDIT_SALT`
    /// when it is set (as `UserPseudonyms(environment:databasePath:)` reads it), else 32 random
    /// bytes kept in `meta`, made by whichever node comes first (`ON CONFLICT DO NOTHING`) and
    /// read back by all. Set `GRIOT_AUDIT_SALT` in production: a secret in the database lets
    /// whoever holds a dump test user ids against the pseudonyms, which the salt kept apart does not.
    func userPseudonyms(environment: [String: String]) async throws -> UserPseudonyms {
        if let salt = environment["GRIOT_AUDIT_SALT"], !salt.isEmpty {
            return UserPseudonyms(secret: Data(salt.utf8))
        }
        var generator = SystemRandomNumberGenerator()
        let candidate = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }.joined()
        try await client.query("INSERT INTO meta (key, value) VALUES (\(Self.pseudonymSecretKey), \(candidate)) ON CONFLICT (key) DO NOTHING",
                               logger: logger)
        let stored = try await client.query("SELECT value FROM meta WHERE key = \(Self.pseudonymSecretKey)", logger: logger)
            .collect().first?.decode(String.self)
        guard let stored, let secret = Self.bytes(hex: stored), secret.count >= 16 else {
            throw Failure("""
                The pseudonym secret in meta (\(Self.pseudonymSecretKey)) of \(endpoint) is not 16 or more bytes of hex; \
                set GRIOT_AUDIT_SALT, or delete that row to make a new one (which resets every user's rate limits and warning counts).
                """)
        }
        return UserPseudonyms(secret: secret)
    }

    /// The bytes of an even-length hex string, or nil when it is not one.
    private static func bytes(hex: String) -> Data? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
