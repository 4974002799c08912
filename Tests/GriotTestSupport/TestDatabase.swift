import Foundation
import GriotPostgres
import GriotStore

/// The database the behaviour tests keep their stores in: a private in-memory SQLite database by
/// default, and with `GRIOT_TEST_DATABASE=postgres` a fresh schema on the test server (see
/// `TestServer`: `GRIOT_TEST_POSTGRES_URL`, else `scripts/postgres.sh up`, once per process).
///
/// ```swift
/// let storage = try await TestDatabase.storage()
/// let engine = ChatEngine(archive: archive, chats: storage.chats, …)
/// ```
///
/// The PostgreSQL schemas (`t_<random>`) are not dropped when a test ends: a store has no
/// `close`, and tests hand theirs to engines and services that outlive the test body. They go
/// with the database: `scripts/test.sh` runs the PostgreSQL pass in a database of its own and
/// drops it afterwards; a run by hand leaves them in database griot until `scripts/postgres.sh down`.
public enum TestDatabase {
    public enum Backend: String, Sendable {
        case sqlite
        case postgres
    }

    /// What `GRIOT_TEST_DATABASE` asks for: unset, empty or `sqlite` is SQLite; `postgres` (or
    /// `postgresql`) is PostgreSQL; anything else stops the run with what to write.
    public static let backend: Backend = {
        let value = ProcessInfo.processInfo.environment["GRIOT_TEST_DATABASE", default: ""].lowercased()
        switch value {
        case "", "sqlite": return .sqlite
        case "postgres", "postgresql": return .postgres
        default: fatalError("GRIOT_TEST_DATABASE=\(value) is not a backend the tests know; set it to sqlite (the default) or postgres")
        }
    }()

    public static var isSQLite: Bool { backend == .sqlite }
    public static var isPostgres: Bool { backend == .postgres }

    /// The cipher a test store seals its text with: the keyring `GRIOT_MASTER_KEY_FILE` names
    /// (`GRIOT_MASTER_KEY_FILE=… scripts/test.sh` runs every suite on encrypted stores), else
    /// none. A new one per store, as a node opening the database has.
    public static func cipher() throws -> FieldCipher {
        FieldCipher(keyring: try MasterKeyring.configured())
    }

    /// A fresh, empty store on this run's backend, its schema up to date.
    public static func storage() async throws -> Storage {
        switch backend {
        case .sqlite:
            return try SQLiteStoryStore.inMemory(cipher: cipher()).storage()
        case .postgres:
            let schema = try await TestSchema.create()
            return try await PostgresDatabase.open(url: schema.url).storage()
        }
    }

    /// A fresh, empty database that can be opened more than once (`StorageLocation.open()`), for
    /// tests of what a second node, or the same node after a restart, reads back: a new SQLite
    /// file in the temporary folder, or a new PostgreSQL schema.
    public static func location() async throws -> StorageLocation {
        switch backend {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("griot-tests-\(UUID().uuidString)")
            return .sqlite(path: directory.appendingPathComponent("griot.sqlite").path)
        case .postgres:
            return .postgres(url: try await TestSchema.create().url)
        }
    }
}
