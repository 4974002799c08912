import Foundation
import GriotStore
import Logging
import PostgresNIO

/// A PostgreSQL database several Griot nodes share: postgres-nio's connection pool, run for as
/// long as the database is open, with the schema brought up to date on opening.
///
/// ```swift
/// let database = try await PostgresDatabase.open(url: "postgres://griot:griot@127.0.0.1:54329/griot")
/// let storage = try await database.storage()
/// await database.close()
/// ```
///
/// The URL is `postgres://USER:PASSWORD@HOST:PORT/DATABASE`, with optional query parameters:
/// `search_path=SCHEMA` (every pooled connection works in that schema; the tests use one schema
/// per test), `sslmode=disable|prefer|require` (default `prefer`) and `application_name=NAME`.
public final class PostgresDatabase: Sendable {
    /// The pool. Queries lease a connection each; `transaction(_:)` holds one for a transaction.
    public let client: PostgresClient
    /// The URL the database was opened with (its password included: log `location` instead).
    public let url: String
    /// Where the database is, printed without its password.
    public var location: StorageLocation { .postgres(url: url) }
    public let logger: Logger
    /// What to name in messages: `host:port/database`, never the password.
    let endpoint: Endpoint
    private let runTask: Task<Void, Never>

    private init(client: PostgresClient, url: String, endpoint: Endpoint, logger: Logger) {
        self.client = client
        self.url = url
        self.endpoint = endpoint
        self.logger = logger
        runTask = Task { await client.run() }
    }

    /// Connects, checks that the server answers (failing fast, with what to do, when it does
    /// not), starts the pool and applies the migrations that are missing.
    public static func open(url: String, logger: Logger = Logger(label: "griot.postgres")) async throws -> PostgresDatabase {
        let endpoint = try Endpoint(url: url)
        let database = PostgresDatabase(client: PostgresClient(configuration: endpoint.clientConfiguration, backgroundLogger: logger),
                                        url: url, endpoint: endpoint, logger: logger)
        do {
            // A round trip to the server: by its end the pool's run task has started, so the
            // migrations' first lease does not meet a pool that is not running yet.
            try await endpoint.checkConnection(logger: logger)
            try await PostgresSchema.migrate(database)
        } catch {
            await database.close()
            throw error
        }
        return database
    }

    /// Ends the pool: running queries fail, and the connections close.
    public func close() async {
        runTask.cancel()
        await runTask.value
    }

    /// Runs `body` in a transaction on one pooled connection: committed when it returns, rolled
    /// back when it throws. Rethrows `body`'s own error (not postgres-nio's wrapper), so a
    /// `ChatStoreError` thrown inside reaches the caller as it is. Carried to its end when the
    /// calling task is cancelled (see `carriedThrough`).
    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await withoutActuallyEscaping(body) { body in
            let work = Unescaped(body)
            return try await Self.carriedThrough { [client, logger] in
                do {
                    return try await client.withTransaction(logger: logger) { connection in try await work.body(connection) }
                } catch let error as PostgresTransactionError {
                    throw error.closureError ?? error.beginError ?? error.commitError ?? error
                }
            }
        }
    }

    /// Runs `work` in a task of its own, which a cancellation of the caller does not reach.
    /// postgres-nio refuses to lease a connection to a cancelled task, and a turn's final writes
    /// run in a task that was cancelled on purpose (the user pressed stop, the client left): the
    /// reply must still be stored, marked stopped. The caller waits for the work either way.
    static func carriedThrough<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task { try await work() }.value
    }

    /// A non-escaping closure handed to `carriedThrough`, which awaits it before returning, so it
    /// never outlives the call that owns it.
    private struct Unescaped<Result>: @unchecked Sendable {
        let body: (PostgresConnection) async throws -> Result
        init(_ body: @escaping (PostgresConnection) async throws -> Result) { self.body = body }
    }
}

extension PostgresDatabase {
    /// Why the database could not be opened or used, in words an operator can act on.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// Where the database is and how to connect to it, parsed from the URL.
    struct Endpoint: Sendable, CustomStringConvertible {
        var host: String
        var port: Int
        var username: String
        var password: String?
        var database: String
        var searchPath: String?
        var sslMode: SSLMode
        var applicationName: String?

        init(url: String) throws {
            let redacted = StorageLocation.postgres(url: url).description
            guard let components = URLComponents(string: url), components.scheme == "postgres" || components.scheme == "postgresql",
                  let host = components.host, !host.isEmpty else {
                throw Failure("\(redacted) is not a PostgreSQL URL; write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
            }
            let database = String(components.path.drop { $0 == "/" })
            guard !database.isEmpty, let username = components.user, !username.isEmpty else {
                throw Failure("\(redacted) names no \(database.isEmpty ? "database" : "user"); write postgres://USER:PASSWORD@HOST:PORT/DATABASE")
            }
            self.host = host
            port = components.port ?? 5432
            self.username = username
            password = components.password
            self.database = database
            sslMode = .prefer
            for item in components.queryItems ?? [] {
                let value = item.value ?? ""
                switch item.name {
                case "search_path":
                    searchPath = value.isEmpty ? nil : value
                case "application_name":
                    applicationName = value
                case "sslmode":
                    guard let mode = SSLMode(rawValue: value) else {
                        throw Failure("sslmode=\(value) in \(redacted) is not one Griot knows; use disable, prefer or require")
                    }
                    sslMode = mode
                default:
                    throw Failure("\(item.name)= in \(redacted) is not a setting Griot knows; use search_path, sslmode or application_name")
                }
            }
        }

        /// Whether connections use TLS, as libpq's `sslmode` says it (`prefer` falls back to
        /// plain TCP when the server offers no TLS).
        enum SSLMode: String, Sendable {
            case disable, prefer, require

            var clientTLS: PostgresClient.Configuration.TLS {
                switch self {
                case .disable: .disable
                case .prefer: .prefer(.makeClientConfiguration())
                case .require: .require(.makeClientConfiguration())
                }
            }

            var connectionTLS: PostgresConnection.Configuration.TLS {
                get throws {
                    switch self {
                    case .disable: .disable
                    case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                    case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                    }
                }
            }
        }

        /// `127.0.0.1:54329/griot`, for messages.
        var description: String { "\(host):\(port)/\(database)" }

        /// What every connection sends at startup: the schema to work in, and the program's name.
        var startupParameters: [(String, String)] {
            var parameters: [(String, String)] = []
            if let searchPath { parameters.append(("search_path", searchPath)) }
            parameters.append(("application_name", applicationName ?? "griot"))
            return parameters
        }

        var clientConfiguration: PostgresClient.Configuration {
            var configuration = PostgresClient.Configuration(host: host, port: port, username: username, password: password,
                                                             database: database, tls: sslMode.clientTLS)
            configuration.options.additionalStartupParameters = startupParameters
            return configuration
        }

        /// Opens one connection outside the pool and closes it again: the pool retries a server
        /// that does not answer for a long while, where a node starting should say at once why
        /// it cannot. Also checks that the `search_path` schema exists.
        func checkConnection(logger: Logger) async throws {
            var configuration = PostgresConnection.Configuration(host: host, port: port, username: username, password: password,
                                                                 database: database, tls: try sslMode.connectionTLS)
            configuration.options.additionalStartupParameters = startupParameters
            let connection: PostgresConnection
            do {
                connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            } catch {
                throw Failure(connectionFailure(error))
            }
            let schema: String?
            do {
                let rows = try await connection.query("SELECT current_schema()", logger: logger).collect()
                schema = try rows.first?.decode(String?.self) ?? nil
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
            // current_schema() is null when no schema on the search path exists.
            guard schema != nil else {
                throw Failure("No schema of search_path=\(searchPath ?? "") exists in \(self); create it (CREATE SCHEMA …) or change search_path in the URL.")
            }
        }

        /// What went wrong when connecting, and what to check first.
        private func connectionFailure(_ error: any Error) -> String {
            guard let error = error as? PSQLError else {
                return "Could not connect to PostgreSQL at \(host):\(port) (\(error)); is the server running? For a local one, run scripts/postgres.sh up."
            }
            if let serverInfo = error.serverInfo {
                let message = serverInfo[.message] ?? "refused"
                switch serverInfo[.sqlState] {
                case "28P01", "28000":
                    return "PostgreSQL at \(host):\(port) refused user \(username): \(message); check the user and password in the URL."
                case "3D000":
                    return "PostgreSQL at \(host):\(port) has no database \(database): \(message); create it (scripts/postgres.sh createdb \(database) for a local one) or fix the URL."
                default:
                    return "PostgreSQL at \(host):\(port) refused the connection to \(database) as \(username): \(message)."
                }
            }
            let reason = error.underlying.map { String(describing: $0) } ?? "\(error.code)"
            return "Could not connect to PostgreSQL at \(host):\(port) (\(reason)); is the server running and listening there? For a local one, run scripts/postgres.sh up."
        }
    }
}

extension Date {
    /// The date rounded to a whole millisecond, as GRDB stores dates in SQLite: written and read
    /// back through both backends, the same date compares equal. (PostgreSQL keeps microseconds,
    /// and postgres-nio truncates when it encodes, so round on reading too.)
    var millisecondRounded: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}

extension PSQLError {
    /// The server's message with its SQLSTATE, or the client-side reason: postgres-nio's own
    /// description hides both (it may hold data), and an operator needs them.
    var readableDescription: String {
        if let serverInfo {
            return "\(serverInfo[.message] ?? "error") (SQLSTATE \(serverInfo[.sqlState] ?? "?"))"
        }
        return underlying.map { String(describing: $0) } ?? "\(code)"
    }
}

extension PostgresConnection {
    /// `INSERT INTO table (columns) VALUES ($1, $2, …), (…) … then`: many rows per statement
    /// (up to ~30,000 parameters), so a thousand rows cost one round trip, not a thousand.
    /// `bind` appends exactly `columns` values per row.
    func insertRows<Row>(_ rows: [Row], columns: Int, into table: String, then tail: String = "", logger: Logger,
                         bind: (Row, inout PostgresBindings) throws -> Void) async throws {
        let rowsPerStatement = max(1, min(1_000, 30_000 / columns))
        var start = rows.startIndex
        while start < rows.endIndex {
            let end = min(start + rowsPerStatement, rows.endIndex)
            var binds = PostgresBindings(capacity: (end - start) * columns)
            var values: [String] = []
            values.reserveCapacity(end - start)
            for row in rows[start..<end] {
                let first = binds.count
                try bind(row, &binds)
                precondition(binds.count == first + columns, "insertRows: a row bound \(binds.count - first) values, not \(columns)")
                values.append("(" + (first + 1...first + columns).map { "$\($0)" }.joined(separator: ", ") + ")")
            }
            let sql = "INSERT INTO \(table) VALUES \(values.joined(separator: ", ")) \(tail)"
            try await query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            start = end
        }
    }
}
