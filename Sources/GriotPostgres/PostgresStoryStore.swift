import Foundation
import GriotStore
import GriotStories
import PostgresNIO

/// Stories, their passages and passage vectors, and `meta`, in a shared PostgreSQL database:
/// `SQLiteStoryStore`'s behaviour, row for row, through postgres-nio.
///
/// The title, document and passages of a story that is not public are sealed with the story's
/// data key (`KeyScope.story`); a public story's text is stored as it is. Readers open them, so
/// the search index built from `allStories`/`allPassages` sees the text; nothing here filters
/// or orders by a sealed column in SQL.
///
/// A batch is saved in one transaction with a few statements of many rows each, so ingesting
/// a corpus costs round trips per batch, not per passage. Saves take an advisory lock, so two
/// nodes ingesting the same story one after the other (as SQLite's single writer would) never
/// collide on its passages.
///
/// ```swift
/// let stories = PostgresStoryStore(database: database)
/// let outcomes = try await stories.save([(story, passages)], revision: "split-v2")
/// ```
public final class PostgresStoryStore: StoryStore {
    public let database: PostgresDatabase
    /// Wakes `waitForChange` at each committed story change (LISTEN/NOTIFY).
    let changeSignal: ChangeSignal

    /// The advisory lock of story saves: (`'GRIO'`, a hash of `'story'` and the schema), beside
    /// the migrations' lock (see `PostgresSchema.lockClass`).
    static let saveLockClass: Int32 = PostgresSchema.lockClass

    /// Seals the text of non-public stories (the identity when no master key is configured).
    public let cipher: FieldCipher
    let keys: PostgresDataKeys

    public init(database: PostgresDatabase, cipher: FieldCipher = .plaintext) {
        self.database = database
        self.changeSignal = ChangeSignal(database: database)
        self.cipher = cipher
        self.keys = PostgresDataKeys(database: database, cipher: cipher)
    }

    // MARK: Writing

    /// Inserts new stories and replaces changed ones, each with its passages, in one
    /// transaction. A story stored under another `revision` (the splitter's settings) counts as
    /// changed, so its passages are cut again. A story listed twice is saved as SQLite would:
    /// in order, the later one against the earlier.
    public func save(_ batch: [(story: Story, passages: [Passage])], revision: String) async throws -> [SaveOutcome] {
        guard !batch.isEmpty else { return [] }
        // PostgreSQL refuses a NUL in text with a bare encoding error: say which story and what to do.
        for (story, passages) in batch {
            let texts = [story.artifactID, story.title, story.ownerUserID ?? ""] + passages.flatMap { [$0.id, $0.text, $0.speaker ?? ""] }
            if let reason = texts.lazy.compactMap({ StorableText.unstorableReason($0, what: "story \(story.artifactID)") }).first {
                throw ChatStoreError(.invalid, reason)
            }
        }
        // The rows SQLite stores too, so a story hashes alike on either backend.
        let rows = try batch.map { try StoryRecord(story: $0.story, revision: revision) }
        let logger = database.logger
        // The stories' keys are read or made before the transaction, which holds the save lock:
        // its seals then never wait for a pooled connection.
        if cipher.isEnabled {
            for row in rows where Self.isSealed(privacy: row.privacy) && cipher.cachedKeyID(scope: .story(row.id)) == nil {
                _ = try await keys.keyID(scope: .story(row.id))
            }
        }
        return try await database.transaction { connection in
            try await Self.lockStoryWrites(connection, logger: logger)
            let ids = Array(Set(rows.map(\.id)))
            var hashes: [String: String] = [:]
            for try await (id, hash) in try await connection.query("SELECT id, contentHash FROM story WHERE id = ANY(\(ids))", logger: logger)
                .decode((String, String).self) {
                hashes[id] = hash
            }
            let stored = Set(hashes.keys)

            // What each story does, in order, and the last version of each changed one.
            var outcomes: [SaveOutcome] = []
            var changed: [String: Int] = [:]
            for (index, row) in rows.enumerated() {
                if let hash = hashes[row.id] {
                    if hash == row.contentHash { outcomes.append(.unchanged); continue }
                    outcomes.append(.updated)
                } else {
                    outcomes.append(.added)
                }
                hashes[row.id] = row.contentHash
                changed[row.id] = index
            }
            guard !changed.isEmpty else { return outcomes }
            let written = changed.values.sorted()

            // Replaced stories lose their passages (and, by cascade, the passages' vectors).
            let replaced = written.map { rows[$0].id }.filter(stored.contains)
            if !replaced.isEmpty {
                try await connection.query("DELETE FROM passage WHERE storyID = ANY(\(replaced))", logger: logger)
            }
            // Sealed after the hashes are compared (a hash is of the plain text, so an unchanged
            // story is still found unchanged), and only for the stories written.
            var sealedRows: [StoryRecord] = []
            var sealedPassages: [Passage] = []
            for index in written {
                let (row, passages) = try await sealed(rows[index], batch[index].passages)
                sealedRows.append(row)
                sealedPassages += passages
            }
            try await connection.insertRows(
                sealedRows, columns: 8,
                into: "story (id, title, privacy, ownerUserID, familyGroupIDs, document, contentHash, ingestedAt)",
                then: """
                    ON CONFLICT (id) DO UPDATE SET title = excluded.title, privacy = excluded.privacy, ownerUserID = excluded.ownerUserID,
                    familyGroupIDs = excluded.familyGroupIDs, document = excluded.document, contentHash = excluded.contentHash,
                    ingestedAt = excluded.ingestedAt
                    """,
                logger: logger
            ) { row, binds in
                binds.append(row.id)
                binds.append(row.title)
                binds.append(row.privacy)
                binds.append(row.ownerUserID)
                binds.append(row.familyGroupIDs)
                binds.append(row.document)
                binds.append(row.contentHash)
                binds.append(row.ingestedAt.millisecondRounded)
            }
            try await connection.insertRows(
                sealedPassages, columns: 9,
                into: "passage (id, storyID, ordinal, text, speaker, startSeconds, endSeconds, startOffset, endOffset)",
                logger: logger
            ) { passage, binds in
                binds.append(passage.id)
                binds.append(passage.storyID)
                binds.append(passage.ordinal)
                binds.append(passage.text)
                binds.append(passage.speaker)
                binds.append(passage.startSeconds)
                binds.append(passage.endSeconds)
                binds.append(passage.startOffset)
                binds.append(passage.endOffset)
            }
            try await Self.recordChanges(of: written.map { rows[$0].id }, on: connection, logger: logger)
            return outcomes
        }
    }

    /// Removes a story and (by cascade) its passages and their vectors. False when there was none.
    @discardableResult
    public func delete(storyID: String) async throws -> Bool {
        let logger = database.logger
        return try await database.transaction { connection in
            try await Self.lockStoryWrites(connection, logger: logger)
            let deleted = try await connection.query("DELETE FROM story WHERE id = \(storyID) RETURNING id", logger: logger).collect()
            if !deleted.isEmpty { try await Self.recordChanges(of: [storyID], on: connection, logger: logger) }
            // Any copy of a private story's text left behind (WAL, a dump) no longer opens.
            try await keys.shred(scope: .story(storyID), on: connection)
            return !deleted.isEmpty
        }
    }

    // MARK: Embeddings

    /// Stores (or replaces) passage vectors made by `model`; a passage listed twice keeps the later vector.
    public func saveEmbeddings(_ vectors: [(passageID: String, vector: [Float])], model: String) async throws {
        var latest: [String: Int] = [:]
        for (index, entry) in vectors.enumerated() { latest[entry.passageID] = index }
        let rows = latest.values.sorted().map { (passageID: vectors[$0].passageID, bytes: Self.bytes(of: vectors[$0].vector)) }
        guard !rows.isEmpty else { return }
        let logger = database.logger
        try await database.transaction { connection in
            try await Self.lockStoryWrites(connection, logger: logger)
            try await connection.insertRows(
                rows, columns: 3, into: "passageEmbedding (passageID, model, vector)",
                then: "ON CONFLICT (passageID) DO UPDATE SET model = excluded.model, vector = excluded.vector",
                logger: logger
            ) { row, binds in
                binds.append(row.passageID)
                binds.append(model)
                binds.append(row.bytes)
            }
            let passageIDs = rows.map(\.passageID)
            var storyIDs: [String] = []
            for try await id in try await connection.query("SELECT DISTINCT storyID FROM passage WHERE id = ANY(\(passageIDs))", logger: logger)
                .decode(String.self) {
                storyIDs.append(id)
            }
            try await Self.recordChanges(of: storyIDs.sorted(), on: connection, logger: logger)
        }
    }

    /// The vectors `model` made, by passage id (for all passages, or the ones listed).
    public func embeddings(model: String, passageIDs: [String]?) async throws -> [String: [Float]] {
        let query: PostgresQuery
        if let passageIDs {
            query = "SELECT passageID, vector FROM passageEmbedding WHERE model = \(model) AND passageID = ANY(\(passageIDs))"
        } else {
            query = "SELECT passageID, vector FROM passageEmbedding WHERE model = \(model)"
        }
        var vectors: [String: [Float]] = [:]
        for try await (passageID, bytes) in try await database.client.query(query, logger: database.logger).decode((String, ByteBuffer).self) {
            vectors[passageID] = Self.vector(from: bytes)
        }
        return vectors
    }

    /// How many vectors each model made.
    public func embeddingCounts() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for try await (model, count) in try await database.client.query("SELECT model, count(*) FROM passageEmbedding GROUP BY model",
                                                                         logger: database.logger).decode((String, Int).self) {
            counts[model] = count
        }
        return counts
    }

    public func deleteAllEmbeddings() async throws {
        let logger = database.logger
        try await database.transaction { connection in
            try await Self.lockStoryWrites(connection, logger: logger)
            try await connection.query("DELETE FROM passageEmbedding", logger: logger)
            try await Self.recordChanges(of: [""], kind: .all, on: connection, logger: logger)
        }
    }

    /// Float32 in little-endian order, 4 bytes a value: the bytes SQLite's `vector` column holds.
    static func bytes(of vector: [Float]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(vector.count * 4)
        for value in vector { buffer.writeInteger(value.bitPattern, endianness: .little) }
        return buffer
    }

    static func vector(from bytes: ByteBuffer) -> [Float] {
        var bytes = bytes
        var vector: [Float] = []
        vector.reserveCapacity(bytes.readableBytes / 4)
        while let bits = bytes.readInteger(endianness: .little, as: UInt32.self) { vector.append(Float(bitPattern: bits)) }
        return vector
    }

    // MARK: Meta

    public func metaValue(_ key: String) async throws -> String? {
        try await database.client.query("SELECT value FROM meta WHERE key = \(key)", logger: database.logger)
            .collect().first?.decode(String.self)
    }

    public func setMetaValue(_ key: String, _ value: String) async throws {
        try await database.client.query(
            "INSERT INTO meta (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            logger: database.logger)
    }

    /// Whether the database would take a write, found without writing one: throws, saying what
    /// to do, on a standby (in recovery), a read-only session, or a role that may not write.
    /// A readiness probe calls it, so that an anonymous probe changes nothing.
    public func checkWritable() async throws {
        let state: (inRecovery: Bool, readOnly: Bool, mayWrite: Bool)
        do {
            let rows = try await database.client.query("""
                SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on',
                       has_table_privilege('meta', 'INSERT, UPDATE, DELETE')
                """, logger: database.logger).collect()
            guard let row = rows.first else { throw PostgresDatabase.Failure("PostgreSQL at \(database.endpoint) returned no row") }
            let (inRecovery, readOnly, mayWrite) = try row.decode((Bool, Bool, Bool).self)
            state = (inRecovery, readOnly, mayWrite)
        } catch let error as PSQLError {
            throw PostgresDatabase.Failure("PostgreSQL at \(database.endpoint) cannot be reached to check it takes writes: \(error.readableDescription); is the server running?")
        }
        if state.inRecovery {
            throw PostgresDatabase.Failure("PostgreSQL at \(database.endpoint) is a read-only standby (in recovery); point the database URL at the primary.")
        }
        if state.readOnly {
            throw PostgresDatabase.Failure("PostgreSQL at \(database.endpoint) opens read-only transactions (default_transaction_read_only is on); use a database and role that allow writes.")
        }
        if !state.mayWrite {
            throw PostgresDatabase.Failure("The role \(database.endpoint.username) may not write the table meta in \(database.endpoint); grant it INSERT, UPDATE and DELETE on Griot's tables.")
        }
    }

    // MARK: Reading

    public func story(id: String) async throws -> Story? {
        try await stories(where: "WHERE id = \(id)").first
    }

    /// Every story, by id in byte order (`COLLATE "C"`, as SQLite sorts).
    public func allStories() async throws -> [Story] {
        try await stories(where: "ORDER BY id COLLATE \"C\"")
    }

    /// The stories a `WHERE` / `ORDER BY` tail selects, their documents opened.
    private func stories(where tail: PostgresQuery) async throws -> [Story] {
        let query = PostgresQuery(unsafeSQL: "SELECT id, privacy, document FROM story " + tail.sql, binds: tail.binds)
        var documents: [(id: String, privacy: String, document: String)] = []
        for try await row in try await database.client.query(query, logger: database.logger).decode((String, String, String).self) {
            documents.append(row)
        }
        var stories: [Story] = []
        stories.reserveCapacity(documents.count)
        for row in documents {
            let document = Self.isSealed(privacy: row.privacy) ? try await keys.open(row.document, .storyDocument, row: row.id) : row.document
            stories.append(try Self.story(document: document))
        }
        return stories
    }

    public func passages(storyID: String) async throws -> [Passage] {
        try await passages(where: "WHERE storyID = \(storyID) ORDER BY ordinal")
    }

    public func passage(id: String) async throws -> Passage? {
        try await passages(where: "WHERE id = \(id)").first
    }

    /// Every passage, by story id in byte order and then in story order.
    public func allPassages() async throws -> [Passage] {
        try await passages(where: "ORDER BY storyID COLLATE \"C\", ordinal")
    }

    public func storyCount() async throws -> Int {
        try await count("SELECT count(*) FROM story")
    }

    public func passageCount() async throws -> Int {
        try await count("SELECT count(*) FROM passage")
    }

    /// The passages a `WHERE` / `ORDER BY` tail selects.
    private func passages(where tail: PostgresQuery) async throws -> [Passage] {
        // The story's privacy says whether the passage's text is sealed.
        let query = PostgresQuery(unsafeSQL: """
            SELECT id, storyID, ordinal, text, speaker, startSeconds, endSeconds, startOffset, endOffset,
                   (SELECT privacy FROM story WHERE story.id = passage.storyID) FROM passage
            """ + " " + tail.sql, binds: tail.binds)
        var stored: [(Passage, privacy: String?)] = []
        let rows = try await database.client.query(query, logger: database.logger)
            .decode((String, String, Int, String, String?, Double?, Double?, Int, Int, String?).self)
        for try await (id, storyID, ordinal, text, speaker, startSeconds, endSeconds, startOffset, endOffset, privacy) in rows {
            stored.append((Passage(id: id, storyID: storyID, ordinal: ordinal, text: text, speaker: speaker,
                                   startSeconds: startSeconds, endSeconds: endSeconds, startOffset: startOffset, endOffset: endOffset), privacy))
        }
        var passages: [Passage] = []
        passages.reserveCapacity(stored.count)
        for (passage, privacy) in stored {
            guard Self.isSealed(privacy: privacy ?? "") else { passages.append(passage); continue }
            passages.append(Passage(id: passage.id, storyID: passage.storyID, ordinal: passage.ordinal,
                                    text: try await keys.open(passage.text, .passageText, row: passage.id),
                                    speaker: try await keys.open(passage.speaker, .passageSpeaker, row: passage.id),
                                    startSeconds: passage.startSeconds, endSeconds: passage.endSeconds,
                                    startOffset: passage.startOffset, endOffset: passage.endOffset))
        }
        return passages
    }

    /// Whether a story of this privacy is stored sealed: every story but a public one (a
    /// privacy this node does not know is treated as private, as access is).
    static func isSealed(privacy: String) -> Bool {
        privacy != Privacy.public.rawValue
    }

    /// A story's row and passages as they are stored: sealed with the story's key unless it is public.
    private func sealed(_ row: StoryRecord, _ passages: [Passage]) async throws -> (StoryRecord, [Passage]) {
        guard cipher.isEnabled, Self.isSealed(privacy: row.privacy) else { return (row, passages) }
        let scope = KeyScope.story(row.id)
        var row = row
        row.title = try await keys.seal(row.title, .storyTitle, row: row.id, scope: scope)
        row.document = try await keys.seal(row.document, .storyDocument, row: row.id, scope: scope)
        var sealed: [Passage] = []
        sealed.reserveCapacity(passages.count)
        for passage in passages {
            sealed.append(Passage(id: passage.id, storyID: passage.storyID, ordinal: passage.ordinal,
                                  text: try await keys.seal(passage.text, .passageText, row: passage.id, scope: scope),
                                  speaker: try await keys.seal(passage.speaker, .passageSpeaker, row: passage.id, scope: scope),
                                  startSeconds: passage.startSeconds, endSeconds: passage.endSeconds,
                                  startOffset: passage.startOffset, endOffset: passage.endOffset))
        }
        return (row, sealed)
    }

    /// A story from its `document` column (the JSON `StoryRecord` holds; `StoryRecord.story()` reads
    /// it the same way, from a whole row).
    private static func story(document: String) throws -> Story {
        try JSONDecoder().decode(Story.self, from: Data(document.utf8))
    }

    private func count(_ query: PostgresQuery) async throws -> Int {
        try await database.client.query(query, logger: database.logger).collect().first?.decode(Int.self) ?? 0
    }
}
