import Foundation

/// One test's PostgreSQL schema: made empty by `create()`, dropped with everything in it by `drop()`.
///
/// ```swift
/// let schema = try await TestSchema.create()
/// let database = try await PostgresDatabase.open(url: schema.url)
/// …
/// await database.close()
/// try await schema.drop()
/// ```
public struct TestSchema: Sendable {
    /// The server's URL with `?search_path=` this schema.
    public let url: String
    public let name: String
    private let server: TestServer

    public static func create() async throws -> TestSchema {
        let server = try await TestServer.shared.value
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await server.execute("CREATE SCHEMA \(name)")
        return TestSchema(url: server.url + (server.url.contains("?") ? "&" : "?") + "search_path=\(name)", name: name, server: server)
    }

    private init(url: String, name: String, server: TestServer) {
        self.url = url
        self.name = name
        self.server = server
    }

    public func drop() async throws {
        try await server.execute("DROP SCHEMA IF EXISTS \(name) CASCADE")
    }
}
