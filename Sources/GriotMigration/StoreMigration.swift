import Foundation
import GriotPostgres
import Logging
import PostgresNIO

/// An installation's SQLite database copied to PostgreSQL, row for row with the same ids, and
/// then checked: per table, the row counts and a checksum over every row must agree.
///
/// ```swift
/// let target = try await PostgresDatabase.open(url: "postgres://griot:griot@127.0.0.1:54329/griot")
/// let tables = try await StoreMigration(sourcePath: "griot.sqlite", target: target).run { progress in print(progress) }
/// let differing = tables.filter { !$0.matches }
/// ```
///
/// Tables are copied in foreign-key order, each in primary-key order, in batches that commit
/// together with their progress in `storeMigration`; a run stopped anywhere (Ctrl-C, kill -9)
/// and started again continues after the last committed batch, so no row is copied twice.
/// The source is opened read-only and should not change meanwhile: stop the service first.
public struct StoreMigration: Sendable {
    public let sourcePath: String
    public let target: GriotPostgres.PostgresDatabase
    /// Rows per INSERT and transaction: a thousand rows are one round trip, and a kill loses at
    /// most one uncommitted batch.
    public var batchSize: Int
    /// Called inside each batch's transaction, after its rows are inserted and before its
    /// progress is: the tests stop the process here to show that such a batch leaves nothing.
    public var batchInserted: (@Sendable (_ batchesThisRun: Int) -> Void)?

    public init(sourcePath: String, target: GriotPostgres.PostgresDatabase, batchSize: Int = 1_000) {
        self.sourcePath = sourcePath
        self.target = target
        self.batchSize = max(1, batchSize)
    }

    /// Copies what is left to copy, then verifies every table. Throws (with what to do next)
    /// when the source or the target is not one it can copy between.
    public func run(progress: @escaping @Sendable (TableProgress) -> Void) async throws -> [TableVerification] {
        let source = try SQLiteSource(path: sourcePath)
        return try await target.client.withConnection { connection in
            let target = MigrationTarget(connection: connection, logger: self.target.logger)
            guard try await target.lock() else {
                throw StoreMigrationError("""
                    Another griot migrate-store is copying into \(self.target.location) now; wait for it to end \
                    (or stop it, and run this command again to continue its work).
                    """)
            }
            let outcome: Result<[TableVerification], any Error>
            do {
                let tables = try await prepare(source: source, target: target)
                try await copy(tables, from: source, to: target, progress: progress)
                outcome = .success(try await verify(tables, source: source, target: target))
            } catch let error as PSQLError {
                outcome = .failure(StoreMigrationError("""
                    PostgreSQL at \(self.target.location) stopped the migration: \(Self.describe(error)). \
                    The batch under way was rolled back; fix the cause and run the same command again to continue.
                    """))
            } catch {
                outcome = .failure(error)
            }
            // The lock belongs to the session, which outlives this run in the pool.
            await target.unlock()
            return try outcome.get()
        }
    }

    /// Checks that both databases are at the same schema and that the target holds nothing the
    /// migration has not copied itself, and records the tables it is taking on.
    private func prepare(source: SQLiteSource, target: MigrationTarget) async throws -> [MigratedTable] {
        guard let sourceMigrations = try await source.migrationNames() else {
            throw StoreMigrationError("\(source.path) is not a griot database (it has no grdb_migrations table); check --from.")
        }
        let targetMigrations = try await target.migrationNames()
        let missing = targetMigrations.subtracting(sourceMigrations).sorted()
        guard missing.isEmpty else {
            throw StoreMigrationError("""
                \(source.path) lacks the migrations \(missing.map { "\"\($0)\"" }.joined(separator: ", ")): open it once with the \
                current griot, which migrates it (e.g. griot search anything --db \(source.path), or start griot serve on it), \
                then run migrate-store again.
                """)
        }
        let unknown = Set(sourceMigrations).subtracting(targetMigrations).sorted()
        guard unknown.isEmpty else {
            throw StoreMigrationError("""
                \(source.path) has migrations this griot does not know (\(unknown.joined(separator: ", "))): a newer griot wrote it. \
                Run migrate-store from that newer griot.
                """)
        }
        let sourceTables = try await source.tableNames()
        let uncopied = sourceTables.subtracting(MigratedTable.copyOrder).subtracting(MigratedTable.notCopied).sorted()
        guard uncopied.isEmpty else {
            throw StoreMigrationError("""
                \(source.path) has tables migrate-store does not know how to copy (\(uncopied.joined(separator: ", "))); \
                add them to MigratedTable.copyOrder (in foreign-key order) before migrating this database.
                """)
        }
        var tables: [MigratedTable] = []
        for name in MigratedTable.copyOrder {
            tables.append(try await describe(name, source: source, target: target))
        }

        try await target.createProgressTable()
        let progress = try await target.progress()
        if let other = progress.values.first(where: { $0.sourcePath != source.path }) {
            throw StoreMigrationError("""
                \(self.target.location) holds a migration from \(other.sourcePath), not \(source.path): run with \
                --from sqlite:\(other.sourcePath) to continue it, or migrate into a fresh database to start over.
                """)
        }
        var foreign: [String] = []
        for table in tables {
            let rows = try await target.count(table.name)
            let copied = progress[table.name]?.rowsCopied ?? 0
            if rows != copied {
                foreign.append(copied == 0 ? "\(table.name) \(rows) rows" : "\(table.name) \(rows) rows where the migration copied \(copied)")
            }
        }
        guard foreign.isEmpty else {
            throw StoreMigrationError("""
                \(self.target.location) already holds rows this migration did not copy (\(foreign.joined(separator: "; "))). \
                Migrate into a fresh, empty database (CREATE DATABASE …, or scripts/postgres.sh createdb NAME for a local one); \
                to start over, drop this one and create it again.
                """)
        }
        try await target.begin(tables.map(\.name), sourcePath: source.path)
        return tables
    }

    /// A table's columns as both schemas have them; refuses when they differ, which the
    /// migration names alone would not show (a column added by hand).
    private func describe(_ name: String, source: SQLiteSource, target: MigrationTarget) async throws -> MigratedTable {
        let sqliteColumns = try await source.columns(of: name)
        let postgresColumns = try await target.columns(of: name)
        guard !sqliteColumns.isEmpty, !postgresColumns.isEmpty else {
            throw StoreMigrationError("Table \(name) is missing in \(sqliteColumns.isEmpty ? source.path : "\(self.target.location)"); both must be at the same griot schema.")
        }
        var columns: [MigratedTable.Column] = []
        var key: MigratedTable.Column?
        var keyColumns: [(index: Int, column: MigratedTable.Column)] = []
        var hasIdentity = false
        for (column, keyIndex) in sqliteColumns {
            let isKey = keyIndex > 0
            guard let postgres = postgresColumns[column.lowercased()] else {
                throw StoreMigrationError("Column \(name).\(column) of \(source.path) is missing in \(self.target.location); both must be at the same griot schema.")
            }
            guard let kind = ColumnKind(postgresType: postgres.type) else {
                throw StoreMigrationError("Column \(name).\(column) is \(postgres.type) in PostgreSQL, a type migrate-store does not copy yet.")
            }
            columns.append(MigratedTable.Column(name: column, kind: kind))
            if isKey, let last = columns.last {
                key = last
                keyColumns.append((keyIndex, last))
            }
            hasIdentity = hasIdentity || (isKey && postgres.isIdentity)
        }
        guard postgresColumns.count == columns.count else {
            let extra = Set(postgresColumns.keys).subtracting(columns.map { $0.name.lowercased() }).sorted()
            throw StoreMigrationError("Table \(name) has columns in \(self.target.location) that \(source.path) lacks (\(extra.joined(separator: ", "))); both must be at the same griot schema.")
        }
        // A key of several columns (`promptLabel`) orders no copy by itself: the rowid does, and
        // every column the checksum, as for a table without a key.
        if keyColumns.count > 1 { key = nil }
        return MigratedTable(name: name, columns: columns, key: key, keyColumns: keyColumns.sorted { $0.index < $1.index }.map(\.column),
                             hasRowID: try await source.hasRowID(name), hasIdentity: hasIdentity)
    }

    private func copy(_ tables: [MigratedTable], from source: SQLiteSource, to target: MigrationTarget,
                      progress: @Sendable (TableProgress) -> Void) async throws {
        let recorded = try await target.progress()
        var batches = 0
        for table in tables {
            let total = try await source.count(table)
            var state = recorded[table.name] ?? MigrationTarget.Progress(lastKey: nil, rowsCopied: 0, finished: false, sourcePath: source.path)
            while !state.finished {
                progress(TableProgress(table: table.name, rowsCopied: state.rowsCopied, rowsTotal: max(total, state.rowsCopied), finished: false))
                let batch = try await source.batch(of: table, after: state.lastKey, limit: batchSize)
                guard let lastKey = batch.lastKey else {
                    try await target.finish(table)
                    state.finished = true
                    break
                }
                batches += 1
                let ordinal = batches
                try await target.insert(batch.rows, into: table, lastKey: lastKey) { batchInserted?(ordinal) }
                state.lastKey = lastKey
                state.rowsCopied += batch.rows.count
            }
            progress(TableProgress(table: table.name, rowsCopied: state.rowsCopied, rowsTotal: max(total, state.rowsCopied), finished: true))
        }
    }

    /// Counts and checksums of every table on both sides, the two sides read at once.
    private func verify(_ tables: [MigratedTable], source: SQLiteSource, target: MigrationTarget) async throws -> [TableVerification] {
        var results: [TableVerification] = []
        for table in tables {
            async let sqlite = source.checksum(of: table)
            let postgres = try await target.checksum(of: table)
            let sqliteChecksum = try await sqlite
            results.append(TableVerification(table: table.name, sqliteRows: sqliteChecksum.rows, postgresRows: postgres.rows,
                                             sqliteChecksum: sqliteChecksum.finalize(), postgresChecksum: postgres.finalize()))
        }
        return results
    }

    /// The server's message and SQLSTATE (postgres-nio's own description hides both).
    static func describe(_ error: PSQLError) -> String {
        if let serverInfo = error.serverInfo {
            return "\(serverInfo[.message] ?? "error") (SQLSTATE \(serverInfo[.sqlState] ?? "?"))"
        }
        return error.underlying.map { String(describing: $0) } ?? "\(error.code)"
    }
}
