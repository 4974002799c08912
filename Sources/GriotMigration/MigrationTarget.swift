import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The PostgreSQL database being filled, through the one connection the whole run holds (its
/// session keeps the lock that stops a second run on the same database), and the
/// `storeMigration` table that records how far each table has come.
///
/// `storeMigration` belongs to this command, not to the service's schema: nothing the service
/// runs reads it, so it is made here, the first time a migration starts, rather than in every
/// database by `PostgresSchema`. Each batch of rows commits together with its progress row, so
/// after a kill the table says exactly which rows are there.
struct MigrationTarget {
    let connection: PostgresConnection
    let logger: Logger

    /// One table's progress, as committed.
    struct Progress: Sendable {
        var lastKey: String?
        var rowsCopied: Int
        var finished: Bool
        var sourcePath: String
    }

    func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
    }

    /// Takes the session lock of migrations into this database; false when another run holds it.
    func lock() async throws -> Bool {
        let rows = try await connection.query("SELECT pg_try_advisory_lock(hashtext('griot migrate-store'))", logger: logger).collect()
        return try rows.first?.decode(Bool.self) ?? false
    }

    func unlock() async {
        _ = try? await connection.query("SELECT pg_advisory_unlock(hashtext('griot migrate-store'))", logger: logger)
    }

    func migrationNames() async throws -> Set<String> {
        var names: Set<String> = []
        for try await name in try await connection.query("SELECT name FROM schema_migrations", logger: logger).decode(String.self) {
            names.insert(name)
        }
        return names
    }

    /// A table's columns (lower-case, as PostgreSQL folded them) with their types and whether
    /// PostgreSQL numbers them.
    func columns(of table: String) async throws -> [String: (type: String, isIdentity: Bool)] {
        var columns: [String: (String, Bool)] = [:]
        let rows = try await connection.query("""
            SELECT column_name, data_type, is_identity FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(table.lowercased())
            """, logger: logger)
        for try await (name, type, identity) in rows.decode((String, String, String).self) {
            columns[name] = (type, identity == "YES")
        }
        return columns
    }

    func count(_ table: String) async throws -> Int {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), logger: logger).collect()
        return Int(try rows.first?.decode(Int64.self) ?? 0)
    }

    func createProgressTable() async throws {
        try await execute("""
            CREATE TABLE IF NOT EXISTS storeMigration (
                tableName text PRIMARY KEY,
                lastKey text,
                rowsCopied bigint NOT NULL DEFAULT 0,
                finished boolean NOT NULL DEFAULT false,
                sourcePath text NOT NULL,
                startedAt timestamptz NOT NULL DEFAULT now(),
                finishedAt timestamptz)
            """)
    }

    func progress() async throws -> [String: Progress] {
        var progress: [String: Progress] = [:]
        let rows = try await connection.query("SELECT tableName, lastKey, rowsCopied, finished, sourcePath FROM storeMigration", logger: logger)
        for try await (table, lastKey, rows, finished, source) in rows.decode((String, String?, Int64, Bool, String).self) {
            progress[table] = Progress(lastKey: lastKey, rowsCopied: Int(rows), finished: finished, sourcePath: source)
        }
        return progress
    }

    /// Records that the run has taken `tables` on, before it copies a row of them.
    func begin(_ tables: [String], sourcePath: String) async throws {
        for table in tables {
            try await connection.query("""
                INSERT INTO storeMigration (tableName, sourcePath) VALUES (\(table), \(sourcePath)) ON CONFLICT (tableName) DO NOTHING
                """, logger: logger)
        }
    }

    /// Inserts `rows` and moves the table's progress past them, in one transaction: both are
    /// kept or neither is. `inserted` runs between the two (the tests stop the process there).
    func insert(_ rows: [[CellValue]], into table: MigratedTable, lastKey: String, inserted: () -> Void) async throws {
        var binds = PostgresBindings(capacity: rows.count * table.columns.count)
        var values: [String] = []
        values.reserveCapacity(rows.count)
        for row in rows {
            var placeholders: [String] = []
            for (cell, column) in zip(row, table.columns) {
                Self.bind(cell, into: &binds)
                placeholders.append("$\(binds.count)::\(column.kind.parameterCast)")
            }
            values.append("(" + placeholders.joined(separator: ", ") + ")")
        }
        let sql = "INSERT INTO \(table.name) (\(table.columns.map(\.name).joined(separator: ", "))) VALUES \(values.joined(separator: ", "))"
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            inserted()
            try await connection.query("""
                UPDATE storeMigration SET lastKey = \(lastKey), rowsCopied = rowsCopied + \(rows.count) WHERE tableName = \(table.name)
                """, logger: logger)
        }
    }

    /// Marks the table done and moves its identity sequence past the copied ids, together.
    func finish(_ table: MigratedTable) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            if table.hasIdentity, let key = table.key {
                try await connection.query(PostgresQuery(unsafeSQL: """
                    SELECT setval(pg_get_serial_sequence('\(table.name.lowercased())', '\(key.name.lowercased())'), \
                    COALESCE(max(\(key.name)), 0) + 1, false) FROM \(table.name)
                    """), logger: logger)
            }
            try await connection.query("""
                UPDATE storeMigration SET finished = true, finishedAt = now() WHERE tableName = \(table.name)
                """, logger: logger)
        }
    }

    /// The checksum of every row, read back with dates as exact microseconds.
    func checksum(of table: MigratedTable) async throws -> RowChecksum {
        let columns = table.columns.map { column in
            column.kind == .timestamp ? "(extract(epoch FROM \(column.name)) * 1000000)::bigint" : column.name
        }
        let sql = "SELECT \(columns.joined(separator: ", ")) FROM \(table.name) ORDER BY \(table.checksumOrder(postgres: true))"
        var checksum = RowChecksum()
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
            let cells = row.makeRandomAccess()
            checksum.add(try table.columns.indices.map { index in
                let cell = cells[index]
                switch table.columns[index].kind {
                case .text: return try cell.decode(String?.self).map { .text($0) } ?? .null
                case .integer: return try cell.decode(Int64?.self).map { .integer($0) } ?? .null
                case .double: return try cell.decode(Double?.self).map { .double($0) } ?? .null
                case .blob: return try cell.decode(ByteBuffer?.self).map { .blob(Array($0.readableBytesView)) } ?? .null
                case .timestamp: return try cell.decode(Int64?.self).map { .timestamp(microseconds: $0) } ?? .null
                }
            })
        }
        return checksum
    }

    private static func bind(_ cell: CellValue, into binds: inout PostgresBindings) {
        switch cell {
        case .null: binds.appendNull()
        case .integer(let value): binds.append(value)
        case .double(let value): binds.append(value)
        case .text(let value): binds.append(value)
        case .blob(let value): binds.append(ByteBuffer(bytes: value))
        case .timestamp(let microseconds): binds.append(SQLiteTimestamp.text(microseconds: microseconds))
        }
    }
}
