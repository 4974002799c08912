import Foundation
import GriotStore

extension RegionDatabases {
    /// Opens each region's database (a SQLite file is created when missing; a PostgreSQL
    /// database gets its migrations) and puts them behind one `RegionalChatStore` with `home`,
    /// the node's `--database`. A region whose database is the home database shares its store.
    ///
    /// ```swift
    /// let regional = try await configuration.regions!.open(home: archive.storage)
    /// let engine = try await ChatEngine.open(archive: archive, configuration: configuration, chats: regional.chats)
    /// ```
    ///
    /// Returns the regions' own `Storage` too, for the caller to sync and close.
    public func open(home: Storage, keyring: MasterKeyring?? = .none) async throws -> (chats: RegionalChatStore, storages: [Storage]) {
        var stores: [(name: String, store: any ChatStore)] = []
        var storages: [Storage] = []
        for entry in databases {
            let location = try StorageLocation.parse(entry.database)
            if location == home.location {
                stores.append((entry.region, home.chats))
                continue
            }
            if let opened = storages.first(where: { $0.location == location }) {
                stores.append((entry.region, opened.chats))
                continue
            }
            let storage: Storage
            do { storage = try await location.open(keyring: keyring) } catch {
                throw ConfigurationError("the database of region \(entry.region) (\(location)) could not be opened: \(error)")
            }
            storages.append(storage)
            stores.append((entry.region, storage.chats))
        }
        return (try RegionalChatStore(home: home.chats, regions: stores, defaultRegion: defaultRegion), storages)
    }
}
