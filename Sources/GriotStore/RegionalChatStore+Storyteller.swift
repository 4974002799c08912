import Foundation

/// The storyteller's rows follow the parent as a user's chat data does: a new child goes to the
/// bound region's store (the signed-in parent's region), the parent's own lists are read there,
/// and a row named by id is found where it lives, the bound region first (a share link is
/// opened by someone of any region). Drawings' blobs are the node's, shared by every region, so
/// a hash is unreferenced only when no region's drawing names it.
extension RegionalChatStore: StorytellerStore {
    // MARK: Children

    public func addChild(_ child: ChildRecord) async throws -> ChildRecord {
        try await inParentRegion { try await $0.addChild(child) }
    }

    public func children(parentID: String) async throws -> [ChildRecord] {
        try await inParentRegion { try await $0.children(parentID: parentID) }
    }

    public func child(id: String, parentID: String) async throws -> ChildRecord? {
        try await firstFound { try await $0.child(id: id, parentID: parentID) }
    }

    public func updateChild(id: String, parentID: String, name: String, age: Int?, avatar: String?, now: Date) async throws -> ChildRecord? {
        try await whereChild(id, parentID) { try await $0.updateChild(id: id, parentID: parentID, name: name, age: age, avatar: avatar, now: now) } ?? nil
    }

    public func deleteChild(id: String, parentID: String) async throws -> StorytellerRemoval? {
        guard var removal = try await firstFound({ try await $0.deleteChild(id: id, parentID: parentID) }) else { return nil }
        removal.unreferencedHashes = try await unreferencedHashes(Set(removal.unreferencedHashes)).sorted()
        return removal
    }

    // MARK: Drawings

    /// Stored where the child is (nowhere when no region holds the parent's child).
    public func addDrawing(_ drawing: DrawingRecord) async throws -> DrawingRecord? {
        try await whereChild(drawing.childID, drawing.parentID) { try await $0.addDrawing(drawing) } ?? nil
    }

    public func drawings(childID: String, parentID: String, query: DrawingQuery) async throws -> DrawingPage {
        try await whereChild(childID, parentID) { try await $0.drawings(childID: childID, parentID: parentID, query: query) }
            ?? DrawingPage(drawings: [], nextCursor: nil)
    }

    public func drawing(id: String, parentID: String) async throws -> DrawingRecord? {
        try await firstFound { try await $0.drawing(id: id, parentID: parentID) }
    }

    public func drawings(ids: [String], parentID: String) async throws -> [DrawingRecord] {
        var found: [String: DrawingRecord] = [:]
        for (name, store) in searchOrder() where found.count < Set(ids).count {
            let missing = ids.filter { found[$0] == nil }
            for drawing in try await Residency.$region.withValue(name, operation: { try await Self.storyteller(store).drawings(ids: missing, parentID: parentID) }) {
                found[drawing.id] = drawing
            }
        }
        return ids.compactMap { found[$0] }
    }

    public func deleteDrawing(id: String, parentID: String) async throws -> DrawingRemoval? {
        guard var removal = try await firstFound({ try await $0.deleteDrawing(id: id, parentID: parentID) }) else { return nil }
        if !removal.hashStillReferenced {
            removal.hashStillReferenced = try await unreferencedHashes([removal.drawing.contentHash]).isEmpty
        }
        return removal
    }

    public func drawingCount(parentID: String) async throws -> Int {
        try await inParentRegion { try await $0.drawingCount(parentID: parentID) }
    }

    public func drawingCount(childID: String, parentID: String) async throws -> Int {
        try await whereChild(childID, parentID) { try await $0.drawingCount(childID: childID, parentID: parentID) } ?? 0
    }

    // MARK: Stories and chapters

    public func createStory(_ story: BedtimeStoryRecord) async throws -> BedtimeStoryRecord? {
        try await whereChild(story.childID, story.parentID) { try await $0.createStory(story) } ?? nil
    }

    public func story(id: String, parentID: String) async throws -> BedtimeStoryRecord? {
        try await firstFound { try await $0.story(id: id, parentID: parentID) }
    }

    public func stories(childID: String, parentID: String) async throws -> [BedtimeStoryRecord] {
        try await whereChild(childID, parentID) { try await $0.stories(childID: childID, parentID: parentID) } ?? []
    }

    public func appendChapter(_ draft: ChapterDraft, parentID: String) async throws -> ChapterRecord? {
        try await whereStory(draft.storyID, parentID) { try await $0.appendChapter(draft, parentID: parentID) } ?? nil
    }

    public func chapters(storyID: String, parentID: String) async throws -> [ChapterRecord] {
        try await whereStory(storyID, parentID) { try await $0.chapters(storyID: storyID, parentID: parentID) } ?? []
    }

    // MARK: Share links

    public func createShare(_ share: StoryShareRecord) async throws -> StoryShareRecord? {
        try await firstFound { try await $0.createShare(share) }
    }

    public func share(token: String) async throws -> StoryShareRecord? {
        try await firstFound { try await $0.share(token: token) }
    }

    public func revokeShare(token: String, parentID: String, now: Date) async throws -> StoryShareRecord? {
        try await firstFound { try await $0.revokeShare(token: token, parentID: parentID, now: now) }
    }

    public func shares(storyID: String, parentID: String) async throws -> [StoryShareRecord] {
        try await whereStory(storyID, parentID) { try await $0.shares(storyID: storyID, parentID: parentID) } ?? []
    }

    // MARK: Blobs

    /// Every region's: an erasure removes the parent's rows from every region.
    public func drawingHashes(parentID: String) async throws -> Set<String> {
        var hashes: Set<String> = []
        for (name, store) in regions {
            hashes.formUnion(try await Residency.$region.withValue(name) { try await Self.storyteller(store).drawingHashes(parentID: parentID) })
        }
        return hashes
    }

    public func unreferencedHashes(_ hashes: Set<String>) async throws -> Set<String> {
        var unreferenced = hashes
        for (name, store) in regions where !unreferenced.isEmpty {
            unreferenced = try await Residency.$region.withValue(name) { try await Self.storyteller(store).unreferencedHashes(unreferenced) }
        }
        return unreferenced
    }

    // MARK: Choosing the store

    /// A region's store as the storyteller's (every backend's chat store is one).
    private static func storyteller(_ store: any ChatStore) throws -> any StorytellerStore {
        guard let store = store as? any StorytellerStore else {
            throw ChatStoreError(.invalid, "The region's chat store (\(type(of: store))) keeps no storyteller data; configure the region on SQLite or PostgreSQL.")
        }
        return store
    }

    /// Runs `body` on the bound region's store (the parent's region), bound to it; throws
    /// `RegionUnavailable` for a region this node keeps no store for.
    private func inParentRegion<T>(_ body: (any StorytellerStore) async throws -> T) async throws -> T {
        let name = Residency.region ?? defaultRegion
        guard serves(name), let store = regions.first(where: { $0.name == name })?.store else {
            throw RegionUnavailable(region: name, served: regionNames)
        }
        return try await Residency.$region.withValue(name) { try await body(Self.storyteller(store)) }
    }

    /// The first region, the bound one first, where `body` finds something (each bound to its region).
    private func firstFound<T>(_ body: (any StorytellerStore) async throws -> T?) async throws -> T? {
        for (name, store) in searchOrder() {
            if let found = try await Residency.$region.withValue(name, operation: { try await body(Self.storyteller(store)) }) { return found }
        }
        return nil
    }

    /// Runs `body` in the region holding the parent's child (nil when none does): a write that
    /// seals text makes the parent's data key only where the parent's rows are.
    private func whereChild<T>(_ childID: String, _ parentID: String, _ body: (any StorytellerStore) async throws -> T) async throws -> T? {
        try await firstFound { store in try await store.child(id: childID, parentID: parentID) == nil ? nil : try await body(store) }
    }

    private func whereStory<T>(_ storyID: String, _ parentID: String, _ body: (any StorytellerStore) async throws -> T) async throws -> T? {
        try await firstFound { store in try await store.story(id: storyID, parentID: parentID) == nil ? nil : try await body(store) }
    }

    private func searchOrder() -> [(name: String, store: any ChatStore)] {
        guard let first = Residency.region, serves(first) else { return regions }
        return regions.filter { $0.name == first } + regions.filter { $0.name != first }
    }
}
