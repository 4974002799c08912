import Foundation

extension Storage {
    /// The storyteller's store: the conversations' database (and, with regions, the parent's
    /// region's), which every backend's chat store is.
    public var storyteller: any StorytellerStore {
        get throws {
            guard let store = chats as? any StorytellerStore else {
                throw ChatStoreError(.invalid, "This database's chat store (\(type(of: chats))) keeps no storyteller data; run the service on SQLite or PostgreSQL.")
            }
            return store
        }
    }
}
