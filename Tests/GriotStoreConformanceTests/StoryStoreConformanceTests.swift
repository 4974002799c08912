import Foundation
import GriotPostgres
import GriotStore
import GriotStories
import GriotTestSupport
import PostgresNIO
import Testing

@Suite("Story store: the same behaviour on every backend")
struct StoryStoreConformanceTests {
    @Test("A new story is added with its passages and read back exactly", arguments: StoreBackend.allCases)
    func addsAStory(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let (story, passages) = Self.story("carter-1927-flood", "The Water Came Up", ["Well, baby, the river came up in April.", "We stayed on the roof two days."])
            #expect(try await storage.stories.save([(story, passages)]) == [.added])
            #expect(try await storage.stories.story(id: story.artifactID) == story)
            #expect(try await storage.stories.passages(storyID: story.artifactID) == passages)
            #expect(try await storage.stories.passage(id: passages[1].id) == passages[1])
            #expect(try await storage.stories.storyCount() == 1)
            #expect(try await storage.stories.passageCount() == 2)
            #expect(try await storage.stories.story(id: "no-such-story") == nil)
            #expect(try await storage.stories.passage(id: "no-such-passage") == nil)
            #expect(try await storage.stories.passages(storyID: "no-such-story").isEmpty)
        }
    }

    @Test("Text in any script, and every optional field, is stored and read back exactly", arguments: StoreBackend.allCases)
    func storesEveryScript(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let texts = ["Zofia Łukasiewicz opowiadała o Lwowie.", "李秀英讲述了她祖母的故事。", "حكت جدتي عن البحر والنخيل.",
                         "Grandma 👵🏾 said the 🌊 took the barn; e\u{301} ≠ é, tab\there, quote \" and \\ backslash, 'apostrophe'.",
                         "Ελληνικά, हिन्दी, 한국어, עברית, ไทย"]
            var story = Story(artifactID: "zofia-łukasiewicz-李秀英-🌊", title: "Zofia Łukasiewicz, 李秀英 and حكاية 👵🏾",
                              description: "Opis — 描述 — وصف", creator: "Ruth “Ruthie” O’Neil", creationDate: "circa 1960s",
                              interviewees: ["Zofia Łukasiewicz", "李秀英"], people: ["Ahmad al-Farsi"], tags: ["flood", "洪水"],
                              language: ["pl", "zh", "ar"], aiMetadata: StoryTags(topics: ["migration"], summary: "Résumé 🌍"),
                              historicalContext: [HistoricalContext(year: 1927, location: Place(name: "Greenville, MS", coordinates: GeoPoint(latitude: 33.41, longitude: -91.06)))],
                              privacy: .familyOnly, ownerUserID: "u-zofia", familyGroupIDs: ["family,with\"odd'chars", "家族"],
                              transcript: Transcript(segments: texts.enumerated().map { TranscriptSegment(start: Double($0.offset) * 7.25, end: Double($0.offset) * 7.25 + 7, speaker: "Zofia Łukasiewicz", text: $0.element) }),
                              videoURL: "https://example.org/v/%F0%9F%8C%8A", durationSeconds: 36.25, source: "family upload")
            story.publicDomain = false
            let passages = texts.enumerated().map { index, text in
                Passage(id: "\(story.artifactID)-\(index)", storyID: story.artifactID, ordinal: index, text: text,
                        speaker: index.isMultiple(of: 2) ? "Zofia Łukasiewicz" : nil,
                        startSeconds: index == 1 ? nil : Double(index) * 7.25, endSeconds: index == 1 ? nil : Double(index) * 7.25 + 7.1,
                        startOffset: index * 100, endOffset: index * 100 + text.unicodeScalars.count)
            }
            try await storage.stories.save([(story, passages)])
            #expect(try await storage.stories.story(id: story.artifactID) == story)
            #expect(try await storage.stories.allStories() == [story])
            #expect(try await storage.stories.passages(storyID: story.artifactID) == passages)
            #expect(try await storage.stories.allPassages() == passages)
            for passage in passages {
                #expect(try await storage.stories.passage(id: passage.id)?.text == passage.text)
            }
        }
    }

    @Test("Saving an unchanged story again changes nothing: its passages and their vectors stay", arguments: StoreBackend.allCases)
    func unchangedStoryStays(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let (story, passages) = Self.story("lil-1952", "Aunt Lil", ["Aunt Lil ran the store.", "She kept a ledger of every debt."])
            _ = try await storage.stories.save([(story, passages)], revision: "r1")
            try await storage.stories.saveEmbeddings([(passages[0].id, [1, 2, 3])], model: "mini")
            #expect(try await storage.stories.save([(story, passages)], revision: "r1") == [.unchanged])
            #expect(try await storage.stories.passages(storyID: story.artifactID) == passages)
            #expect(try await storage.stories.embeddings(model: "mini") == [passages[0].id: [1, 2, 3]])
        }
    }

    @Test("A changed story replaces its passages, and the old passages' vectors go with them", arguments: StoreBackend.allCases)
    func changedStoryReplacesPassages(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let (story, passages) = Self.story("lil-1952", "Aunt Lil", ["Aunt Lil ran the store.", "She kept a ledger."])
            try await storage.stories.save([(story, passages)])
            try await storage.stories.saveEmbeddings(passages.map { ($0.id, [0.5, 0.25]) }, model: "mini")
            var changed = story
            changed.title = "Aunt Lil's Store"
            let newPassages = Self.story("lil-1952", "Aunt Lil's Store", ["Aunt Lil ran the store on Elm Street.", "She kept a ledger.", "Nobody paid."]).passages
            #expect(try await storage.stories.save([(changed, newPassages)]) == [.updated])
            #expect(try await storage.stories.story(id: story.artifactID)?.title == "Aunt Lil's Store")
            #expect(try await storage.stories.passages(storyID: story.artifactID) == newPassages)
            #expect(try await storage.stories.passageCount() == 3)
            #expect(try await storage.stories.storyCount() == 1)
            #expect(try await storage.stories.embeddings(model: "mini").isEmpty)
        }
    }

    @Test("A story saved under another revision counts as changed, and again as unchanged after", arguments: StoreBackend.allCases)
    func revisionChangeUpdates(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let (story, passages) = Self.story("lil-1952", "Aunt Lil", ["Aunt Lil ran the store."])
            #expect(try await storage.stories.save([(story, passages)], revision: "passages-2/150") == [.added])
            #expect(try await storage.stories.save([(story, passages)], revision: "passages-3/120") == [.updated])
            #expect(try await storage.stories.save([(story, passages)], revision: "passages-3/120") == [.unchanged])
            #expect(try await storage.stories.passages(storyID: story.artifactID) == passages)
        }
    }

    @Test("A batch reports each story's outcome in order; a story listed twice is saved as if one after the other",
          arguments: StoreBackend.allCases)
    func batchOutcomes(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let kept = Self.story("b-kept", "Kept", ["Nothing changes here."])
            let edited = Self.story("c-edited", "Edited", ["First telling."])
            try await storage.stories.save([kept, edited])
            let newFirst = Self.story("a-new", "New", ["First version."])
            let newSecond = Self.story("a-new", "New, corrected", ["Second version.", "With more."])
            let editedAgain = Self.story("c-edited", "Edited", ["Second telling."])
            let outcomes = try await storage.stories.save([newFirst, kept, editedAgain, newSecond, newSecond])
            #expect(outcomes == [.added, .unchanged, .updated, .updated, .unchanged])
            #expect(try await storage.stories.story(id: "a-new")?.title == "New, corrected")
            #expect(try await storage.stories.passages(storyID: "a-new") == newSecond.passages)
            #expect(try await storage.stories.passages(storyID: "c-edited") == editedAgain.passages)
            #expect(try await storage.stories.storyCount() == 3)
            #expect(try await storage.stories.passageCount() == 4)
            #expect(try await storage.stories.save([]) == [])
        }
    }

    @Test("Stories are listed by id in byte order, passages by story and then in story order", arguments: StoreBackend.allCases)
    func listingOrder(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let ids = ["b-story", "Z-story", "a-story", "B-story", "é-story", "10-story", "9-story"]
            try await storage.stories.save(ids.map { Self.story($0, $0, ["One \($0).", "Two \($0).", "Three \($0)."]) })
            let byteOrder = ids.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            #expect(try await storage.stories.allStories().map(\.artifactID) == byteOrder)
            let passages = try await storage.stories.allPassages()
            #expect(passages.map(\.storyID) == byteOrder.flatMap { Array(repeating: $0, count: 3) })
            #expect(passages.map(\.ordinal) == Array(repeating: [0, 1, 2], count: ids.count).flatMap { $0 })
        }
    }

    @Test("Deleting a story removes its passages and their vectors; deleting it again says there was none",
          arguments: StoreBackend.allCases)
    func deleteCascades(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let gone = Self.story("gone", "Gone", ["One.", "Two."])
            let stays = Self.story("stays", "Stays", ["Three."])
            try await storage.stories.save([gone, stays])
            try await storage.stories.saveEmbeddings((gone.passages + stays.passages).map { ($0.id, [1]) }, model: "mini")
            #expect(try await storage.stories.delete(storyID: "gone"))
            #expect(try await storage.stories.story(id: "gone") == nil)
            #expect(try await storage.stories.passages(storyID: "gone").isEmpty)
            #expect(try await storage.stories.passageCount() == 1)
            #expect(try await storage.stories.embeddings(model: "mini") == [stays.passages[0].id: [1]])
            #expect(try await !storage.stories.delete(storyID: "gone"))
            #expect(try await storage.stories.allStories() == [stays.story])
        }
    }

    @Test("Vectors round-trip bit for bit: signed zeros, subnormals, extremes, infinities and NaN payloads",
          arguments: StoreBackend.allCases)
    func vectorsAreBitExact(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let (story, passages) = Self.story("vectors", "Vectors", ["One.", "Two.", "Three."])
            try await storage.stories.save([(story, passages)])
            let awkward: [Float] = [0, -0.0, 1.0 / 3, -.pi, .leastNonzeroMagnitude, -.leastNormalMagnitude, .greatestFiniteMagnitude,
                                    .infinity, -.infinity, Float(bitPattern: 0x7FC0_1234), Float(bitPattern: 0xFF80_0001), 1e-42]
            var generator = SplitMix64(seed: 7)
            let random = (0..<384).map { _ in Float(bitPattern: UInt32(truncatingIfNeeded: generator.next())) }
            try await storage.stories.saveEmbeddings([(passages[0].id, awkward), (passages[1].id, random), (passages[2].id, [])], model: "minilm")
            let stored = try await storage.stories.embeddings(model: "minilm")
            #expect(stored.count == 3)
            #expect(stored[passages[0].id]?.map(\.bitPattern) == awkward.map(\.bitPattern))
            #expect(stored[passages[1].id]?.map(\.bitPattern) == random.map(\.bitPattern))
            #expect(stored[passages[2].id] == [])
        }
    }

    @Test("Vectors are kept by model and read for all passages or only those named", arguments: StoreBackend.allCases)
    func embeddingsByModelAndPassage(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let (story, passages) = Self.story("vectors", "Vectors", ["One.", "Two.", "Three."])
            try await storage.stories.save([(story, passages)])
            try await storage.stories.saveEmbeddings([(passages[0].id, [1, 0]), (passages[1].id, [0, 1])], model: "mini")
            try await storage.stories.saveEmbeddings([(passages[2].id, [0.5, 0.5])], model: "large")
            #expect(try await storage.stories.embeddings(model: "mini") == [passages[0].id: [1, 0], passages[1].id: [0, 1]])
            #expect(try await storage.stories.embeddings(model: "mini", passageIDs: [passages[1].id, passages[2].id, "unknown"]) == [passages[1].id: [0, 1]])
            #expect(try await storage.stories.embeddings(model: "mini", passageIDs: []).isEmpty)
            #expect(try await storage.stories.embeddings(model: "none").isEmpty)
            #expect(try await storage.stories.embeddingCounts() == ["mini": 2, "large": 1])

            // A passage has one vector: saving it again (even by another model, or twice in a batch) replaces it.
            try await storage.stories.saveEmbeddings([(passages[0].id, [9, 9]), (passages[0].id, [7, 7])], model: "large")
            #expect(try await storage.stories.embeddingCounts() == ["mini": 1, "large": 2])
            #expect(try await storage.stories.embeddings(model: "large", passageIDs: [passages[0].id]) == [passages[0].id: [7, 7]])
            try await storage.stories.saveEmbeddings([], model: "large")

            try await storage.stories.deleteAllEmbeddings()
            #expect(try await storage.stories.embeddingCounts().isEmpty)
            #expect(try await storage.stories.passageCount() == 3)
        }
    }

    @Test("A vector for a passage that is not stored is refused", arguments: StoreBackend.allCases)
    func vectorNeedsItsPassage(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            await #expect(throws: (any Error).self) {
                try await storage.stories.saveEmbeddings([("no-such-passage", [1])], model: "mini")
            }
            #expect(try await storage.stories.embeddingCounts().isEmpty)
        }
    }

    @Test("Meta values are set, replaced and read back; a missing key reads as nil", arguments: StoreBackend.allCases)
    func metaValues(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            #expect(try await storage.stories.metaValue("demo_seeded") == nil)
            try await storage.stories.setMetaValue("demo_seeded", "2026-11-28")
            try await storage.stories.setMetaValue("embedding_model", "all-MiniLM-L6-v2 李秀英 🌊")
            try await storage.stories.setMetaValue("demo_seeded", "2026-11-29")
            #expect(try await storage.stories.metaValue("demo_seeded") == "2026-11-29")
            #expect(try await storage.stories.metaValue("embedding_model") == "all-MiniLM-L6-v2 李秀英 🌊")
            try await storage.stories.setMetaValue("empty", "")
            #expect(try await storage.stories.metaValue("empty") == "")
        }
    }

    @Test("A fresh database says it takes writes", arguments: StoreBackend.allCases)
    func freshDatabaseIsWritable(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            try await storage.stories.checkWritable()
            #expect(try await storage.stories.storyCount() == 0)
        }
    }

    @Test("Ingesting 1,000 stories of 10 passages, in batches of 100, takes seconds, not minutes", arguments: StoreBackend.allCases)
    func ingestIsFast(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage async throws in
            let stories = (0..<1_000).map { index in
                Self.story(String(format: "story-%04d", index), "Story \(index)",
                           (0..<10).map { "Passage \($0) of story \(index): the river came up in April, and we stayed on the roof." })
            }
            let clock = ContinuousClock()
            let elapsed = try await clock.measure {
                for start in stride(from: 0, to: stories.count, by: 100) {
                    let outcomes = try await storage.stories.save(Array(stories[start..<start + 100]), revision: "r1")
                    #expect(outcomes == Array(repeating: .added, count: 100))
                }
            }
            let again = try await clock.measure {
                let outcomes = try await storage.stories.save(Array(stories[0..<100]), revision: "r1")
                #expect(outcomes == Array(repeating: .unchanged, count: 100))
            }
            print("\(backend.testDescription): ingested 1,000 stories (10,000 passages) in \(elapsed); 100 unchanged in \(again)")
            #expect(try await storage.stories.passageCount() == 10_000)
            #expect(elapsed < .seconds(60))
        }
    }

    // MARK: Fixtures

    /// A story whose passages are `texts`, one each, laid end to end.
    static func story(_ id: String, _ title: String, _ texts: [String]) -> (story: Story, passages: [Passage]) {
        let story = Story(artifactID: id, title: title, privacy: .public, transcript: Transcript(text: texts.joined(separator: " ")))
        var offset = 0
        let passages = texts.enumerated().map { index, text in
            defer { offset += text.unicodeScalars.count + 1 }
            return Passage(id: "\(id)-\(StableHash.hex(text))", storyID: id, ordinal: index, text: text,
                           startOffset: offset, endOffset: offset + text.unicodeScalars.count)
        }
        return (story, passages)
    }
}

@Suite("PostgreSQL database: opening, migrations and refusals")
struct PostgresDatabaseTests {
    @Test("Opening a server that is not running names the host and port, hides the password, and says what to do")
    func serverNotRunning() async throws {
        let error = await #expect(throws: PostgresDatabase.Failure.self) {
            _ = try await PostgresDatabase.open(url: "postgres://griot:s3cret-pw@127.0.0.1:1/griot")
        }
        let message = error?.description ?? ""
        #expect(message.contains("127.0.0.1:1"))
        #expect(message.contains("scripts/postgres.sh up"))
        #expect(!message.contains("s3cret-pw"))
    }

    @Test("A URL that is not PostgreSQL's, or names a schema that does not exist, is refused with what to write")
    func badURLs() async throws {
        let notAURL = await #expect(throws: PostgresDatabase.Failure.self) {
            _ = try await PostgresDatabase.open(url: "postgres://127.0.0.1:54329")
        }
        #expect(notAURL?.description.contains("postgres://USER:PASSWORD@HOST:PORT/DATABASE") == true)
        let server = try await TestServer.shared.value
        let missing = await #expect(throws: PostgresDatabase.Failure.self) {
            _ = try await PostgresDatabase.open(url: server.url + "?search_path=t_does_not_exist")
        }
        #expect(missing?.description.contains("CREATE SCHEMA") == true)
    }

    @Test("Three nodes opening one new database at once apply each migration once, in order")
    func concurrentMigrations() async throws {
        let schema = try await TestSchema.create()
        let databases = try await withThrowingTaskGroup(of: PostgresDatabase.self) { group in
            for _ in 0..<3 { group.addTask { try await PostgresDatabase.open(url: schema.url) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let names = try await databases[0].client.query("SELECT name FROM schema_migrations ORDER BY applied_at, name")
            .collect().map { try $0.decode(String.self) }
        #expect(names == ["v1: stories and passages", "v2: passage embeddings", "v3: threads, messages and turns",
                          "v4: audit, rate limits and retention", "v5: safety verdicts and warnings",
                          "v6: thread titles only from allowed messages", "v7: abuse limits under a user pseudonym, retained texts",
                          "v8: support grants", "v9: story change log", "v10: shared circuit breakers", "v11: prompt releases",
                          "v12: stream journal", "v13: API keys", "v14: review queue", "v15: dashboard rollup",
                          "v16: data keys and regions", "v17: storyteller"])
        for database in databases { await database.close() }
        try await schema.drop()
    }

    @Test("checkWritable refuses a role that may not write, naming the role and what to grant")
    func readOnlyRoleIsRefused() async throws {
        let schema = try await TestSchema.create()
        let database = try await PostgresDatabase.open(url: schema.url)
        let stories = PostgresStoryStore(database: database)
        try await stories.checkWritable()
        try await database.client.query("REVOKE INSERT, UPDATE, DELETE ON meta FROM CURRENT_USER")
        let error = await #expect(throws: PostgresDatabase.Failure.self) { try await stories.checkWritable() }
        #expect(error?.description.contains("grant") == true)
        await database.close()
        try await schema.drop()
    }

    @Test("A story holding a NUL character is refused whole, naming the story and what to do")
    func nulCharacterIsRefused() async throws {
        let schema = try await TestSchema.create()
        let database = try await PostgresDatabase.open(url: schema.url)
        let stories = PostgresStoryStore(database: database)
        let (story, passages) = StoryStoreConformanceTests.story("nul", "NUL", ["Before\u{0}after."])
        let error = await #expect(throws: ChatStoreError.self) { try await stories.save([(story, passages)], revision: "") }
        #expect(error?.kind == .invalid)
        #expect(error?.description.contains("story nul") == true)
        #expect(try await stories.storyCount() == 0)
        await database.close()
        try await schema.drop()
    }

    @Test("Every node on one database derives the same user pseudonyms from the secret kept in meta")
    func nodesSharePseudonyms() async throws {
        let schema = try await TestSchema.create()
        let first = try await PostgresDatabase.open(url: schema.url)
        let second = try await PostgresDatabase.open(url: schema.url)
        let (a, b) = try await (first.storage(environment: [:]), second.storage(environment: [:]))
        #expect(a.chats.pseudonyms.key(for: "u-maya") == b.chats.pseudonyms.key(for: "u-maya"))
        #expect(a.chats.pseudonyms.key(for: "u-maya") != a.chats.pseudonyms.key(for: "u-ruth"))
        let salted = try await first.storage(environment: ["GRIOT_AUDIT_SALT": "a salt"])
        #expect(salted.chats.pseudonyms.key(for: "u-maya") == UserPseudonyms(secret: Data("a salt".utf8)).key(for: "u-maya"))
        await first.close()
        await second.close()
        try await schema.drop()
    }
}
