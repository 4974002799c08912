import Foundation

/// One database's stores, opened together: the stories, the conversations and the rate
/// limiter all live in the same database, so every node on it sees the same state.
///
/// ```swift
/// let storage = try await StorageLocation.parse(url).open()   // sqlite:PATH or postgres://…
/// let limiter = try storage.rateLimiter(RateLimit.defaults)
/// ```
public struct Storage: Sendable {
    public let location: StorageLocation
    public let stories: any StoryStore
    public let chats: any ChatStore
    private let makeLimiter: @Sendable ([RateLimit]) throws -> any RateLimiter

    public init(location: StorageLocation, stories: any StoryStore, chats: any ChatStore,
                rateLimiter: @escaping @Sendable ([RateLimit]) throws -> any RateLimiter) {
        self.location = location
        self.stories = stories
        self.chats = chats
        self.makeLimiter = rateLimiter
    }

    /// The services' API keys, kept with the conversations (the same database every node reads).
    public var keys: any APIKeyStore { chats }

    /// A rate limiter counting in this database (fleet-wide when the database is shared).
    public func rateLimiter(_ limits: [RateLimit] = RateLimit.defaults) throws -> any RateLimiter {
        try makeLimiter(limits)
    }

    /// A private in-memory SQLite database, for tests, benchmarks and an eval's scratch chats.
    public static func inMemory() throws -> Storage {
        try SQLiteStoryStore.inMemory().storage()
    }
}

/// Where the state lives: a SQLite file (the embedded default), or a PostgreSQL database that
/// several nodes share. Written as `sqlite:PATH`, a plain path, or `postgres://user:password@host:port/db`.
public enum StorageLocation: Sendable, Hashable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(url: String)

    /// Reads a `--database` / `--db` value or `GRIOT_DATABASE_URL`.
    public static func parse(_ text: String) throws -> StorageLocation {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("postgres://") || trimmed.hasPrefix("postgresql://") {
            guard let components = URLComponents(string: trimmed), components.host?.isEmpty == false,
                  components.path.count > 1 else {
                throw ChatStoreError(.invalid, "\(StorageLocation.redacted(trimmed)) is not a PostgreSQL URL; write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
            }
            return .postgres(url: trimmed)
        }
        if trimmed.hasPrefix("sqlite:") {
            var path = String(trimmed.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path = String(path.dropFirst(2)) }
            guard !path.isEmpty else { throw ChatStoreError(.invalid, "sqlite: needs a file path, e.g. sqlite:/var/lib/griot/griot.sqlite") }
            return .sqlite(path: path)
        }
        if let colon = trimmed.firstIndex(of: ":"), trimmed[..<colon].contains("/") == false, trimmed.contains("://") {
            throw ChatStoreError(.invalid, "\(trimmed[..<colon]): is not a database Griot knows; use sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard !trimmed.isEmpty else { throw ChatStoreError(.invalid, "the database is empty; give a file path, sqlite:PATH or postgres://…") }
        return .sqlite(path: trimmed)
    }

    public var isShared: Bool {
        if case .postgres = self { return true }
        return false
    }

    /// The location without its password, for logs and `/readyz`.
    public var description: String {
        switch self {
        case .sqlite(let path): return "sqlite:\(path)"
        case .postgres(let url): return Self.redacted(url)
        }
    }

    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "postgres://…" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "postgres://…"
    }
}
