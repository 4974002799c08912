import Foundation
import GriotPostgres
import GriotStore
import GriotTestSupport
import Testing

/// The storyteller's data (issue 39) on both backends: children, drawings, bedtime stories,
/// chapters and share links read back as written in any script; every operation is the
/// parent's alone (another parent's id reads as a missing one); a child's delete takes
/// everything under it and names the blobs no drawing uses any more; chapters are numbered
/// once each under concurrent appends; a revoked link reads as none; and a user's erasure
/// removes all of it.
@Suite("Storyteller store: children, drawings, stories, chapters and links on both backends")
struct StorytellerConformanceTests {
    static let t0 = ChatFixtures.t0
    static let parent = "u-ania"
    static let stranger = "u-other"

    static func drawing(_ child: ChildRecord, hash: String, at seconds: Double = 0, caption: String? = nil, filename: String? = nil) -> DrawingRecord {
        DrawingRecord(parentID: child.parentID, childID: child.id, contentHash: hash, mediaType: "image/png", byteCount: 2_048, width: 640,
                      height: 480, filename: filename, caption: caption, created: t0.addingTimeInterval(seconds))
    }

    static func draft(_ story: BedtimeStoryRecord, _ text: String, drawings: [DrawingRecord], at seconds: Double = 0) -> ChapterDraft {
        ChapterDraft(storyID: story.id, text: text,
                     placements: drawings.enumerated().map { StoryPlacement(drawingID: $0.element.id, afterParagraph: $0.offset + 1) },
                     drawingIDs: drawings.map(\.id), sample: false, model: "grok-vision", promptVersion: 1, turnID: "turn-\(UUID().uuidString)",
                     created: t0.addingTimeInterval(seconds))
    }

    @Test("A child, its drawings, a story in two chapters and a link read back as written, in any script", arguments: StoreBackend.allCases)
    func roundTrip(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let store = try storage.storyteller
            let zofia = try await store.addChild(ChildRecord(parentID: Self.parent, name: "Zofia Łukasiewicz", age: 6, avatar: "🦊", created: Self.t0))
            let xiuying = try await store.addChild(ChildRecord(parentID: Self.parent, name: "李秀英", created: Self.t0.addingTimeInterval(1)))
            #expect(try await store.children(parentID: Self.parent) == [zofia, xiuying])
            #expect(try await store.child(id: zofia.id, parentID: Self.parent) == zofia)

            let later = Self.t0.addingTimeInterval(60)
            let renamed = try #require(try await store.updateChild(id: xiuying.id, parentID: Self.parent, name: "秀英 Li", age: 5, avatar: "🐼", now: later))
            #expect(renamed.name == "秀英 Li" && renamed.age == 5 && renamed.avatar == "🐼" && renamed.updated == later && renamed.created == xiuying.created)
            #expect(try await store.child(id: xiuying.id, parentID: Self.parent) == renamed)
            let cleared = try #require(try await store.updateChild(id: xiuying.id, parentID: Self.parent, name: "秀英", age: nil, avatar: nil, now: later))
            #expect(cleared.age == nil && cleared.avatar == nil)

            let fox = try #require(try await store.addDrawing(Self.drawing(zofia, hash: "h-fox", caption: "Lis w lesie, który śpiewa", filename: "lis.png")))
            let moon = try #require(try await store.addDrawing(Self.drawing(zofia, hash: "h-moon", at: 10, caption: "月亮上的兔子")))
            #expect(try await store.drawing(id: fox.id, parentID: Self.parent) == fox)
            #expect(try await store.drawings(ids: [moon.id, "dr_missing", fox.id], parentID: Self.parent) == [moon, fox])
            #expect(try await store.drawingCount(parentID: Self.parent) == 2)
            #expect(try await store.drawingCount(childID: zofia.id, parentID: Self.parent) == 2)
            #expect(try await store.drawingCount(childID: xiuying.id, parentID: Self.parent) == 0)

            let story = try #require(try await store.createStory(BedtimeStoryRecord(parentID: Self.parent, childID: zofia.id, theme: "odwaga i przyjaźń",
                                                                                     created: Self.t0)))
            #expect(try await store.story(id: story.id, parentID: Self.parent) == story)
            let first = try #require(try await store.appendChapter(Self.draft(story, "Zofia Łukasiewicz i lis.\n\nKsiężyc świecił.", drawings: [fox], at: 100),
                                                                    parentID: Self.parent))
            let second = try #require(try await store.appendChapter(Self.draft(story, "Then 月亮上的兔子 waved. 🌙", drawings: [moon, fox], at: 200),
                                                                     parentID: Self.parent))
            #expect(first.number == 1 && second.number == 2)
            #expect(try await store.chapters(storyID: story.id, parentID: Self.parent) == [first, second])
            #expect(second.placements == [StoryPlacement(drawingID: moon.id, afterParagraph: 1), StoryPlacement(drawingID: fox.id, afterParagraph: 2)])
            // Adding a chapter touches the story: it lists as most recently continued.
            let other = try #require(try await store.createStory(BedtimeStoryRecord(parentID: Self.parent, childID: zofia.id, created: Self.t0.addingTimeInterval(150))))
            #expect(try await store.story(id: story.id, parentID: Self.parent)?.updated == Self.t0.addingTimeInterval(200))
            #expect(try await store.stories(childID: zofia.id, parentID: Self.parent).map(\.id) == [story.id, other.id])
            #expect(try await store.stories(childID: xiuying.id, parentID: Self.parent).isEmpty)

            let link = try #require(try await store.createShare(StoryShareRecord(storyID: story.id, parentID: Self.parent, created: Self.t0)))
            #expect(link.token.count == 43 && !link.token.contains { "+/=".contains($0) })
            #expect(try await store.share(token: link.token) == link)
            #expect(try await store.shares(storyID: story.id, parentID: Self.parent) == [link])

            // A placement's JSON is the model's reply format.
            let json = String(decoding: try JSONEncoder().encode(StoryPlacement(drawingID: "dr_1", afterParagraph: 2)), as: UTF8.self)
            #expect(json.contains("\"drawing_id\":\"dr_1\"") && json.contains("\"after_paragraph\":2"))
        }
    }

    @Test("A child's drawings list newest first, a page at a time by cursor, within a date range", arguments: StoreBackend.allCases)
    func drawingPages(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let store = try storage.storyteller
            let child = try await store.addChild(ChildRecord(parentID: Self.parent, name: "Zofia", created: Self.t0))
            var added: [DrawingRecord] = []
            // Seven drawings, two pairs made in the same millisecond: the id breaks the tie.
            for seconds in [0.0, 1, 2, 2, 3, 4, 4] {
                added.append(try #require(try await store.addDrawing(Self.drawing(child, hash: "h-\(added.count)", at: seconds))))
            }
            let newestFirst = added.sorted { ($0.created, $0.id) > ($1.created, $1.id) }
            var seen: [DrawingRecord] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await store.drawings(childID: child.id, parentID: Self.parent, query: DrawingQuery(limit: 3, cursor: cursor))
                #expect(page.drawings.count <= 3)
                seen += page.drawings
                cursor = page.nextCursor
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 3)
            #expect(seen == newestFirst)

            let range = try await store.drawings(childID: child.id, parentID: Self.parent,
                                                 query: DrawingQuery(from: Self.t0.addingTimeInterval(1), until: Self.t0.addingTimeInterval(4)))
            #expect(range.drawings.map(\.created) == [3, 2, 2, 1].map { Self.t0.addingTimeInterval($0) } && range.nextCursor == nil)

            let refused = await #expect(throws: ChatStoreError.self) {
                _ = try await store.drawings(childID: child.id, parentID: Self.parent, query: DrawingQuery(cursor: "not a cursor!"))
            }
            #expect(refused?.kind == .invalid && refused?.description.contains("without it") == true)
        }
    }

    @Test("Another parent gets nil, false, 0 or nothing for every child, drawing, story, chapter and link they do not own",
          arguments: StoreBackend.allCases)
    func anotherParentSeesNothing(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let store = try storage.storyteller
            let child = try await store.addChild(ChildRecord(parentID: Self.parent, name: "Zofia Łukasiewicz", created: Self.t0))
            let drawing = try #require(try await store.addDrawing(Self.drawing(child, hash: "h-1", caption: "fox")))
            let story = try #require(try await store.createStory(BedtimeStoryRecord(parentID: Self.parent, childID: child.id, created: Self.t0)))
            let chapter = try #require(try await store.appendChapter(Self.draft(story, "Once upon a time.", drawings: [drawing]), parentID: Self.parent))
            let link = try #require(try await store.createShare(StoryShareRecord(storyID: story.id, parentID: Self.parent, created: Self.t0)))

            let them = Self.stranger
            #expect(try await store.children(parentID: them).isEmpty)
            #expect(try await store.child(id: child.id, parentID: them) == nil)
            #expect(try await store.updateChild(id: child.id, parentID: them, name: "Mine now", age: 3, avatar: nil, now: Self.t0) == nil)
            #expect(try await store.deleteChild(id: child.id, parentID: them) == nil)
            #expect(try await store.addDrawing(DrawingRecord(parentID: them, childID: child.id, contentHash: "h-x", mediaType: "image/png",
                                                             byteCount: 1, width: 1, height: 1)) == nil)
            #expect(try await store.drawings(childID: child.id, parentID: them).drawings.isEmpty)
            #expect(try await store.drawing(id: drawing.id, parentID: them) == nil)
            #expect(try await store.drawings(ids: [drawing.id], parentID: them).isEmpty)
            #expect(try await store.deleteDrawing(id: drawing.id, parentID: them) == nil)
            #expect(try await store.drawingCount(parentID: them) == 0)
            #expect(try await store.drawingCount(childID: child.id, parentID: them) == 0)
            #expect(try await store.createStory(BedtimeStoryRecord(parentID: them, childID: child.id)) == nil)
            #expect(try await store.story(id: story.id, parentID: them) == nil)
            #expect(try await store.stories(childID: child.id, parentID: them).isEmpty)
            #expect(try await store.appendChapter(Self.draft(story, "Their chapter.", drawings: []), parentID: them) == nil)
            #expect(try await store.chapters(storyID: story.id, parentID: them).isEmpty)
            #expect(try await store.createShare(StoryShareRecord(storyID: story.id, parentID: them)) == nil)
            #expect(try await store.revokeShare(token: link.token, parentID: them, now: Self.t0) == nil)
            #expect(try await store.shares(storyID: story.id, parentID: them).isEmpty)
            #expect(try await store.drawingHashes(parentID: them).isEmpty)

            // Nothing of the parent's changed.
            #expect(try await store.child(id: child.id, parentID: Self.parent) == child)
            #expect(try await store.drawing(id: drawing.id, parentID: Self.parent) == drawing)
            #expect(try await store.chapters(storyID: story.id, parentID: Self.parent) == [chapter])
            #expect(try await store.share(token: link.token) == link)
        }
    }

    @Test("Deleting a child deletes its drawings, stories, chapters and links, and names only the hashes no drawing still uses",
          arguments: StoreBackend.allCases)
    func childDeleteCascades(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let store = try storage.storyteller
            let zofia = try await store.addChild(ChildRecord(parentID: Self.parent, name: "Zofia", created: Self.t0))
            let xiuying = try await store.addChild(ChildRecord(parentID: Self.parent, name: "李秀英", created: Self.t0))
            let strangersChild = try await store.addChild(ChildRecord(parentID: Self.stranger, name: "Amos", created: Self.t0))
            // Zofia's drawings: one only hers (twice), one her sister's too, one another family's too.
            let own = try #require(try await store.addDrawing(Self.drawing(zofia, hash: "h-own")))
            _ = try #require(try await store.addDrawing(Self.drawing(zofia, hash: "h-own", at: 1)))
            let shared = try #require(try await store.addDrawing(Self.drawing(zofia, hash: "h-sister", at: 2)))
            _ = try #require(try await store.addDrawing(Self.drawing(zofia, hash: "h-stranger", at: 3)))
            _ = try #require(try await store.addDrawing(Self.drawing(xiuying, hash: "h-sister")))
            _ = try #require(try await store.addDrawing(Self.drawing(strangersChild, hash: "h-stranger")))
            let story = try #require(try await store.createStory(BedtimeStoryRecord(parentID: Self.parent, childID: zofia.id)))
            _ = try #require(try await store.appendChapter(Self.draft(story, "One.", drawings: [own]), parentID: Self.parent))
            _ = try #require(try await store.appendChapter(Self.draft(story, "Two.", drawings: [shared]), parentID: Self.parent))
            let link = try #require(try await store.createShare(StoryShareRecord(storyID: story.id, parentID: Self.parent)))
            let sisterStory = try #require(try await store.createStory(BedtimeStoryRecord(parentID: Self.parent, childID: xiuying.id, created: Self.t0)))

            let removal = try #require(try await store.deleteChild(id: zofia.id, parentID: Self.parent))
            #expect(removal.children == 1 && removal.drawings == 4 && removal.stories == 1 && removal.chapters == 2 && removal.shares == 1)
            #expect(removal.unreferencedHashes == ["h-own"])
            #expect(try await store.child(id: zofia.id, parentID: Self.parent) == nil)
            #expect(try await store.drawing(id: own.id, parentID: Self.parent) == nil)
            #expect(try await store.story(id: story.id, parentID: Self.parent) == nil)
            #expect(try await store.chapters(storyID: story.id, parentID: Self.parent).isEmpty)
            #expect(try await store.share(token: link.token) == nil)
            #expect(try await store.drawingCount(parentID: Self.parent) == 1)
            #expect(try await store.story(id: sisterStory.id, parentID: Self.parent) == sisterStory)
            #expect(try await store.deleteChild(id: zofia.id, parentID: Self.parent) == nil)

            // A drawing's delete says whether its bytes are still someone's.
            let sisters = try await store.drawings(childID: xiuying.id, parentID: Self.parent).drawings
            let sistersDrawing = try #require(sisters.first)
            let last = try #require(try await store.deleteDrawing(id: sistersDrawing.id, parentID: Self.parent))
            #expect(last.drawing.contentHash == "h-sister" && !last.hashStillReferenced)
            let strangers = try await store.drawings(childID: strangersChild.id, parentID: Self.stranger).drawings
            let again = try #require(try await store.addDrawing(Self.drawing(strangersChild, hash: "h-stranger", at: 9)))
            #expect(try await store.deleteDrawing(id: again.id, parentID: Self.stranger)?.hashStillReferenced == true)
            #expect(try await store.deleteDrawing(id: again.id, parentID: Self.stranger) == nil)
            #expect(strangers.count == 1)
            #expect(try await store.unreferencedHashes(["h-own", "h-sister", "h-stranger"]) == ["h-own", "h-sister"])
        }
    }

    @Test("Chapters appended at once to one story are numbered 1 to 20, each number once", arguments: StoreBackend.allCases)
    func concurrentChapters(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let store = try storage.storyteller
            let child = try await store.addChild(ChildRecord(parentID: Self.parent, name: "Zofia"))
            let story = try #require(try await store.createStory(BedtimeStoryRecord(parentID: Self.parent, childID: child.id)))
            let numbers = try await withThrowingTaskGroup(of: Int?.self) { group in
                for index in 0..<20 {
                    group.addTask { try await store.appendChapter(Self.draft(story, "Chapter \(index).", drawings: []), parentID: Self.parent)?.number }
                }
                return try await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            #expect(numbers.compactMap { $0 }.sorted() == Array(1...20))
            let chapters = try await store.chapters(storyID: story.id, parentID: Self.parent)
            #expect(chapters.map(\.number) == Array(1...20))
            #expect(Set(chapters.map(\.text)).count == 20)
        }
    }

    @Test("A revoked link reads as none; revoking again keeps the first time, and the parent still lists it", arguments: StoreBackend.allCases)
    func revokedLinks(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let store = try storage.storyteller
            let child = try await store.addChild(ChildRecord(parentID: Self.parent, name: "Zofia"))
            let story = try #require(try await store.createStory(BedtimeStoryRecord(parentID: Self.parent, childID: child.id)))
            let kept = try #require(try await store.createShare(StoryShareRecord(storyID: story.id, parentID: Self.parent, created: Self.t0)))
            let ended = try #require(try await store.createShare(StoryShareRecord(storyID: story.id, parentID: Self.parent, created: Self.t0.addingTimeInterval(1))))
            #expect(kept.token != ended.token)

            let revoked = try #require(try await store.revokeShare(token: ended.token, parentID: Self.parent, now: Self.t0.addingTimeInterval(5)))
            #expect(revoked.revoked == Self.t0.addingTimeInterval(5))
            #expect(try await store.share(token: ended.token) == nil)
            #expect(try await store.share(token: kept.token) == kept)
            #expect(try await store.revokeShare(token: ended.token, parentID: Self.parent, now: Self.t0.addingTimeInterval(9))?.revoked
                    == Self.t0.addingTimeInterval(5))
            #expect(try await store.shares(storyID: story.id, parentID: Self.parent).map(\.token) == [ended.token, kept.token])
            #expect(try await store.revokeShare(token: "no-such-token", parentID: Self.parent, now: Self.t0) == nil)
        }
    }

    @Test("A NUL in a child's name or a chapter is refused as invalid, naming the text", arguments: StoreBackend.allCases)
    func unstorableText(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let store = try storage.storyteller
            let error = await #expect(throws: ChatStoreError.self) {
                _ = try await store.addChild(ChildRecord(parentID: Self.parent, name: "Zo\u{0}fia"))
            }
            #expect(error?.kind == .invalid && error?.description.contains("child's name") == true)
            #expect(try await store.children(parentID: Self.parent).isEmpty)
        }
    }

    @Test("A user's erasure removes every storyteller row of theirs, counts it, and leaves the hashes for the blob store to check",
          arguments: StoreBackend.allCases)
    func erasure(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let store = try storage.storyteller
            for parent in [Self.parent, Self.stranger] {
                let child = try await store.addChild(ChildRecord(parentID: parent, name: "Zofia Łukasiewicz"))
                let mine = try #require(try await store.addDrawing(Self.drawing(child, hash: "h-\(parent)")))
                _ = try #require(try await store.addDrawing(Self.drawing(child, hash: "h-both", at: 1)))
                let story = try #require(try await store.createStory(BedtimeStoryRecord(parentID: parent, childID: child.id, theme: "李秀英")))
                _ = try #require(try await store.appendChapter(Self.draft(story, "Once.", drawings: [mine]), parentID: parent))
                _ = try #require(try await store.createShare(StoryShareRecord(storyID: story.id, parentID: parent)))
            }
            let hashes = try await store.drawingHashes(parentID: Self.parent)
            #expect(hashes == ["h-\(Self.parent)", "h-both"])

            _ = try await storage.chats.purgeUser(userID: Self.parent, by: "admin-1", now: Self.t0)
            #expect(try await store.children(parentID: Self.parent).isEmpty)
            #expect(try await store.drawingHashes(parentID: Self.parent).isEmpty)
            #expect(try await store.unreferencedHashes(hashes) == ["h-\(Self.parent)"], "the blob only the erased parent used can go")
            let record = try #require(try await storage.chats.auditEntries(AuditFilter(actions: [.userPurge], limit: 10)).first)
            for count in [#""children":1"#, #""drawings":2"#, #""bedtimeStories":1"#, #""chapters":1"#] {
                #expect(record.details?.contains(count) == true, "\(record.details ?? "")")
            }
            // The other parent's are untouched.
            let theirs = try await store.children(parentID: Self.stranger)
            #expect(theirs.map(\.name) == ["Zofia Łukasiewicz"])
            let theirStories = try await store.stories(childID: theirs[0].id, parentID: Self.stranger)
            #expect(theirStories.map(\.theme) == ["李秀英"])
            #expect(try await store.chapters(storyID: theirStories[0].id, parentID: Self.stranger).map(\.text) == ["Once."])
        }
    }
}

/// The storyteller's texts at rest: with a master key, the child's name and avatar, a drawing's
/// file name and caption, a story's theme and a chapter's text are stored sealed (`gx1:`) under
/// the parent's data key; a sealed name moved to another child does not open; the erasure
/// shreds the key; and the raw SQLite file (pages, WAL, shared memory) holds none of the texts,
/// while the same run without a key leaves them there for the scan to find.
@Suite("Storyteller texts are sealed at rest on both backends")
struct StorytellerEncryptionTests {
    /// Texts that must not be found as they are, tagged with this run.
    struct Secrets {
        let tag = String(UInt64.random(in: 1 << 40 ..< 1 << 48), radix: 36)
        var name: String { "Zofia Łukasiewicz \(tag)a" }
        var avatar: String { "avatar-\(tag)b" }
        var filename: String { "李秀英-\(tag)c.png" }
        var caption: String { "Lis, który śpiewa \(tag)d" }
        var theme: String { "Odwaga \(tag)e" }
        var chapter: String { "Dawno temu 秀英 \(tag)f spotkała lisa." }
        var all: [String] { [name, avatar, filename, caption, theme, chapter] }
    }

    static let key = MasterKeyring.newKeyLine(id: "mk-story")

    static func cipher() throws -> FieldCipher { FieldCipher(keyring: try MasterKeyring.parse(key, source: "test")) }

    /// Writes one of everything with the secrets' texts; the child's id.
    @discardableResult
    static func exercise(_ store: any StorytellerStore, _ secrets: Secrets) async throws -> (child: ChildRecord, other: ChildRecord) {
        let child = try await store.addChild(ChildRecord(parentID: "u-ania", name: secrets.name, age: 6, avatar: secrets.avatar))
        let other = try await store.addChild(ChildRecord(parentID: "u-ania", name: "Other"))
        let drawing = try #require(try await store.addDrawing(DrawingRecord(parentID: "u-ania", childID: child.id, contentHash: "h-1", mediaType: "image/png",
                                                                         byteCount: 10, width: 1, height: 1, filename: secrets.filename,
                                                                         caption: secrets.caption)))
        let story = try #require(try await store.createStory(BedtimeStoryRecord(parentID: "u-ania", childID: child.id, theme: secrets.theme)))
        _ = try #require(try await store.appendChapter(ChapterDraft(storyID: story.id, text: secrets.chapter,
                                                                    placements: [StoryPlacement(drawingID: drawing.id, afterParagraph: 1)],
                                                                    drawingIDs: [drawing.id], sample: true, model: "template", promptVersion: 1),
                                                       parentID: "u-ania"))
        return (child, other)
    }

    @Test("Every storyteller text reads back as written and is stored sealed; a moved name is tampered; erasure shreds the key",
          arguments: StoreBackend.allCases)
    func sealedColumns(on backend: StoreBackend) async throws {
        try await backend.withEncryptedStore(cipher: Self.cipher()) { store in
            let storyteller = try store.storage.storyteller
            let secrets = Secrets()
            let (child, other) = try await Self.exercise(storyteller, secrets)
            #expect(try await storyteller.child(id: child.id, parentID: "u-ania")?.name == secrets.name)
            let drawing = try #require(try await storyteller.drawings(childID: child.id, parentID: "u-ania").drawings.first)
            #expect(drawing.filename == secrets.filename && drawing.caption == secrets.caption)
            let story = try #require(try await storyteller.stories(childID: child.id, parentID: "u-ania").first)
            #expect(story.theme == secrets.theme)
            #expect(try await storyteller.chapters(storyID: story.id, parentID: "u-ania").map(\.text) == [secrets.chapter])

            let columns = [("child", "name"), ("child", "avatar"), ("drawing", "filename"), ("drawing", "caption"), ("bedtimeStory", "theme"),
                           ("bedtimeChapter", "text")]
            for (table, column) in columns {
                let values = try await store.column(column, of: table, where: table == "child" ? "id = '\(child.id)'" : "TRUE")
                #expect(values.count == 1, "\(table).\(column)")
                for value in values {
                    #expect(value.hasPrefix(FieldCipher.prefix), "\(table).\(column) holds \(value.prefix(40)) unsealed")
                    #expect(!secrets.all.contains { value.contains($0) }, "\(table).\(column) holds plain text")
                }
            }
            // The parent's key seals them all.
            let keyIDs = Set(try await store.column("name", of: "child").compactMap(FieldCipher.dataKeyID(in:)))
            #expect(keyIDs.count == 1)
            let keyID = try #require(keyIDs.first)
            #expect(try await store.count("dataKey", where: "scope = 'user:u-ania' AND id = '\(keyID)'") == 1)

            let sealedName = try #require(try await store.column("name", of: "child", where: "id = '\(child.id)'").first)
            try await store.execute("UPDATE child SET name = '\(sealedName)' WHERE id = '\(other.id)'")
            await #expect(throws: CipherError.tampered(field: .childName, row: other.id, keyID: keyID)) {
                _ = try await storyteller.child(id: other.id, parentID: "u-ania")
            }

            _ = try await store.storage.chats.purgeUser(userID: "u-ania", by: "admin-1", now: ChatFixtures.t0)
            #expect(try await store.count("dataKey", where: "scope = 'user:u-ania'") == 0)
            for table in ["child", "drawing", "bedtimeStory", "bedtimeChapter", "bedtimeStoryShare"] {
                #expect(try await store.count(table, where: "TRUE") == 0, "\(table) keeps rows of the erased parent")
            }
        }
    }

    @Test("With a master key the SQLite file, its WAL and shared memory hold no storyteller text; without one the scan finds each",
          arguments: [true, false])
    func rawSQLiteFile(encrypted: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-storyteller-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("griot.sqlite").path
        let secrets = Secrets()
        let stories = try SQLiteStoryStore(path: path, cipher: encrypted ? Self.cipher() : .plaintext)
        try await Self.exercise(stories.storage().storyteller, secrets)

        var found: Set<String> = []
        let files = ["", "-wal", "-shm"].map { path + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
        #expect(!files.isEmpty)
        for file in files {
            let bytes = try #require(FileManager.default.contents(atPath: file))
            for text in secrets.all where bytes.range(of: Data(text.utf8)) != nil { found.insert(text) }
        }
        if encrypted {
            #expect(found.isEmpty, "plain text at rest: \(found)")
        } else {
            #expect(found == Set(secrets.all), "the scan missed \(Set(secrets.all).subtracting(found))")
        }
    }
}

/// The storyteller's rows with data residency: a parent's child goes to the parent's region;
/// rows named by id are found from any region; blobs count as used while any region names them.
@Suite("Storyteller store behind regions")
struct StorytellerRegionTests {
    @Test("A child and its rows live in the parent's region only, are found from another, and erase from every region")
    func regions() async throws {
        let home = try SQLiteStoryStore.inMemory().storage()
        let eu = try SQLiteStoryStore.inMemory().storage()
        let us = try SQLiteStoryStore.inMemory().storage()
        let regional = try RegionalChatStore(home: home.chats, regions: [("eu", eu.chats), ("us", us.chats)], defaultRegion: "eu")
        let store: any StorytellerStore = regional

        let child = try await Residency.$region.withValue("us") {
            try await store.addChild(ChildRecord(parentID: "u-sam", name: "李秀英"))
        }
        #expect(try await us.storyteller.children(parentID: "u-sam").map(\.id) == [child.id])
        #expect(try await eu.storyteller.children(parentID: "u-sam").isEmpty)
        // Written where the child is, from a request bound to the other region (or none).
        let drawing = try #require(try await store.addDrawing(DrawingRecord(parentID: "u-sam", childID: child.id, contentHash: "h-shared",
                                                                           mediaType: "image/png", byteCount: 1, width: 1, height: 1,
                                                                           created: ChatFixtures.t0)))
        #expect(try await us.storyteller.drawingCount(parentID: "u-sam") == 1)
        #expect(try await store.drawing(id: drawing.id, parentID: "u-sam") == drawing)
        let story = try #require(try await store.createStory(BedtimeStoryRecord(parentID: "u-sam", childID: child.id)))
        #expect(try await store.appendChapter(ChapterDraft(storyID: story.id, text: "Once.", placements: [], drawingIDs: [], sample: true,
                                                           model: "template", promptVersion: 1), parentID: "u-sam")?.number == 1)
        let link = try #require(try await store.createShare(StoryShareRecord(storyID: story.id, parentID: "u-sam", created: ChatFixtures.t0)))
        #expect(try await Residency.$region.withValue("eu") { try await store.share(token: link.token) } == link)
        #expect(try await store.chapters(storyID: story.id, parentID: "u-sam").count == 1)
        #expect(try await store.child(id: child.id, parentID: "u-other") == nil)

        // Another region's drawing of the same bytes keeps the blob.
        let euChild = try await Residency.$region.withValue("eu") { try await store.addChild(ChildRecord(parentID: "u-eva", name: "Eva")) }
        _ = try #require(try await store.addDrawing(DrawingRecord(parentID: "u-eva", childID: euChild.id, contentHash: "h-shared",
                                                                  mediaType: "image/png", byteCount: 1, width: 1, height: 1)))
        #expect(try await store.deleteDrawing(id: drawing.id, parentID: "u-sam")?.hashStillReferenced == true)
        #expect(try await store.unreferencedHashes(["h-shared", "h-gone"]) == ["h-gone"])

        let refused = await #expect(throws: RegionUnavailable.self) {
            try await Residency.$region.withValue("apac") { _ = try await store.addChild(ChildRecord(parentID: "u-kai", name: "Kai")) }
        }
        #expect(refused?.region == "apac")

        _ = try await regional.purgeUser(userID: "u-sam", by: "admin-1", now: ChatFixtures.t0)
        #expect(try await store.drawingHashes(parentID: "u-sam").isEmpty)
        #expect(try await us.storyteller.child(id: child.id, parentID: "u-sam") == nil)
        #expect(try await eu.storyteller.children(parentID: "u-eva").map(\.name) == ["Eva"])
    }
}
