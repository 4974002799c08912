import Foundation
import GRDB

/// The installation's SQLite database, opened read-only: the migration reads it and never
/// migrates or writes it, so a refused or interrupted run leaves it exactly as it was.
struct SQLiteSource: Sendable {
    /// The absolute path, as the progress table records it (so a resumed run given a relative
    /// path from another folder still recognises its source).
    let path: String
    private let queue: DatabaseQueue

    init(path: String) throws {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        guard FileManager.default.fileExists(atPath: absolute) else {
            throw StoreMigrationError("No SQLite database at \(absolute); check --from (sqlite:PATH of the installation's griot.sqlite).")
        }
        var configuration = Configuration()
        configuration.readonly = true
        do {
            queue = try DatabaseQueue(path: absolute, configuration: configuration)
        } catch {
            throw StoreMigrationError("Could not open \(absolute) as a SQLite database (\(error)); check --from and that the file is readable.")
        }
        self.path = absolute
    }

    /// The GRDB migrations applied to it, or nil when it has no migration table (not a griot database).
    func migrationNames() async throws -> [String]? {
        try await queue.read { db in
            guard try db.tableExists("grdb_migrations") else { return nil }
            return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
    }

    /// Its tables, leaving out SQLite's and GRDB's own.
    func tableNames() async throws -> Set<String> {
        try await queue.read { db in
            Set(try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'
                """))
        }
    }

    /// A table's columns in order, and each one's place in the primary key (0: not in it).
    func columns(of table: String) async throws -> [(name: String, keyIndex: Int)] {
        try await queue.read { db in
            try db.columns(in: table).map { ($0.name, $0.primaryKeyIndex) }
        }
    }

    /// Whether the table has a rowid (it was not made WITHOUT ROWID).
    func hasRowID(_ table: String) async throws -> Bool {
        try await queue.read { db in
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table]) ?? ""
            return !sql.uppercased().replacingOccurrences(of: "\n", with: " ").contains("WITHOUT ROWID")
        }
    }

    func count(_ table: MigratedTable) async throws -> Int {
        try await queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.name)") ?? 0 }
    }

    /// Up to `limit` rows after `lastKey` in key order, converted for PostgreSQL, and the key of the last.
    func batch(of table: MigratedTable, after lastKey: String?, limit: Int) async throws -> (rows: [[CellValue]], lastKey: String?) {
        guard let sqliteKey = table.sqliteKey else { return try await batchByPosition(of: table, after: lastKey, limit: limit) }
        return try await queue.read { db in
            let columns = table.columns.map(\.name).joined(separator: ", ")
            var arguments: StatementArguments = []
            var filter = ""
            if let lastKey {
                filter = "WHERE \(sqliteKey) > ?"
                if table.sqliteKeyIsInteger {
                    guard let number = Int64(lastKey) else {
                        throw StoreMigrationError("The progress of \(table.name) in the target records key \"\(lastKey)\", which is not a number; start over with a fresh database.")
                    }
                    arguments = [number]
                } else {
                    arguments = [lastKey]
                }
            }
            let sql = "SELECT \(sqliteKey), \(columns) FROM \(table.name) \(filter) ORDER BY \(sqliteKey) LIMIT \(limit)"
            var rows: [[CellValue]] = []
            var last: String?
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try cursor.next() {
                let key: DatabaseValue = row[0]
                last = key.storage.keyText
                rows.append(try Self.cells(row, offset: 1, of: table, key: last ?? "?"))
            }
            return (rows, last)
        }
    }

    /// A WITHOUT ROWID table's rows in primary-key order, `limit` after the first `lastKey`
    /// (a count of rows); the new count is the progress.
    private func batchByPosition(of table: MigratedTable, after lastKey: String?, limit: Int) async throws -> (rows: [[CellValue]], lastKey: String?) {
        let copied: Int
        if let lastKey {
            guard let number = Int(lastKey), number >= 0 else {
                throw StoreMigrationError("The progress of \(table.name) in the target records \"\(lastKey)\", which is not a count of rows; start over with a fresh database.")
            }
            copied = number
        } else {
            copied = 0
        }
        return try await queue.read { db in
            let order = table.keyColumns.map(\.name).joined(separator: ", ")
            let sql = "SELECT \(table.columns.map(\.name).joined(separator: ", ")) FROM \(table.name) ORDER BY \(order) LIMIT \(limit) OFFSET \(copied)"
            var rows: [[CellValue]] = []
            let cursor = try Row.fetchCursor(db, sql: sql)
            while let row = try cursor.next() {
                rows.append(try Self.cells(row, offset: 0, of: table, key: "#\(copied + rows.count + 1)"))
            }
            return (rows, rows.isEmpty ? nil : String(copied + rows.count))
        }
    }

    /// The checksum of every row, in the order the PostgreSQL side reads them.
    func checksum(of table: MigratedTable) async throws -> RowChecksum {
        try await queue.read { db in
            var checksum = RowChecksum()
            let key = table.sqliteKey
            let columns = table.columns.map(\.name).joined(separator: ", ")
            let sql = "SELECT \(key.map { "\($0), " } ?? "")\(columns) FROM \(table.name) ORDER BY \(table.checksumOrder(postgres: false))"
            let cursor = try Row.fetchCursor(db, sql: sql)
            var position = 0
            while let row = try cursor.next() {
                position += 1
                if key != nil {
                    let value: DatabaseValue = row[0]
                    checksum.add(try Self.cells(row, offset: 1, of: table, key: value.storage.keyText ?? "?"))
                } else {
                    checksum.add(try Self.cells(row, offset: 0, of: table, key: "#\(position)"))
                }
            }
            return checksum
        }
    }

    /// A row's values as PostgreSQL's column kinds want them. SQLite lets any column hold any
    /// type; a value that does not fit its column stops the run, naming it, rather than being
    /// bent into something else.
    private static func cells(_ row: Row, offset: Int, of table: MigratedTable, key: String) throws -> [CellValue] {
        try table.columns.enumerated().map { index, column in
            let value: DatabaseValue = row[offset + index]
            guard let cell = cell(value, kind: column.kind) else {
                throw StoreMigrationError("""
                    \(table.name) row \(key) column \(column.name) holds \(value) where PostgreSQL stores \(column.kind.rawValue); \
                    correct that row in the SQLite database (or delete it) and run the same command again.
                    """)
            }
            if case .text(let text) = cell, text.utf8.contains(0) {
                throw StoreMigrationError("""
                    \(table.name) row \(key) column \(column.name) holds a NUL character, which PostgreSQL text cannot store; \
                    remove it from that row in the SQLite database and run the same command again.
                    """)
            }
            return cell
        }
    }

    static func cell(_ value: DatabaseValue, kind: ColumnKind) -> CellValue? {
        switch (value.storage, kind) {
        case (.null, _): return .null
        case (.string(let text), .text): return .text(text)
        case (.int64(let number), .integer): return .integer(number)
        case (.double(let number), .integer): return Int64(exactly: number).map { .integer($0) }
        case (.double(let number), .double): return .double(number)
        case (.int64(let number), .double): return .double(Double(number))
        case (.blob(let bytes), .blob): return .blob(Array(bytes))
        case (.string(let text), .timestamp):
            if let microseconds = SQLiteTimestamp.microseconds(text) { return .timestamp(microseconds: microseconds) }
            return Date.fromDatabaseValue(value).map(timestamp)
        case (.int64, .timestamp), (.double, .timestamp):
            return Date.fromDatabaseValue(value).map(timestamp)
        default: return nil
        }
    }

    /// A date in a form GRDB reads but `SQLiteTimestamp` does not, at the double's precision.
    private static func timestamp(_ date: Date) -> CellValue {
        .timestamp(microseconds: Int64((date.timeIntervalSince1970 * 1_000_000).rounded()))
    }
}

private extension DatabaseValue.Storage {
    /// A key as the progress table records it.
    var keyText: String? {
        switch self {
        case .int64(let number): String(number)
        case .string(let text): text
        case .double(let number): String(number)
        case .blob, .null: nil
        }
    }
}
