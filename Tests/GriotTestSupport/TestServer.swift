import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL server of this test run, and a way to run the statements that make and drop
/// schemas (on a connection of their own: no pool, no migrations).
///
/// ```swift
/// let server = try await TestServer.shared.value
/// try await server.execute("CREATE SCHEMA t_example")
/// ```
public struct TestServer: Sendable {
    public let url: String
    public let configuration: PostgresConnection.Configuration

    /// The server at `GRIOT_TEST_POSTGRES_URL`, else the one `scripts/postgres.sh up` starts:
    /// found or started once per process.
    public static let shared = Task<TestServer, any Error> {
        let environment = ProcessInfo.processInfo.environment
        let url = try environment["GRIOT_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? startLocalServer()
        return try TestServer(url: url)
    }

    public init(url: String) throws {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user,
              components.path.count > 1 else {
            throw TestServerError("GRIOT_TEST_POSTGRES_URL=\(url) is not a URL like postgres://griot:griot@127.0.0.1:54329/griot")
        }
        self.url = url
        configuration = PostgresConnection.Configuration(host: host, port: components.port ?? 5432, username: user,
                                                         password: components.password, database: String(components.path.dropFirst()),
                                                         tls: .disable)
    }

    public func execute(_ sql: String) async throws {
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

public struct TestServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
