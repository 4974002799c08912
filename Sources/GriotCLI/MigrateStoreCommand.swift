import ArgumentParser
import Foundation
import GriotMigration
import GriotPostgres
import GriotStore
import Synchronization

struct MigrateStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-store",
        abstract: "Move an installation's whole SQLite database to PostgreSQL, and verify the copy.",
        discussion: """
            Copies every table row for row with the same ids, in batches that commit with their \
            progress, so a run stopped at any point continues when started again with the same \
            arguments. Stop the service first: the SQLite file must not change during the move. \
            The target is brought to the current schema and must hold no rows of its own (a fresh \
            database). At the end each table's row count and a SHA-256 over its rows are compared \
            on both sides; exits with status 1, naming the tables, when any differs.
            """)

    @Option(name: .customLong("from"), help: "The installation's SQLite database: sqlite:PATH (or PATH).")
    var source: String

    @Option(name: .customLong("to"), help: "The PostgreSQL database: postgres://USER:PASSWORD@HOST:PORT/DATABASE.")
    var target: String

    @Option(name: .customLong("batch-size"), help: ArgumentHelp("Rows per INSERT and transaction.", visibility: .hidden))
    var batchSize = 1_000

    func validate() throws {
        guard case .sqlite = try StorageLocation.parse(source) else {
            throw ValidationError("--from is where the data is now: a SQLite database, sqlite:PATH (the target goes in --to).")
        }
        guard case .postgres = try StorageLocation.parse(target) else {
            throw ValidationError("--to must be a PostgreSQL URL, postgres://USER:PASSWORD@HOST:PORT/DATABASE.")
        }
        guard batchSize > 0 else { throw ValidationError("--batch-size must be 1 or more.") }
    }

    func run() async throws {
        guard case .sqlite(let path) = try StorageLocation.parse(source) else { return }
        let database = try await PostgresDatabase.open(url: target)
        var migration = StoreMigration(sourcePath: path, target: database, batchSize: batchSize)
        migration.batchInserted = Self.killSwitch()
        let display = TableLines()
        let tables: [TableVerification]
        do {
            tables = try await migration.run(progress: display.show)
        } catch {
            await database.close()
            throw error
        }
        await database.close()
        print(Self.report(tables))
        let differing = tables.filter { !$0.matches }.map(\.table)
        guard differing.isEmpty else {
            Terminal.note("""
                The copy differs from the source in \(differing.joined(separator: ", ")). Did something write to either \
                database during the move? Stop the service, migrate into a fresh database and compare again.
                """)
            throw ExitCode(1)
        }
    }

    /// The table of counts and checksums (the first 16 hex digits of each SHA-256).
    static func report(_ tables: [TableVerification]) -> String {
        func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
            let space = String(repeating: " ", count: max(0, width - text.count))
            return right ? space + text : text + space
        }
        var lines = [pad("table", 18) + pad("sqlite rows", 12, right: true) + pad("postgres rows", 15, right: true)
            + "  " + pad("sqlite sha256", 18) + pad("postgres sha256", 18) + "result"]
        for table in tables {
            lines.append(pad(table.table, 18) + pad(String(table.sqliteRows), 12, right: true) + pad(String(table.postgresRows), 15, right: true)
                + "  " + pad(String(table.sqliteChecksum.prefix(16)), 18) + pad(String(table.postgresChecksum.prefix(16)), 18)
                + (table.matches ? "ok" : "DIFFERS"))
        }
        let rows = tables.reduce(0) { $0 + $1.postgresRows }
        let differing = tables.filter { !$0.matches }.count
        lines.append(differing == 0 ? "all \(tables.count) tables match: \(rows) rows" : "\(differing) of \(tables.count) tables differ")
        return lines.joined(separator: "\n")
    }

    /// `GRIOT_MIGRATE_KILL_AT_BATCH=N`, for the tests of resuming: the process kills itself
    /// (SIGKILL, as `kill -9` would) inside this run's Nth batch, after its rows are inserted
    /// and before they are committed.
    private static func killSwitch() -> (@Sendable (Int) -> Void)? {
        guard let value = ProcessInfo.processInfo.environment["GRIOT_MIGRATE_KILL_AT_BATCH"], let batch = Int(value) else { return nil }
        return { ordinal in if ordinal == batch { kill(getpid(), SIGKILL) } }
    }
}

/// One line per table on standard error: a progress bar while it copies, replaced (on a
/// terminal) by the table's rows done / total when it is done.
private final class TableLines: Sendable {
    private let current = Mutex<(table: String, bar: ProgressBar)?>(nil)

    @Sendable func show(_ progress: TableProgress) {
        let bar = current.withLock { current -> ProgressBar in
            if let current, current.table == progress.table { return current.bar }
            let bar = ProgressBar(label: progress.table.padding(toLength: 18, withPad: " ", startingAt: 0))
            current = (progress.table, bar)
            return bar
        }
        bar.update(progress.rowsCopied, progress.rowsTotal)
        guard progress.finished else { return }
        let clear = Terminal.standardErrorIsTerminal ? "\r\u{1B}[2K" : ""
        Terminal.note(clear + progress.table.padding(toLength: 18, withPad: " ", startingAt: 0) + "\(progress.rowsCopied)/\(progress.rowsTotal) rows")
    }
}
