import Foundation
import GriotPostgres
import GriotStore

extension StorageLocation {
    /// Opens the database and brings its schema up to date: a SQLite file (created when
    /// missing, WAL) or a PostgreSQL database shared by every node (its migrations run under an
    /// advisory lock, so nodes starting together take turns).
    ///
    /// ```swift
    /// let storage = try await StorageLocation.parse("postgres://griot:griot@127.0.0.1:54329/griot").open()
    /// let archive = StoryArchive(storage: storage, embedder: try SentenceEmbedder())
    /// ```
    ///
    /// The stored text is sealed with the master key `GRIOT_MASTER_KEY_FILE` (or
    /// `GRIOT_MASTER_KEY_COMMAND`) names, or `keyring`'s; opening fails, naming the master key,
    /// when the keyring cannot open the database's data keys (or there is none and it has some).
    public func open(keyring: MasterKeyring?? = .none) async throws -> Storage {
        let cipher = FieldCipher(keyring: try keyring ?? MasterKeyring.configured())
        switch self {
        case .sqlite(let path):
            return try SQLiteStoryStore(path: path, cipher: cipher).storage()
        case .postgres(let url):
            let database = try await PostgresDatabase.open(url: url)
            do {
                return try await database.storage(cipher: cipher)
            } catch {
                await database.close()
                throw error
            }
        }
    }

    /// The location the configuration names: `GRIOT_DATABASE_URL` / `database` (a URL or a path),
    /// else the SQLite file `databasePath`.
    public static func configured(_ configuration: GriotConfiguration) throws -> StorageLocation {
        try parse(configuration.databasePath)
    }
}
