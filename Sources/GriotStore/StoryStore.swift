import Foundation
import GRDB
import GriotStories

/// What storing a batch of stories did.
public struct StoreSummary: Sendable, Hashable {
    public var added = 0
    public var updated = 0
    public var unchanged = 0

    public init() {}
}

/// Stories and their passages in one SQLite file (WAL), through GRDB.
///
/// A story and its passages are written in one transaction, so a failure never leaves a
/// story half stored. The search structures are not kept here: they are rebuilt from
/// `allStories()` and `allPassages()` at start.
///
/// ```swift
/// let store = try StoryStore(path: "griot.sqlite")
/// try store.save([(story, passages)])
/// let stories = try store.allStories()
/// ```
public final class StoryStore: Sendable {
    public let writer: any DatabaseWriter

    /// Opens (creating if needed) the database file and brings its schema up to date.
    public convenience init(path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        try self.init(writer: DatabasePool(path: path, configuration: configuration))
    }

    /// A private in-memory database, for tests and benchmarks.
    public static func inMemory() throws -> StoryStore {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        return try StoryStore(writer: DatabaseQueue(configuration: configuration))
    }

    public init(writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: stories and passages") { db in
            try db.create(table: "story") { table in
                table.primaryKey("id", .text)
                table.column("title", .text).notNull()
                table.column("privacy", .text).notNull()
                table.column("ownerUserID", .text)
                table.column("familyGroupIDs", .text).notNull()
                table.column("document", .text).notNull()
                table.column("contentHash", .text).notNull()
                table.column("ingestedAt", .datetime).notNull()
            }
            try db.create(table: "passage") { table in
                table.primaryKey("id", .text)
                table.column("storyID", .text).notNull().references("story", onDelete: .cascade)
                table.column("ordinal", .integer).notNull()
                table.column("text", .text).notNull()
                table.column("speaker", .text)
                table.column("startSeconds", .double)
                table.column("endSeconds", .double)
                table.column("startOffset", .integer).notNull()
                table.column("endOffset", .integer).notNull()
            }
            try db.create(index: "passage_by_story", on: "passage", columns: ["storyID", "ordinal"])
        }
        return migrator
    }

    // MARK: Writing

    /// Inserts new stories and replaces changed ones, each with its passages, in one transaction.
    public func save(_ batch: [(story: Story, passages: [Passage])]) throws -> StoreSummary {
        try writer.write { db in
            var summary = StoreSummary()
            for (story, passages) in batch {
                let record = try StoryRecord(story: story)
                if let existing = try String.fetchOne(db, sql: "SELECT contentHash FROM story WHERE id = ?", arguments: [story.artifactID]) {
                    if existing == record.contentHash {
                        summary.unchanged += 1
                        continue
                    }
                    try db.execute(sql: "DELETE FROM passage WHERE storyID = ?", arguments: [story.artifactID])
                    try record.update(db)
                    summary.updated += 1
                } else {
                    try record.insert(db)
                    summary.added += 1
                }
                for passage in passages { try PassageRecord(passage).insert(db) }
            }
            return summary
        }
    }

    /// Removes a story and (by cascade) its passages. Returns false when there was none.
    @discardableResult
    public func delete(storyID: String) throws -> Bool {
        try writer.write { db in try StoryRecord.deleteOne(db, key: storyID) }
    }

    // MARK: Reading

    public func story(id: String) throws -> Story? {
        try writer.read { db in try StoryRecord.fetchOne(db, key: id)?.story() }
    }

    public func allStories() throws -> [Story] {
        try writer.read { db in try StoryRecord.order(Column("id")).fetchAll(db).map { try $0.story() } }
    }

    public func passages(storyID: String) throws -> [Passage] {
        try writer.read { db in
            try PassageRecord.filter(Column("storyID") == storyID).order(Column("ordinal")).fetchAll(db).map(\.passage)
        }
    }

    public func passage(id: String) throws -> Passage? {
        try writer.read { db in try PassageRecord.fetchOne(db, key: id)?.passage }
    }

    public func allPassages() throws -> [Passage] {
        try writer.read { db in
            try PassageRecord.order(Column("storyID"), Column("ordinal")).fetchAll(db).map(\.passage)
        }
    }

    public func storyCount() throws -> Int {
        try writer.read { db in try StoryRecord.fetchCount(db) }
    }

    public func passageCount() throws -> Int {
        try writer.read { db in try PassageRecord.fetchCount(db) }
    }
}
