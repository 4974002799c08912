import Foundation
import GRDB

/// The storyteller's rows in the conversations' SQLite file (`StorytellerStore`). Each query
/// names the parent, so another parent's id finds nothing; texts are sealed with the parent's
/// data key on the way in and opened on the way out.
extension SQLiteChatStore: StorytellerStore {
    // MARK: Children

    public func addChild(_ child: ChildRecord) async throws -> ChildRecord {
        try StorableText.refuseUnstorable([(child.name, "child's name"), (child.avatar ?? "", "child's avatar")])
        let cipher = self.cipher
        try await writer.commit { db in
            let scope = KeyScope.user(child.parentID)
            try db.execute(sql: """
                INSERT INTO child (id, parentID, name, age, avatar, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [child.id, child.parentID, try cipher.seal(child.name, .childName, row: child.id, scope: scope, db: db), child.age,
                                 try cipher.seal(child.avatar, .childAvatar, row: child.id, scope: scope, db: db), child.created, child.updated])
        }
        return child
    }

    public func children(parentID: String) async throws -> [ChildRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM child WHERE parentID = ? ORDER BY createdAt, id", arguments: [parentID])
                .map { try Self.child($0, cipher, db) }
        }
    }

    public func child(id: String, parentID: String) async throws -> ChildRecord? {
        try await writer.read { db in try Self.child(id: id, parentID: parentID, cipher, db) }
    }

    public func updateChild(id: String, parentID: String, name: String, age: Int?, avatar: String?, now: Date) async throws -> ChildRecord? {
        try StorableText.refuseUnstorable([(name, "child's name"), (avatar ?? "", "child's avatar")])
        let cipher = self.cipher
        return try await writer.commit { db in
            let scope = KeyScope.user(parentID)
            try db.execute(sql: "UPDATE child SET name = ?, age = ?, avatar = ?, updatedAt = ? WHERE id = ? AND parentID = ?",
                           arguments: [try cipher.seal(name, .childName, row: id, scope: scope, db: db), age,
                                       try cipher.seal(avatar, .childAvatar, row: id, scope: scope, db: db), now, id, parentID])
            guard db.changesCount > 0 else { return nil }
            return try Self.child(id: id, parentID: parentID, cipher, db)
        }
    }

    public func deleteChild(id: String, parentID: String) async throws -> StorytellerRemoval? {
        try await writer.commit { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM child WHERE id = ? AND parentID = ?)", arguments: [id, parentID]) == true
            else { return nil }
            return try Self.removeStorytellerRows(parentID: parentID, childID: id, db)
        }
    }

    // MARK: Drawings

    public func addDrawing(_ drawing: DrawingRecord) async throws -> DrawingRecord? {
        try StorableText.refuseUnstorable([(drawing.filename ?? "", "drawing's file name"), (drawing.caption ?? "", "drawing's caption")])
        let cipher = self.cipher
        return try await writer.commit { db in
            guard try Self.owns(child: drawing.childID, parentID: drawing.parentID, db) else { return nil }
            let scope = KeyScope.user(drawing.parentID)
            try db.execute(sql: """
                INSERT INTO drawing (id, parentID, childID, contentHash, mediaType, byteCount, width, height, filename, caption, createdAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [drawing.id, drawing.parentID, drawing.childID, drawing.contentHash, drawing.mediaType, drawing.byteCount,
                                 drawing.width, drawing.height, try cipher.seal(drawing.filename, .drawingFilename, row: drawing.id, scope: scope, db: db),
                                 try cipher.seal(drawing.caption, .drawingCaption, row: drawing.id, scope: scope, db: db), drawing.created])
            return drawing
        }
    }

    public func drawings(childID: String, parentID: String, query: DrawingQuery) async throws -> DrawingPage {
        let after = try query.cursor.map(DrawingCursor.parse)
        let size = query.pageSize
        return try await writer.read { db in
            var sql = "SELECT *, createdAt AS storedCreatedAt FROM drawing WHERE childID = ? AND parentID = ?"
            var arguments: StatementArguments = [childID, parentID]
            if let from = query.from {
                sql += " AND createdAt >= ?"
                arguments += [from]
            }
            if let until = query.until {
                sql += " AND createdAt < ?"
                arguments += [until]
            }
            // The stored text of `createdAt` orders as the dates do, and compares exactly.
            if let after {
                sql += " AND (createdAt < ? OR (createdAt = ? AND id < ?))"
                arguments += [after.created, after.created, after.id]
            }
            sql += " ORDER BY createdAt DESC, id DESC LIMIT ?"
            arguments += [size + 1]
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            let page = try rows.prefix(size).map { try Self.drawing($0, cipher, db) }
            let next = rows.count > size ? rows[size - 1] : nil
            return DrawingPage(drawings: page, nextCursor: next.map { DrawingCursor.make(created: $0["storedCreatedAt"], id: $0["id"]) })
        }
    }

    public func drawing(id: String, parentID: String) async throws -> DrawingRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM drawing WHERE id = ? AND parentID = ?", arguments: [id, parentID]).map { try Self.drawing($0, cipher, db) }
        }
    }

    public func drawings(ids: [String], parentID: String) async throws -> [DrawingRecord] {
        guard !ids.isEmpty else { return [] }
        let list = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
        return try await writer.read { db in
            let found = try Row.fetchAll(db, sql: "SELECT * FROM drawing WHERE parentID = ? AND id IN (SELECT value FROM json_each(?))",
                                         arguments: [parentID, list]).map { try Self.drawing($0, cipher, db) }
            let byID = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            return ids.compactMap { byID[$0] }
        }
    }

    public func deleteDrawing(id: String, parentID: String) async throws -> DrawingRemoval? {
        let cipher = self.cipher
        return try await writer.commit { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM drawing WHERE id = ? AND parentID = ?", arguments: [id, parentID]) else { return nil }
            let drawing = try Self.drawing(row, cipher, db)
            try db.execute(sql: "DELETE FROM drawing WHERE id = ?", arguments: [id])
            let referenced = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM drawing WHERE contentHash = ?)",
                                               arguments: [drawing.contentHash]) ?? false
            return DrawingRemoval(drawing: drawing, hashStillReferenced: referenced)
        }
    }

    public func drawingCount(parentID: String) async throws -> Int {
        try await writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM drawing WHERE parentID = ?", arguments: [parentID]) ?? 0 }
    }

    public func drawingCount(childID: String, parentID: String) async throws -> Int {
        try await writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM drawing WHERE childID = ? AND parentID = ?", arguments: [childID, parentID]) ?? 0
        }
    }

    // MARK: Stories and chapters

    public func createStory(_ story: BedtimeStoryRecord) async throws -> BedtimeStoryRecord? {
        try StorableText.refuseUnstorable([(story.theme ?? "", "story's theme")])
        let cipher = self.cipher
        return try await writer.commit { db in
            guard try Self.owns(child: story.childID, parentID: story.parentID, db) else { return nil }
            try db.execute(sql: "INSERT INTO bedtimeStory (id, parentID, childID, theme, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [story.id, story.parentID, story.childID,
                                       try cipher.seal(story.theme, .bedtimeStoryTheme, row: story.id, scope: .user(story.parentID), db: db),
                                       story.created, story.updated])
            return story
        }
    }

    public func story(id: String, parentID: String) async throws -> BedtimeStoryRecord? {
        try await writer.read { db in try Self.story(id: id, parentID: parentID, cipher, db) }
    }

    public func stories(childID: String, parentID: String) async throws -> [BedtimeStoryRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM bedtimeStory WHERE childID = ? AND parentID = ? ORDER BY updatedAt DESC, id DESC",
                             arguments: [childID, parentID]).map { try Self.story($0, cipher, db) }
        }
    }

    public func appendChapter(_ draft: ChapterDraft, parentID: String) async throws -> ChapterRecord? {
        try StorableText.refuseUnstorable([(draft.text, "chapter's text")])
        let placements = String(decoding: try JSONEncoder().encode(draft.placements), as: UTF8.self)
        let drawingIDs = String(decoding: try JSONEncoder().encode(draft.drawingIDs), as: UTF8.self)
        let cipher = self.cipher
        // One writer at a time: the next number read here is still the next at the insert.
        return try await writer.commit { db in
            guard try Self.story(id: draft.storyID, parentID: parentID, cipher, db) != nil else { return nil }
            let number = (try Int.fetchOne(db, sql: "SELECT MAX(number) FROM bedtimeChapter WHERE storyID = ?", arguments: [draft.storyID]) ?? 0) + 1
            let chapter = ChapterRecord(draft, number: number)
            try db.execute(sql: """
                INSERT INTO bedtimeChapter (id, storyID, number, text, placements, drawingIDs, sample, model, promptVersion, turnID, createdAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [chapter.id, chapter.storyID, number,
                                 try cipher.seal(chapter.text, .chapterText, row: chapter.id, scope: .user(parentID), db: db),
                                 placements, drawingIDs, chapter.sample ? 1 : 0, chapter.model, chapter.promptVersion, chapter.turnID, chapter.created])
            try db.execute(sql: "UPDATE bedtimeStory SET updatedAt = ? WHERE id = ?", arguments: [chapter.created, chapter.storyID])
            return chapter
        }
    }

    public func chapters(storyID: String, parentID: String) async throws -> [ChapterRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT bedtimeChapter.* FROM bedtimeChapter JOIN bedtimeStory ON bedtimeStory.id = bedtimeChapter.storyID
                WHERE bedtimeChapter.storyID = ? AND bedtimeStory.parentID = ? ORDER BY bedtimeChapter.number
                """, arguments: [storyID, parentID]).map { try Self.chapter($0, cipher, db) }
        }
    }

    // MARK: Share links

    public func createShare(_ share: StoryShareRecord) async throws -> StoryShareRecord? {
        let cipher = self.cipher
        return try await writer.commit { db in
            guard try Self.story(id: share.storyID, parentID: share.parentID, cipher, db) != nil else { return nil }
            try db.execute(sql: "INSERT INTO bedtimeStoryShare (token, storyID, parentID, createdAt, revokedAt) VALUES (?, ?, ?, ?, ?)",
                           arguments: [share.token, share.storyID, share.parentID, share.created, share.revoked])
            return share
        }
    }

    public func share(token: String) async throws -> StoryShareRecord? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM bedtimeStoryShare WHERE token = ? AND revokedAt IS NULL", arguments: [token]).map(Self.share)
        }
    }

    public func revokeShare(token: String, parentID: String, now: Date) async throws -> StoryShareRecord? {
        try await writer.commit { db in
            try db.execute(sql: "UPDATE bedtimeStoryShare SET revokedAt = ? WHERE token = ? AND parentID = ? AND revokedAt IS NULL",
                           arguments: [now, token, parentID])
            return try Row.fetchOne(db, sql: "SELECT * FROM bedtimeStoryShare WHERE token = ? AND parentID = ?", arguments: [token, parentID])
                .map(Self.share)
        }
    }

    public func shares(storyID: String, parentID: String) async throws -> [StoryShareRecord] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM bedtimeStoryShare WHERE storyID = ? AND parentID = ? ORDER BY createdAt DESC, token",
                             arguments: [storyID, parentID]).map(Self.share)
        }
    }

    // MARK: Blobs

    public func drawingHashes(parentID: String) async throws -> Set<String> {
        try await writer.read { db in
            Set(try String.fetchAll(db, sql: "SELECT DISTINCT contentHash FROM drawing WHERE parentID = ?", arguments: [parentID]))
        }
    }

    public func unreferencedHashes(_ hashes: Set<String>) async throws -> Set<String> {
        guard !hashes.isEmpty else { return [] }
        let list = String(decoding: try JSONEncoder().encode(hashes.sorted()), as: UTF8.self)
        return try await writer.read { db in
            let named = Set(try String.fetchAll(db, sql: "SELECT DISTINCT contentHash FROM drawing WHERE contentHash IN (SELECT value FROM json_each(?))",
                                                arguments: [list]))
            return hashes.subtracting(named)
        }
    }
}

// MARK: Rows

extension SQLiteChatStore {
    /// Deletes one child of a parent (`childID`), or every child of the parent (nil: an
    /// erasure), with everything under them, in the caller's transaction, counting what went.
    /// Row by row rather than by the cascades, so that rows under the parent go even where a
    /// child row is missing. The hashes of the drawings removed that no drawing names
    /// afterwards are the blobs to remove.
    static func removeStorytellerRows(parentID: String, childID: String? = nil, _ db: Database) throws -> StorytellerRemoval {
        var removal = StorytellerRemoval()
        // `under` selects the stories and drawings in question, `children` the children.
        let (under, children, arguments): (String, String, StatementArguments) = childID.map {
            ("childID = ? AND parentID = ?", "id = ? AND parentID = ?", [$0, parentID])
        } ?? ("parentID = ?", "parentID = ?", [parentID])
        let hashes = try String.fetchAll(db, sql: "SELECT DISTINCT contentHash FROM drawing WHERE \(under)", arguments: arguments)
        let stories = "storyID IN (SELECT id FROM bedtimeStory WHERE \(under))"
        try db.execute(sql: "DELETE FROM bedtimeStoryShare WHERE \(stories)", arguments: arguments)
        removal.shares = db.changesCount
        try db.execute(sql: "DELETE FROM bedtimeChapter WHERE \(stories)", arguments: arguments)
        removal.chapters = db.changesCount
        try db.execute(sql: "DELETE FROM bedtimeStory WHERE \(under)", arguments: arguments)
        removal.stories = db.changesCount
        try db.execute(sql: "DELETE FROM drawing WHERE \(under)", arguments: arguments)
        removal.drawings = db.changesCount
        try db.execute(sql: "DELETE FROM child WHERE \(children)", arguments: arguments)
        removal.children = db.changesCount
        if !hashes.isEmpty {
            let list = String(decoding: try JSONEncoder().encode(hashes), as: UTF8.self)
            let named = Set(try String.fetchAll(db, sql: "SELECT DISTINCT contentHash FROM drawing WHERE contentHash IN (SELECT value FROM json_each(?))",
                                                arguments: [list]))
            removal.unreferencedHashes = hashes.filter { !named.contains($0) }.sorted()
        }
        return removal
    }

    static func owns(child id: String, parentID: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM child WHERE id = ? AND parentID = ?)", arguments: [id, parentID]) ?? false
    }

    static func child(id: String, parentID: String, _ cipher: FieldCipher, _ db: Database) throws -> ChildRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM child WHERE id = ? AND parentID = ?", arguments: [id, parentID]).map { try child($0, cipher, db) }
    }

    static func child(_ row: Row, _ cipher: FieldCipher, _ db: Database) throws -> ChildRecord {
        let id: String = row["id"]
        return ChildRecord(id: id, parentID: row["parentID"], name: try cipher.open(row["name"] as String, .childName, row: id, db: db),
                           age: row["age"], avatar: try cipher.open(row["avatar"] as String?, .childAvatar, row: id, db: db),
                           created: row["createdAt"], updated: row["updatedAt"])
    }

    static func drawing(_ row: Row, _ cipher: FieldCipher, _ db: Database) throws -> DrawingRecord {
        let id: String = row["id"]
        return DrawingRecord(id: id, parentID: row["parentID"], childID: row["childID"], contentHash: row["contentHash"], mediaType: row["mediaType"],
                             byteCount: row["byteCount"], width: row["width"], height: row["height"],
                             filename: try cipher.open(row["filename"] as String?, .drawingFilename, row: id, db: db),
                             caption: try cipher.open(row["caption"] as String?, .drawingCaption, row: id, db: db), created: row["createdAt"])
    }

    static func story(id: String, parentID: String, _ cipher: FieldCipher, _ db: Database) throws -> BedtimeStoryRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM bedtimeStory WHERE id = ? AND parentID = ?", arguments: [id, parentID]).map { try story($0, cipher, db) }
    }

    static func story(_ row: Row, _ cipher: FieldCipher, _ db: Database) throws -> BedtimeStoryRecord {
        let id: String = row["id"]
        return BedtimeStoryRecord(id: id, parentID: row["parentID"], childID: row["childID"],
                                  theme: try cipher.open(row["theme"] as String?, .bedtimeStoryTheme, row: id, db: db),
                                  created: row["createdAt"], updated: row["updatedAt"])
    }

    static func chapter(_ row: Row, _ cipher: FieldCipher, _ db: Database) throws -> ChapterRecord {
        let id: String = row["id"]
        let decoder = JSONDecoder()
        return ChapterRecord(id: id, storyID: row["storyID"], number: row["number"],
                             text: try cipher.open(row["text"] as String, .chapterText, row: id, db: db),
                             placements: try decoder.decode([StoryPlacement].self, from: Data((row["placements"] as String).utf8)),
                             drawingIDs: try decoder.decode([String].self, from: Data((row["drawingIDs"] as String).utf8)),
                             sample: (row["sample"] as Int) != 0, model: row["model"], promptVersion: row["promptVersion"], turnID: row["turnID"],
                             created: row["createdAt"])
    }

    static func share(_ row: Row) -> StoryShareRecord {
        StoryShareRecord(token: row["token"], storyID: row["storyID"], parentID: row["parentID"], created: row["createdAt"], revoked: row["revokedAt"])
    }
}
