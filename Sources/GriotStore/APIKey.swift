import Crypto
import Foundation
import GRDB

/// A service's credential: an admin makes one with a role and the families and courses it
/// stands for, and the service sends it as `Authorization: Bearer griot_<id>_<secret>` where a
/// person would send a signed-in token. The id is public (lists, logs, the audit); the secret
/// is shown once, when the key is made, and only its SHA-256 is stored. The secret is 32 random
/// bytes, so a fast hash is enough: there is nothing to guess that a slow hash would protect.
///
/// ```swift
/// let (key, token) = APIKey.make(name: "nightly export", role: "coach", now: Date())
/// try await chats.createAPIKey(key)          // print `token` once; it is not kept
/// let id = APIKey.parse(token)?.id           // later, from a request's bearer token
/// ```
public struct APIKey: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "apiKey"
    /// What every key begins with, so a bearer token is told from a JWT (which begins `eyJ`) by its first letters.
    public static let prefix = "griot_"
    /// A busy key's last use is written at most this often (seconds), not on every request.
    public static let lastUseInterval: TimeInterval = 60

    /// 16 hex digits, public: the key's name in lists, logs and the audit (`key:<id>` as a caller).
    public var id: String
    /// What the admin called it ("nightly export"), for the list.
    public var name: String
    /// The role its requests have (a `CallerRole`: client, coach, admin, operator).
    public var role: String
    /// JSON arrays of ids, written by `init` (the stored text is the same on both backends).
    var familyIDs: String
    var courseIDs: String
    /// 64 hex digits: SHA-256 of the secret.
    public var secretHash: String
    /// Its own chat message limit a minute, in place of the service's (nil: the service's).
    public var requestsPerMinute: Int?
    public var createdAt: Date
    /// Nil: it never expires (until revoked).
    public var expiresAt: Date?
    public var revokedAt: Date?
    /// Within `lastUseInterval` of its latest use; nil until first used.
    public var lastUsedAt: Date?
    /// The region whose database keeps its requests' conversations (residency); nil: the node's default region.
    public var region: String?

    public init(id: String, name: String, role: String, families: [String] = [], courses: [String] = [], secretHash: String,
                requestsPerMinute: Int? = nil, createdAt: Date, expiresAt: Date? = nil, revokedAt: Date? = nil, lastUsedAt: Date? = nil,
                region: String? = nil) {
        self.id = id
        self.name = name
        self.role = role
        self.familyIDs = Self.encode(families)
        self.courseIDs = Self.encode(courses)
        self.secretHash = secretHash
        self.requestsPerMinute = requestsPerMinute
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.lastUsedAt = lastUsedAt
        self.region = region
    }

    /// The family groups whose `family_only` stories the key's requests may read.
    public var families: [String] { Self.decode(familyIDs) }
    /// The courses the key's requests may use (empty: the key names none).
    public var courses: [String] { Self.decode(courseIDs) }

    /// A new key with a fresh id and secret, and the bearer token that carries them: the only
    /// time the secret exists outside the service's caller. Dates are kept to the millisecond,
    /// as both databases store them.
    public static func make(name: String, role: String, families: [String] = [], courses: [String] = [], expiresAt: Date? = nil,
                            requestsPerMinute: Int? = nil, region: String? = nil, now: Date) -> (key: APIKey, token: String) {
        var generator = SystemRandomNumberGenerator()
        let id = hex((0..<8).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        let secret = hex((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        let key = APIKey(id: id, name: name, role: role, families: families, courses: courses, secretHash: hash(secret: secret),
                         requestsPerMinute: requestsPerMinute, createdAt: wholeMilliseconds(now), expiresAt: expiresAt.map(wholeMilliseconds),
                         region: region)
        return (key, prefix + id + "_" + secret)
    }

    /// The id and secret of a token of the form `griot_<id>_<secret>`; nil when it is not one.
    public static func parse(_ token: String) -> (id: String, secret: String)? {
        guard token.hasPrefix(prefix) else { return nil }
        let rest = token.dropFirst(prefix.count)
        guard let separator = rest.firstIndex(of: "_") else { return nil }
        let id = rest[..<separator], secret = rest[rest.index(after: separator)...]
        guard !id.isEmpty, id.count <= 64, !secret.isEmpty, secret.count <= 256 else { return nil }
        return (String(id), String(secret))
    }

    /// SHA-256 of a secret, as 64 hex digits.
    public static func hash(secret: String) -> String {
        hex(Array(SHA256.hash(data: Data(secret.utf8))))
    }

    /// Whether `secret` is this key's, compared in time that does not depend on where the hashes differ.
    public func matches(secret: String) -> Bool {
        let given = Array(Self.hash(secret: secret).utf8), stored = Array(secretHash.utf8)
        guard given.count == stored.count else { return false }
        var difference: UInt8 = 0
        for index in given.indices { difference |= given[index] ^ stored[index] }
        return difference == 0
    }

    /// Whether requests may use the key at `now`, and if not, why.
    public enum Standing: Sendable, Hashable {
        case active
        case revoked(at: Date)
        case expired(at: Date)
    }

    public func standing(at now: Date) -> Standing {
        if let revokedAt { return .revoked(at: revokedAt) }
        if let expiresAt, expiresAt <= now { return .expired(at: expiresAt) }
        return .active
    }

    /// Whether a use at `now` should be written: none recorded yet, or the last is a minute old.
    public func needsUseRecorded(at now: Date) -> Bool {
        lastUsedAt.map { now.timeIntervalSince($0) >= Self.lastUseInterval } ?? true
    }

    private static func wholeMilliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    // Ids are plain strings: encoding them cannot fail.
    private static func encode(_ ids: [String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(ids)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    private static func decode(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}

extension AuditAction {
    /// An admin made an API key (`details`: its id, role and expiry; never its secret).
    public static let apiKeyCreate: AuditAction = "api_key.create"
    /// An admin revoked an API key (`details`: its id).
    public static let apiKeyRevoke: AuditAction = "api_key.revoke"
}
