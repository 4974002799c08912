import Foundation
import GriotPostgres
import GriotStore
import Logging
import PostgresNIO
import Testing

/// The databases the conformance tests run on. Every test takes a backend as its argument and
/// opens a fresh, empty store on it, so one test body states what both backends must do.
///
/// ```swift
/// @Test(arguments: StoreBackend.allCases)
/// func somethingHolds(on backend: StoreBackend) async throws {
///     try await backend.withStorage { storage in … }
/// }
/// ```
///
/// PostgreSQL: the server at `GRIOT_TEST_POSTGRES_URL`, else the one `scripts/postgres.sh up`
/// starts (once per test process). Each store is a schema of its own (`t_<random>`), dropped
/// when the store closes, so tests run in parallel without seeing each other's rows.
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }

    /// A fresh empty store, and how to close it (for PostgreSQL: dropping its schema).
    func open() async throws -> (Storage, close: @Sendable () async -> Void) {
        switch self {
        case .sqlite:
            return (try Storage.inMemory(), close: {})
        case .postgres:
            let schema = try await TestSchema.create()
            let database = try await PostgresDatabase.open(url: schema.url)
            let storage = try await database.storage()
            return (storage, close: {
                await database.close()
                await schema.drop()
            })
        }
    }

    /// Runs `body` with a fresh store and closes the store after it, also when `body` throws.
    func withStorage<Result>(_ body: (Storage) async throws -> Result) async throws -> Result {
        let (storage, close) = try await open()
        do {
            let result = try await body(storage)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }
}

/// One test's PostgreSQL schema: made empty by `create()`, dropped with everything in it by `drop()`.
struct TestSchema: Sendable {
    /// The server's URL with `?search_path=` this schema.
    let url: String
    let name: String
    private let server: TestServer

    static func create() async throws -> TestSchema {
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

    func drop() async {
        do {
            try await server.execute("DROP SCHEMA IF EXISTS \(name) CASCADE")
        } catch {
            Issue.record("could not drop the test schema \(name): \(String(reflecting: error))")
        }
    }
}

/// The PostgreSQL server of this test run, and a way to run the statements that make and drop
/// schemas (on a connection of their own: no pool, no migrations).
struct TestServer: Sendable {
    let url: String
    let configuration: PostgresConnection.Configuration

    /// Found or started once per process.
    static let shared = Task<TestServer, any Error> {
        let environment = ProcessInfo.processInfo.environment
        let url = try environment["GRIOT_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? startLocalServer()
        return try TestServer(url: url)
    }

    init(url: String) throws {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user,
              components.path.count > 1 else {
            throw TestServerError("GRIOT_TEST_POSTGRES_URL=\(url) is not a URL like postgres://griot:griot@127.0.0.1:54329/griot")
        }
        self.url = url
        configuration = PostgresConnection.Configuration(host: host, port: components.port ?? 5432, username: user,
                                                         password: components.password, database: String(components.path.dropFirst()),
                                                         tls: .disable)
    }

    func execute(_ sql: String) async throws {
        let logger = Logger(label: "griot.tests.postgres")
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// Runs `scripts/postgres.sh up` of the package (the folder holding `Tests/`, above this
    /// file's own) and returns the URL it prints last.
    private static func startLocalServer() throws -> String {
        // Resolved first, so that a development package linking this folder still finds the script.
        let root = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("scripts/postgres.sh")
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw TestServerError("""
                There is no \(script.path) to start PostgreSQL with. Set GRIOT_TEST_POSTGRES_URL=postgres://USER:PASSWORD@HOST:PORT/DATABASE \
                to a PostgreSQL 15 server.
                """)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path, "up"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard process.terminationStatus == 0, let url = lines.last.map(String.init), url.hasPrefix("postgres") else {
            throw TestServerError("""
                scripts/postgres.sh up failed (exit \(process.terminationStatus); its messages are above). \
                Start PostgreSQL 15 yourself and set GRIOT_TEST_POSTGRES_URL=postgres://USER:PASSWORD@HOST:PORT/DATABASE.
                """)
        }
        return url
    }
}

struct TestServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
