import Foundation
import GriotStore
import PostgresNIO

/// The storyteller's rows in the shared PostgreSQL database (`StorytellerStore`), as
/// `SQLiteChatStore+Storyteller` keeps them in SQLite. Each statement names the parent, so
/// another parent's id finds nothing; an insert under a child or a story checks the parent in
/// the same statement. Texts are sealed with the parent's data key before a statement runs.
extension PostgresChatStore: StorytellerStore {
    // MARK: Children

    public func addChild(_ child: ChildRecord) async throws -> ChildRecord {
        try StorableText.refuseUnstorable([(child.name, "child's name"), (child.avatar ?? "", "child's avatar")])
        let scope = KeyScope.user(child.parentID)
        let name = try await keys.seal(child.name, .childName, row: child.id, scope: scope)
        let avatar = try await keys.seal(child.avatar, .childAvatar, row: child.id, scope: scope)
        try await rows("""
            INSERT INTO child (id, parentid, name, age, avatar, createdat, updatedat)
            VALUES (\(child.id), \(child.parentID), \(name), \(child.age), \(avatar), \(child.created.millisecondRounded), \(child.updated.millisecondRounded))
            """)
        return child
    }

    public func children(parentID: String) async throws -> [ChildRecord] {
        try await opened(rows("SELECT * FROM child WHERE parentid = \(parentID) ORDER BY createdat, id COLLATE \"C\"").map(Self.child), opened)
    }

    public func child(id: String, parentID: String) async throws -> ChildRecord? {
        try await rows("SELECT * FROM child WHERE id = \(id) AND parentid = \(parentID)").first.asyncFlatMap { try await opened(Self.child($0)) }
    }

    public func updateChild(id: String, parentID: String, name: String, age: Int?, avatar: String?, now: Date) async throws -> ChildRecord? {
        try StorableText.refuseUnstorable([(name, "child's name"), (avatar ?? "", "child's avatar")])
        let scope = KeyScope.user(parentID)
        let sealedName = try await keys.seal(name, .childName, row: id, scope: scope)
        let sealedAvatar = try await keys.seal(avatar, .childAvatar, row: id, scope: scope)
        return try await rows("""
            UPDATE child SET name = \(sealedName), age = \(age), avatar = \(sealedAvatar), updatedat = \(now.millisecondRounded)
            WHERE id = \(id) AND parentid = \(parentID) RETURNING *
            """).first.asyncFlatMap { try await opened(Self.child($0)) }
    }

    public func deleteChild(id: String, parentID: String) async throws -> StorytellerRemoval? {
        try await transaction { connection in
            guard try await !Self.rows("SELECT id FROM child WHERE id = \(id) AND parentid = \(parentID) FOR UPDATE", on: connection).isEmpty
            else { return nil }
            return try await Self.removeStorytellerRows(parentID: parentID, childID: id, on: connection)
        }
    }

    // MARK: Drawings

    public func addDrawing(_ drawing: DrawingRecord) async throws -> DrawingRecord? {
        try StorableText.refuseUnstorable([(drawing.filename ?? "", "drawing's file name"), (drawing.caption ?? "", "drawing's caption")])
        let scope = KeyScope.user(drawing.parentID)
        let filename = try await keys.seal(drawing.filename, .drawingFilename, row: drawing.id, scope: scope)
        let caption = try await keys.seal(drawing.caption, .drawingCaption, row: drawing.id, scope: scope)
        let inserted = try await rows("""
            INSERT INTO drawing (id, parentid, childid, contenthash, mediatype, bytecount, width, height, filename, caption, createdat)
            SELECT \(drawing.id), \(drawing.parentID), \(drawing.childID), \(drawing.contentHash), \(drawing.mediaType), \(drawing.byteCount),
                   \(drawing.width), \(drawing.height), \(filename), \(caption), \(drawing.created.millisecondRounded)
            WHERE EXISTS (SELECT 1 FROM child WHERE id = \(drawing.childID) AND parentid = \(drawing.parentID))
            RETURNING id
            """)
        return inserted.isEmpty ? nil : drawing
    }

    public func drawings(childID: String, parentID: String, query: DrawingQuery) async throws -> DrawingPage {
        let size = query.pageSize
        // Where the last page ended, in microseconds since 1970 (as stored, exactly) and id.
        var afterMicros: Int64?
        var afterID: String?
        if let cursor = query.cursor {
            let (created, id) = try DrawingCursor.parse(cursor)
            guard let micros = Int64(created) else {
                throw ChatStoreError(.invalid, "The cursor \(cursor.prefix(60)) is not one a page of drawings gave; list the drawings again without it.")
            }
            (afterMicros, afterID) = (micros, id)
        }
        let found = try await rows("""
            SELECT *, (EXTRACT(EPOCH FROM createdat) * 1000000)::bigint AS cursorat FROM drawing
            WHERE childid = \(childID) AND parentid = \(parentID)
              AND (\(query.from.map(\.millisecondRounded))::timestamptz IS NULL OR createdat >= \(query.from.map(\.millisecondRounded)))
              AND (\(query.until.map(\.millisecondRounded))::timestamptz IS NULL OR createdat < \(query.until.map(\.millisecondRounded)))
              AND (\(afterMicros)::bigint IS NULL OR (EXTRACT(EPOCH FROM createdat) * 1000000)::bigint < \(afterMicros)
                   OR ((EXTRACT(EPOCH FROM createdat) * 1000000)::bigint = \(afterMicros) AND id COLLATE "C" < \(afterID)))
            ORDER BY createdat DESC, id COLLATE "C" DESC LIMIT \(size + 1)
            """)
        let page = try await opened(found.prefix(size).map(Self.drawing), opened)
        var next: String?
        if found.count > size {
            let columns = RowColumns(found[size - 1])
            next = DrawingCursor.make(created: String(try columns["cursorat"] as Int64), id: try columns["id"])
        }
        return DrawingPage(drawings: page, nextCursor: next)
    }

    public func drawing(id: String, parentID: String) async throws -> DrawingRecord? {
        try await rows("SELECT * FROM drawing WHERE id = \(id) AND parentid = \(parentID)").first.asyncFlatMap { try await opened(Self.drawing($0)) }
    }

    public func drawings(ids: [String], parentID: String) async throws -> [DrawingRecord] {
        guard !ids.isEmpty else { return [] }
        let found = try await opened(rows("SELECT * FROM drawing WHERE parentid = \(parentID) AND id = ANY(\(ids))").map(Self.drawing), opened)
        let byID = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.compactMap { byID[$0] }
    }

    public func deleteDrawing(id: String, parentID: String) async throws -> DrawingRemoval? {
        let removed = try await transaction { connection -> (PostgresRow, Bool)? in
            guard let row = try await Self.rows("DELETE FROM drawing WHERE id = \(id) AND parentid = \(parentID) RETURNING *", on: connection).first
            else { return nil }
            let hash: String = try RowColumns(row)["contenthash"]
            let referenced = try await Self.scalar(Bool.self, Self.rows("SELECT EXISTS (SELECT 1 FROM drawing WHERE contenthash = \(hash))",
                                                                        on: connection)) ?? false
            return (row, referenced)
        }
        guard let (row, referenced) = removed else { return nil }
        return DrawingRemoval(drawing: try await opened(Self.drawing(row)), hashStillReferenced: referenced)
    }

    public func drawingCount(parentID: String) async throws -> Int {
        try Self.scalar(Int.self, await rows("SELECT COUNT(*) FROM drawing WHERE parentid = \(parentID)")) ?? 0
    }

    public func drawingCount(childID: String, parentID: String) async throws -> Int {
        try Self.scalar(Int.self, await rows("SELECT COUNT(*) FROM drawing WHERE childid = \(childID) AND parentid = \(parentID)")) ?? 0
    }

    // MARK: Stories and chapters

    public func createStory(_ story: BedtimeStoryRecord) async throws -> BedtimeStoryRecord? {
        try StorableText.refuseUnstorable([(story.theme ?? "", "story's theme")])
        let theme = try await keys.seal(story.theme, .bedtimeStoryTheme, row: story.id, scope: .user(story.parentID))
        let inserted = try await rows("""
            INSERT INTO bedtimestory (id, parentid, childid, theme, createdat, updatedat)
            SELECT \(story.id), \(story.parentID), \(story.childID), \(theme), \(story.created.millisecondRounded), \(story.updated.millisecondRounded)
            WHERE EXISTS (SELECT 1 FROM child WHERE id = \(story.childID) AND parentid = \(story.parentID))
            RETURNING id
            """)
        return inserted.isEmpty ? nil : story
    }

    public func story(id: String, parentID: String) async throws -> BedtimeStoryRecord? {
        try await rows("SELECT * FROM bedtimestory WHERE id = \(id) AND parentid = \(parentID)").first.asyncFlatMap { try await opened(Self.story($0)) }
    }

    public func stories(childID: String, parentID: String) async throws -> [BedtimeStoryRecord] {
        try await opened(rows("""
            SELECT * FROM bedtimestory WHERE childid = \(childID) AND parentid = \(parentID) ORDER BY updatedat DESC, id COLLATE "C" DESC
            """).map(Self.story), opened)
    }

    /// The story's row is locked first, so two appends take turns and never the same number.
    public func appendChapter(_ draft: ChapterDraft, parentID: String) async throws -> ChapterRecord? {
        try StorableText.refuseUnstorable([(draft.text, "chapter's text")])
        let placements = String(decoding: try JSONEncoder().encode(draft.placements), as: UTF8.self)
        let drawingIDs = String(decoding: try JSONEncoder().encode(draft.drawingIDs), as: UTF8.self)
        let text = try await keys.seal(draft.text, .chapterText, row: draft.id, scope: .user(parentID))
        return try await transaction { connection in
            guard try await !Self.rows("SELECT id FROM bedtimestory WHERE id = \(draft.storyID) AND parentid = \(parentID) FOR NO KEY UPDATE",
                                       on: connection).isEmpty
            else { return nil }
            let last = try await Self.scalar(Int.self, Self.rows("SELECT MAX(number) FROM bedtimechapter WHERE storyid = \(draft.storyID)",
                                                                 on: connection)) ?? 0
            let chapter = ChapterRecord(draft, number: last + 1)
            try await Self.rows("""
                INSERT INTO bedtimechapter (id, storyid, number, text, placements, drawingids, sample, model, promptversion, turnid, createdat)
                VALUES (\(chapter.id), \(chapter.storyID), \(chapter.number), \(text), \(placements), \(drawingIDs), \(chapter.sample ? 1 : 0),
                        \(chapter.model), \(chapter.promptVersion), \(chapter.turnID), \(chapter.created.millisecondRounded))
                """, on: connection)
            try await Self.rows("UPDATE bedtimestory SET updatedat = \(chapter.created.millisecondRounded) WHERE id = \(chapter.storyID)",
                                on: connection)
            return chapter
        }
    }

    public func chapters(storyID: String, parentID: String) async throws -> [ChapterRecord] {
        try await opened(rows("""
            SELECT bedtimechapter.* FROM bedtimechapter JOIN bedtimestory ON bedtimestory.id = bedtimechapter.storyid
            WHERE bedtimechapter.storyid = \(storyID) AND bedtimestory.parentid = \(parentID) ORDER BY bedtimechapter.number
            """).map(Self.chapter), opened)
    }

    // MARK: Share links

    public func createShare(_ share: StoryShareRecord) async throws -> StoryShareRecord? {
        let inserted = try await rows("""
            INSERT INTO bedtimestoryshare (token, storyid, parentid, createdat, revokedat)
            SELECT \(share.token), \(share.storyID), \(share.parentID), \(share.created.millisecondRounded), \(share.revoked.map(\.millisecondRounded))
            WHERE EXISTS (SELECT 1 FROM bedtimestory WHERE id = \(share.storyID) AND parentid = \(share.parentID))
            RETURNING token
            """)
        return inserted.isEmpty ? nil : share
    }

    public func share(token: String) async throws -> StoryShareRecord? {
        try await rows("SELECT * FROM bedtimestoryshare WHERE token = \(token) AND revokedat IS NULL").first.map(Self.share)
    }

    public func revokeShare(token: String, parentID: String, now: Date) async throws -> StoryShareRecord? {
        try await rows("""
            UPDATE bedtimestoryshare SET revokedat = COALESCE(revokedat, \(now.millisecondRounded))
            WHERE token = \(token) AND parentid = \(parentID) RETURNING *
            """).first.map(Self.share)
    }

    public func shares(storyID: String, parentID: String) async throws -> [StoryShareRecord] {
        try await rows("""
            SELECT * FROM bedtimestoryshare WHERE storyid = \(storyID) AND parentid = \(parentID) ORDER BY createdat DESC, token COLLATE "C"
            """).map(Self.share)
    }

    // MARK: Blobs

    public func drawingHashes(parentID: String) async throws -> Set<String> {
        Set(try await rows("SELECT DISTINCT contenthash FROM drawing WHERE parentid = \(parentID)").map { try $0.decode(String.self) })
    }

    public func unreferencedHashes(_ hashes: Set<String>) async throws -> Set<String> {
        guard !hashes.isEmpty else { return [] }
        let named = try await rows("SELECT DISTINCT contenthash FROM drawing WHERE contenthash = ANY(\(hashes.sorted()))").map { try $0.decode(String.self) }
        return hashes.subtracting(named)
    }
}

// MARK: Rows

extension PostgresChatStore {
    /// Deletes one child of a parent (`childID`), or every child of the parent (nil: an
    /// erasure), with everything under them, in the caller's transaction, counting what went
    /// (see `SQLiteChatStore.removeStorytellerRows`).
    static func removeStorytellerRows(parentID: String, childID: String? = nil, on connection: PostgresConnection) async throws -> StorytellerRemoval {
        var removal = StorytellerRemoval()
        let hashes = try await rows("""
            SELECT DISTINCT contenthash FROM drawing WHERE parentid = \(parentID) AND (\(childID)::text IS NULL OR childid = \(childID))
            """, on: connection).map { try $0.decode(String.self) }
        removal.shares = try await rows("""
            DELETE FROM bedtimestoryshare WHERE storyid IN (
                SELECT id FROM bedtimestory WHERE parentid = \(parentID) AND (\(childID)::text IS NULL OR childid = \(childID)))
            RETURNING token
            """, on: connection).count
        removal.chapters = try await rows("""
            DELETE FROM bedtimechapter WHERE storyid IN (
                SELECT id FROM bedtimestory WHERE parentid = \(parentID) AND (\(childID)::text IS NULL OR childid = \(childID)))
            RETURNING id
            """, on: connection).count
        removal.stories = try await rows("""
            DELETE FROM bedtimestory WHERE parentid = \(parentID) AND (\(childID)::text IS NULL OR childid = \(childID)) RETURNING id
            """, on: connection).count
        removal.drawings = try await rows("""
            DELETE FROM drawing WHERE parentid = \(parentID) AND (\(childID)::text IS NULL OR childid = \(childID)) RETURNING id
            """, on: connection).count
        removal.children = try await rows("""
            DELETE FROM child WHERE parentid = \(parentID) AND (\(childID)::text IS NULL OR id = \(childID)) RETURNING id
            """, on: connection).count
        if !hashes.isEmpty {
            let named = Set(try await rows("SELECT DISTINCT contenthash FROM drawing WHERE contenthash = ANY(\(hashes))", on: connection)
                .map { try $0.decode(String.self) })
            removal.unreferencedHashes = hashes.filter { !named.contains($0) }.sorted()
        }
        return removal
    }

    /// A `child` row as stored (sealed).
    static func child(_ row: PostgresRow) throws -> ChildRecord {
        let columns = RowColumns(row)
        return try ChildRecord(id: columns["id"], parentID: columns["parentid"], name: columns["name"], age: columns["age"], avatar: columns["avatar"],
                               created: columns.date("createdat"), updated: columns.date("updatedat"))
    }

    static func drawing(_ row: PostgresRow) throws -> DrawingRecord {
        let columns = RowColumns(row)
        return try DrawingRecord(id: columns["id"], parentID: columns["parentid"], childID: columns["childid"], contentHash: columns["contenthash"],
                                 mediaType: columns["mediatype"], byteCount: columns["bytecount"], width: columns["width"], height: columns["height"],
                                 filename: columns["filename"], caption: columns["caption"], created: columns.date("createdat"))
    }

    static func story(_ row: PostgresRow) throws -> BedtimeStoryRecord {
        let columns = RowColumns(row)
        return try BedtimeStoryRecord(id: columns["id"], parentID: columns["parentid"], childID: columns["childid"], theme: columns["theme"],
                                      created: columns.date("createdat"), updated: columns.date("updatedat"))
    }

    static func chapter(_ row: PostgresRow) throws -> ChapterRecord {
        let columns = RowColumns(row)
        let decoder = JSONDecoder()
        let placements: String = try columns["placements"]
        let drawingIDs: String = try columns["drawingids"]
        let sample: Int = try columns["sample"]
        return try ChapterRecord(id: columns["id"], storyID: columns["storyid"], number: columns["number"], text: columns["text"],
                                 placements: decoder.decode([StoryPlacement].self, from: Data(placements.utf8)),
                                 drawingIDs: decoder.decode([String].self, from: Data(drawingIDs.utf8)), sample: sample != 0,
                                 model: columns["model"], promptVersion: columns["promptversion"], turnID: columns["turnid"],
                                 created: columns.date("createdat"))
    }

    static func share(_ row: PostgresRow) throws -> StoryShareRecord {
        let columns = RowColumns(row)
        return try StoryShareRecord(token: columns["token"], storyID: columns["storyid"], parentID: columns["parentid"],
                                    created: columns.date("createdat"), revoked: columns.date("revokedat"))
    }

    func opened(_ child: ChildRecord) async throws -> ChildRecord {
        var child = child
        child.name = try await keys.open(child.name, .childName, row: child.id)
        child.avatar = try await keys.open(child.avatar, .childAvatar, row: child.id)
        return child
    }

    func opened(_ drawing: DrawingRecord) async throws -> DrawingRecord {
        var drawing = drawing
        drawing.filename = try await keys.open(drawing.filename, .drawingFilename, row: drawing.id)
        drawing.caption = try await keys.open(drawing.caption, .drawingCaption, row: drawing.id)
        return drawing
    }

    func opened(_ story: BedtimeStoryRecord) async throws -> BedtimeStoryRecord {
        var story = story
        story.theme = try await keys.open(story.theme, .bedtimeStoryTheme, row: story.id)
        return story
    }

    func opened(_ chapter: ChapterRecord) async throws -> ChapterRecord {
        var chapter = chapter
        chapter.text = try await keys.open(chapter.text, .chapterText, row: chapter.id)
        return chapter
    }
}
