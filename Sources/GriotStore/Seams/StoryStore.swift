import Foundation
import GriotStories

/// Stories, their passages and passage vectors, and facts about the database itself (`meta`).
/// A story and its passages are written in one transaction, so a failure never leaves a story
/// half stored. The search structures are not kept here: each node builds them from
/// `allStories()` and `allPassages()` at start.
public protocol StoryStore: Sendable {
    /// Inserts new stories and replaces changed ones, each with its passages, in one
    /// transaction. A story stored under another `revision` (the splitter's settings) counts as changed.
    func save(_ batch: [(story: Story, passages: [Passage])], revision: String) async throws -> [SaveOutcome]
    func saveEmbeddings(_ vectors: [(passageID: String, vector: [Float])], model: String) async throws
    /// The stored vectors made by `model` (of `passageIDs` only, when given).
    func embeddings(model: String, passageIDs: [String]?) async throws -> [String: [Float]]
    /// How many vectors each model made.
    func embeddingCounts() async throws -> [String: Int]
    func deleteAllEmbeddings() async throws
    func metaValue(_ key: String) async throws -> String?
    func setMetaValue(_ key: String, _ value: String) async throws
    /// Throws, saying what to do, when the database cannot be written.
    func checkWritable() async throws
    /// Deletes a story with its passages; false when there was none.
    func delete(storyID: String) async throws -> Bool
    func story(id: String) async throws -> Story?
    func allStories() async throws -> [Story]
    func passages(storyID: String) async throws -> [Passage]
    func passage(id: String) async throws -> Passage?
    func allPassages() async throws -> [Passage]
    func storyCount() async throws -> Int
    func passageCount() async throws -> Int

    /// The changes to stories committed after `sequence`, oldest first, at most `limit`: what
    /// a node applies to its in-memory index to follow writes made through other nodes.
    func changes(after sequence: Int64, limit: Int) async throws -> [StoryChange]
    /// The newest change's sequence (0 before the first).
    func lastChangeSequence() async throws -> Int64
    /// Removes changes older than `age`, for a scheduled job; a node that fell further behind
    /// than that rebuilds its index from the stories.
    func pruneChanges(olderThan age: TimeInterval, now: Date) async throws -> Int
    /// Waits until a change may have been committed (a wake-up, not a promise: the caller reads
    /// the log to know), or for at most `timeout`. A database that can tell (PostgreSQL's
    /// LISTEN/NOTIFY) answers at once; one that cannot simply waits, and the caller polls.
    func waitForChange(timeout: Duration) async
}

extension StoryStore {
    @discardableResult
    public func save(_ batch: [(story: Story, passages: [Passage])], revision: String = "") async throws -> [SaveOutcome] {
        try await save(batch, revision: revision)
    }

    public func embeddings(model: String, passageIDs: [String]? = nil) async throws -> [String: [Float]] {
        try await embeddings(model: model, passageIDs: passageIDs)
    }

    /// Polling: a store that cannot be told of a change waits out the timeout.
    public func waitForChange(timeout: Duration) async {
        try? await Task.sleep(for: timeout)
    }
}
