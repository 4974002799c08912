import Foundation
import GRDB
import GriotStories

/// What storing one story did.
public enum SaveOutcome: Sendable, Hashable {
    case added, updated, unchanged
}

/// What storing a batch of stories did.
public struct StoreSummary: Sendable, Hashable {
    public var added = 0
    public var updated = 0
    public var unchanged = 0

    public init() {}

    public mutating func count(_ outcomes: [SaveOutcome]) {
        for outcome in outcomes {
            switch outcome {
            case .added: added += 1
            case .updated: updated += 1
            case .unchanged: unchanged += 1
            }
        }
    }
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
public final class SQLiteStoryStore: StoryStore {
    public let writer: any DatabaseWriter
    /// Seals the text of non-public stories (the identity when no master key is configured).
    public let cipher: FieldCipher

    /// Opens (creating if needed) the database file and brings its schema up to date. With a
    /// keyring, fails here when it cannot open the database's data keys (naming the master key).
    public convenience init(path: String, cipher: FieldCipher = .plaintext) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        try self.init(writer: DatabasePool(path: path, configuration: configuration), cipher: cipher)
    }

    /// A private in-memory database, for tests and benchmarks.
    public static func inMemory(cipher: FieldCipher = .plaintext) throws -> SQLiteStoryStore {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        return try SQLiteStoryStore(writer: DatabaseQueue(configuration: configuration), cipher: cipher)
    }

    public init(writer: any DatabaseWriter, cipher: FieldCipher = .plaintext) throws {
        self.writer = writer
        self.cipher = cipher
        try SQLiteSchema.migrator.migrate(writer)
        try writer.read { db in try cipher.checkOpens(db: db) }
    }

    // MARK: Writing

    /// Inserts new stories and replaces changed ones, each with its passages, in one
    /// transaction. `revision` names how the passages were made (the splitter's settings):
    /// a story stored under another revision counts as changed, so its passages are re-cut.
    public func save(_ batch: [(story: Story, passages: [Passage])], revision: String = "") async throws -> [SaveOutcome] {
        let cipher = self.cipher
        return try await writer.commit { db in
            try batch.map { story, passages in
                let record = try StoryRecord(story: story, revision: revision)
                let outcome: SaveOutcome
                if let existing = try String.fetchOne(db, sql: "SELECT contentHash FROM story WHERE id = ?", arguments: [story.artifactID]) {
                    if existing == record.contentHash { return .unchanged }
                    try db.execute(sql: "DELETE FROM passage WHERE storyID = ?", arguments: [story.artifactID])
                    try record.sealed(cipher, db).update(db)
                    outcome = .updated
                } else {
                    try record.sealed(cipher, db).insert(db)
                    outcome = .added
                }
                let keyID = record.isSealed && cipher.isEnabled ? try cipher.keyID(scope: .story(story.artifactID), db: db) : nil
                for passage in passages { try PassageRecord(passage).sealed(cipher, keyID: keyID).insert(db) }
                try Self.recordChange(of: story.artifactID, db)
                return outcome
            }
        }
    }

    // MARK: Embeddings

    /// Stores (or replaces) passage vectors made by `model`.
    public func saveEmbeddings(_ vectors: [(passageID: String, vector: [Float])], model: String) async throws {
        try await writer.commit { db in
            for (passageID, vector) in vectors {
                try db.execute(
                    sql: "INSERT INTO passageEmbedding (passageID, model, vector) VALUES (?, ?, ?) ON CONFLICT(passageID) DO UPDATE SET model = excluded.model, vector = excluded.vector",
                    arguments: [passageID, model, vector.withUnsafeBytes { Data($0) }])
            }
            let storyIDs = try String.fetchAll(db, sql: "SELECT DISTINCT storyID FROM passage WHERE id IN (SELECT value FROM json_each(?))",
                                               arguments: [String(decoding: try JSONEncoder().encode(vectors.map(\.passageID)), as: UTF8.self)])
            for storyID in storyIDs { try Self.recordChange(of: storyID, db) }
        }
    }

    /// The vectors `model` made, by passage id (for all passages, or the ones listed).
    public func embeddings(model: String, passageIDs: [String]? = nil) async throws -> [String: [Float]] {
        try await writer.read { db in
            var vectors: [String: [Float]] = [:]
            let rows: [Row]
            if let passageIDs {
                rows = try Row.fetchAll(db, sql: "SELECT passageID, vector FROM passageEmbedding WHERE model = ? AND passageID IN (SELECT value FROM json_each(?))",
                                        arguments: [model, String(decoding: try JSONEncoder().encode(passageIDs), as: UTF8.self)])
            } else {
                rows = try Row.fetchAll(db, sql: "SELECT passageID, vector FROM passageEmbedding WHERE model = ?", arguments: [model])
            }
            for row in rows {
                let data: Data = row["vector"]
                vectors[row["passageID"]] = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            }
            return vectors
        }
    }

    /// How many vectors each model made.
    public func embeddingCounts() async throws -> [String: Int] {
        try await writer.read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT model, COUNT(*) AS count FROM passageEmbedding GROUP BY model") {
                counts[row["model"]] = row["count"]
            }
            return counts
        }
    }

    public func deleteAllEmbeddings() async throws {
        try await writer.commit { db in
            try db.execute(sql: "DELETE FROM passageEmbedding")
            try Self.recordChange(of: "", kind: .all, db)
        }
    }

    public func metaValue(_ key: String) async throws -> String? {
        try await writer.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    /// Whether the database would take a write, found without writing one: takes SQLite's write
    /// lock (`BEGIN IMMEDIATE`) and gives it back (`ROLLBACK`). Throws what would stop a write:
    /// a read-only file or connection, or the lock held by another writer past the busy timeout.
    /// A readiness probe calls it, so that an anonymous probe changes nothing on disk.
    public func checkWritable() async throws {
        try await writer.commitWithoutTransaction { db in
            try db.inTransaction(.immediate) { .rollback }
        }
    }

    public func setMetaValue(_ key: String, _ value: String) async throws {
        try await writer.commit { db in
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", arguments: [key, value])
        }
    }

    /// Removes a story and (by cascade) its passages, and deletes its data key, so that no copy
    /// of its sealed text left behind can be opened. Returns false when there was none.
    @discardableResult
    public func delete(storyID: String) async throws -> Bool {
        let cipher = self.cipher
        return try await writer.commit { db in
            let deleted = try StoryRecord.deleteOne(db, key: storyID)
            if deleted {
                try cipher.shred(scope: .story(storyID), db: db)
                try Self.recordChange(of: storyID, db)
            }
            return deleted
        }
    }

    // MARK: Reading

    public func story(id: String) async throws -> Story? {
        try await writer.read { db in try StoryRecord.fetchOne(db, key: id)?.opened(cipher, db).story() }
    }

    /// Every story, opened: the search index is built from these.
    public func allStories() async throws -> [Story] {
        try await writer.read { db in try StoryRecord.order(Column("id")).fetchAll(db).map { try $0.opened(cipher, db).story() } }
    }

    public func passages(storyID: String) async throws -> [Passage] {
        try await writer.read { db in
            let sealed = try Self.sealedStoryIDs(db, storyID: storyID).contains(storyID)
            return try PassageRecord.filter(Column("storyID") == storyID).order(Column("ordinal")).fetchAll(db)
                .map { try $0.opened(cipher, sealed, db).passage }
        }
    }

    public func passage(id: String) async throws -> Passage? {
        try await writer.read { db in
            guard let record = try PassageRecord.fetchOne(db, key: id) else { return nil }
            return try record.opened(cipher, Self.sealedStoryIDs(db, storyID: record.storyID).contains(record.storyID), db).passage
        }
    }

    /// Every passage, opened: the search index is built from these.
    public func allPassages() async throws -> [Passage] {
        try await writer.read { db in
            let sealed = try Self.sealedStoryIDs(db)
            return try PassageRecord.order(Column("storyID"), Column("ordinal")).fetchAll(db)
                .map { try $0.opened(cipher, sealed.contains($0.storyID), db).passage }
        }
    }

    /// The ids of the stories whose text is sealed (those not public), all or the one named.
    static func sealedStoryIDs(_ db: Database, storyID: String? = nil) throws -> Set<String> {
        if let storyID {
            return Set(try String.fetchAll(db, sql: "SELECT id FROM story WHERE id = ? AND privacy <> ?", arguments: [storyID, Privacy.public.rawValue]))
        }
        return Set(try String.fetchAll(db, sql: "SELECT id FROM story WHERE privacy <> ?", arguments: [Privacy.public.rawValue]))
    }

    public func storyCount() async throws -> Int {
        try await writer.read { db in try StoryRecord.fetchCount(db) }
    }

    public func passageCount() async throws -> Int {
        try await writer.read { db in try PassageRecord.fetchCount(db) }
    }

    // MARK: Change log

    public func changes(after sequence: Int64, limit: Int) async throws -> [StoryChange] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT sequence, storyID, kind FROM storyChange WHERE sequence > ? ORDER BY sequence LIMIT ?",
                             arguments: [sequence, limit]).map { row in
                StoryChange(sequence: row["sequence"], storyID: row["storyID"], kind: StoryChange.Kind(rawValue: row["kind"]) ?? .all)
            }
        }
    }

    public func lastChangeSequence() async throws -> Int64 {
        try await writer.read { db in try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM storyChange") ?? 0 }
    }

    @discardableResult
    public func pruneChanges(olderThan age: TimeInterval, now: Date = Date()) async throws -> Int {
        try await writer.commit { db in
            // The newest change stays, so the sequence never goes back (AUTOINCREMENT keeps it anyway).
            try db.execute(sql: "DELETE FROM storyChange WHERE at < ? AND sequence < (SELECT MAX(sequence) FROM storyChange)",
                           arguments: [now.addingTimeInterval(-age)])
            return db.changesCount
        }
    }

    /// Appends a change to the log, in the caller's transaction.
    static func recordChange(of storyID: String, kind: StoryChange.Kind = .story, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO storyChange (storyID, kind, at) VALUES (?, ?, ?)", arguments: [storyID, kind.rawValue, Date()])
    }
}

extension SQLiteStoryStore {
    /// This database's stores together: its stories, its conversations and its rate limiter.
    public func storage() throws -> Storage {
        let path = (writer as? DatabasePool)?.path ?? ":memory:"
        let chats = try SQLiteChatStore(writer: writer, cipher: cipher)
        let writer = self.writer
        return Storage(location: .sqlite(path: path), stories: self, chats: chats) { limits in
            try SQLiteRateLimiter(writer: writer, limits: limits, pseudonyms: chats.pseudonyms)
        }
    }
}
