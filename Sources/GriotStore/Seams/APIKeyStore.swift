import Foundation

/// Services' API keys (`APIKey`): made and revoked by admins, looked up by id on every request
/// that carries one, with their last use written at most once a minute. A key's `region` says
/// which region's database keeps its requests' conversations; the keys themselves stay in the
/// node's home database (`RegionalChatStore`).
///
/// ```swift
/// let (key, token) = APIKey.make(name: "exporter", role: "coach", now: Date())
/// try await keys.createAPIKey(key)                       // hand `token` over once
/// guard let stored = try await keys.apiKey(id: key.id), stored.matches(secret: secret) else { … }
/// ```
public protocol APIKeyStore: Sendable {
    /// Stores a new key (its secret only as the hash the key holds).
    @discardableResult
    func createAPIKey(_ key: APIKey) async throws -> APIKey
    /// Every key, newest first, revoked and expired ones included.
    func apiKeys() async throws -> [APIKey]
    func apiKey(id: String) async throws -> APIKey?
    /// Ends a key now (a revoked key stays listed, with when); revoked once; nil when there is none.
    func revokeAPIKey(id: String, at now: Date) async throws -> APIKey?
    /// Records a use at `now` unless one less than `interval` seconds before it is recorded
    /// (another request, another node got there first); true when it wrote.
    func recordAPIKeyUse(id: String, at now: Date, interval: TimeInterval) async throws -> Bool
}

extension APIKeyStore {
    @discardableResult
    public func revokeAPIKey(id: String, at now: Date = Date()) async throws -> APIKey? {
        try await revokeAPIKey(id: id, at: now)
    }

    @discardableResult
    public func recordAPIKeyUse(id: String, at now: Date = Date(), interval: TimeInterval = APIKey.lastUseInterval) async throws -> Bool {
        try await recordAPIKeyUse(id: id, at: now, interval: interval)
    }
}
