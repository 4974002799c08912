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
    public func open() async throws -> Storage {
        switch self {
        case .sqlite(let path):
            return try SQLiteStoryStore(path: path).storage()
        case .postgres(let url):
            return try await PostgresDatabase.open(url: url).storage()
        }
    }

    /// The location the configuration names: `GRIOT_DATABASE_URL` / `database` (a URL or a path),
    /// else the SQLite file `databasePath`.
    public static func configured(_ configuration: GriotConfiguration) throws -> StorageLocation {
        try parse(configuration.databasePath)
    }
}
