import Foundation
import GriotArchive
import GriotEmbedding
import GriotSearch
import GriotStore
import GriotStories
import GriotTestSupport
import Testing

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The real model (scripts/fetch-model.sh puts it in place; setup runs that), loaded once.
let sharedEmbedder: SentenceEmbedder = {
    do { return try SentenceEmbedder() } catch { fatalError("\(error)") }
}()

/// An archive with the real embedder when a test is about vectors, BM25 only otherwise (faster).
func makeArchive(_ storage: Storage, embedding: Bool = false) throws -> StoryArchive {
    StoryArchive(storage: storage, embedder: embedding ? sharedEmbedder : nil)
}

func story(_ id: String, privacy: Privacy = .public, text: String = "The levee broke at Mounds Landing and the water came up to the porch.") -> Story {
    Story(artifactID: id, title: "Story \(id)", people: ["Ida Mae Carter"], privacy: privacy, ownerUserID: "u-ruth",
          familyGroupIDs: ["fam-carter"], transcript: Transcript(text: text))
}

@Suite struct ArchiveTests {
    let everyone = SearchFilter(viewer: .anonymous)
    let bm25 = RetrievalSettings(mode: .lexical)

    @Test func reingestingUpdatesInsteadOfDuplicating() async throws {
        let archive = try makeArchive(await TestDatabase.storage())
        var summary = try await archive.ingest([story("a"), story("b")])
        #expect(summary.added == 2)
        let passages = try await archive.store.passageCount()

        summary = try await archive.ingest([story("a"), story("b")])
        #expect(summary.unchanged == 2 && summary.added == 0)
        #expect(try await archive.store.storyCount() == 2)
        #expect(try await archive.store.passageCount() == passages)

        summary = try await archive.ingest([story("a", text: "A different telling: two nights on the church roof.")])
        #expect(summary.updated == 1)
        #expect(try await archive.store.storyCount() == 2)
        #expect(try await archive.search("roof", filter: everyone, settings: bm25).results.map(\.passage.storyID) == ["a"])
        #expect(try await archive.search("porch", filter: everyone, settings: bm25).results.map(\.passage.storyID) == ["b"])
    }

    @Test func deleteRemovesTheStoryAndItsPassages() async throws {
        let archive = try makeArchive(await TestDatabase.storage())
        try await archive.ingest([story("a"), story("b")])
        #expect(try await archive.delete(storyID: "a"))
        #expect(try await archive.store.story(id: "a") == nil)
        #expect(try await archive.store.passages(storyID: "a").isEmpty)
        #expect(try await archive.search("levee", filter: everyone, settings: bm25).results.map(\.passage.storyID) == ["b"])
        #expect(try await !archive.delete(storyID: "a"))
    }

    @Test func aPrivacyChangeByReingestTakesEffectOnTheNextSearch() async throws {
        let archive = try makeArchive(await TestDatabase.storage())
        try await archive.ingest([story("a")])
        #expect(try await archive.search("levee", filter: everyone, settings: bm25).results.count == 1)
        try await archive.ingest([story("a", privacy: .familyOnly)])
        #expect(try await archive.search("levee", filter: everyone, settings: bm25).results.isEmpty)
        #expect(try await archive.search("levee", filter: SearchFilter(viewer: Viewer(userID: "u-x", familyGroupIDs: ["fam-carter"])), settings: bm25).results.count == 1)
    }

    @Test func aRestartRebuildsTheSameIndexFromTheDatabase() async throws {
        let database = try await TestDatabase.location()
        let first = try makeArchive(await database.open(), embedding: true)
        try await first.ingest(StoryFiles.read([packageRoot.appendingPathComponent("corpus").path]).stories)
        let before = try await first.search("sweet potato pie", filter: everyone).results.map { "\($0.passage.id) \($0.score)" }
        #expect(!before.isEmpty)
        // Every passage has a vector, recorded with the model that made it.
        #expect(try await first.store.embeddingCounts() == [sharedEmbedder.modelID: first.store.passageCount()])
        let second = try makeArchive(await database.open(), embedding: true)
        #expect(try await second.search("sweet potato pie", filter: everyone).results.map { "\($0.passage.id) \($0.score)" } == before)
        #expect(try await second.indexedPassageCount() == first.indexedPassageCount())
    }

    @Test func badStoriesInAFileStoreNothingOfThemselves() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("griot-ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let lines = [
            #"{"artifact_id": "good", "title": "Good", "privacy": "public", "transcript": "We rode the Panama Limited."}"#,
            #"{"artifact_id": "bad-privacy", "title": "Bad", "privacy": "everyone", "transcript": "Not stored."}"#,
            #"{"artifact_id": "bad-empty", "title": "Empty", "privacy": "public", "transcript": ""}"#,
        ]
        try lines.joined(separator: "\n").write(to: directory.appendingPathComponent("mixed.jsonl"), atomically: true, encoding: .utf8)
        var latin1 = Data(#"{"artifact_id": "bad-bytes", "title": "Caf"#.utf8)
        latin1.append(0xE9)
        latin1.append(Data(#"", "transcript": "x"}"#.utf8))
        try latin1.write(to: directory.appendingPathComponent("latin1.json"))

        let batch = StoryFiles.read([directory.path])
        #expect(batch.rejectedCount == 3)
        let archive = try makeArchive(await TestDatabase.storage())
        try await archive.ingest(batch.stories)
        #expect(try await archive.store.allStories().map(\.artifactID) == ["good"])
        #expect(try await archive.store.allPassages().allSatisfy { $0.storyID == "good" })
        #expect(try await archive.search("stored", filter: everyone, settings: bm25).results.isEmpty)
    }

    @Test func aFiveMegabyteTranscriptIsIngestedAndSearchable() async throws {
        let sentence = "Octavia stirred the roux until it was dark as chocolate and then she added the filé. "
        let text = String(repeating: sentence, count: 5_000_000 / sentence.utf8.count + 1) + "At the very end she sang Jolie Blonde."
        let archive = try makeArchive(await TestDatabase.storage())
        try await archive.ingest([story("long", text: text)])
        #expect(try await archive.store.passageCount() > 3_000)
        let best = try #require(try await archive.search("Jolie Blonde", filter: everyone, settings: bm25).results.first)
        #expect(best.snippet.marked().contains("**Jolie** **Blonde**"), "\(best.snippet.marked())")
    }
    @Test func anUpdatedStoryKeepsAVectorForEveryPassage() async throws {
        let archive = try makeArchive(await TestDatabase.storage(), embedding: true)
        let long = (1...60).map { "Sentence \($0) of the telling, about the levee and the camp." }.joined(separator: " ")
        try await archive.ingest([story("a", text: long)])
        let model = sharedEmbedder.modelID
        #expect(try await archive.store.embeddingCounts() == [model: archive.store.passageCount()])
        var changed = story("a", text: long + " One more sentence at the end.")
        changed.title = "Retitled"
        #expect(try await archive.ingest([changed]).updated == 1)
        #expect(try await archive.store.embeddingCounts() == [model: archive.store.passageCount()])
        #expect(try await archive.search("levee camp", filter: everyone, settings: RetrievalSettings(mode: .dense)).results.count > 1)
    }

    @Test func deleteThenReingestBringsTheStoryBack() async throws {
        let archive = try makeArchive(await TestDatabase.storage())
        try await archive.ingest([story("a")])
        _ = try await archive.search("levee", filter: everyone, settings: bm25)  // the index is live from here on
        try await archive.delete(storyID: "a")
        #expect(try await archive.search("levee", filter: everyone, settings: bm25).results.isEmpty)
        let summary = try await archive.ingest([story("a")])
        #expect(summary.added == 1)
        #expect(try await archive.search("levee", filter: everyone, settings: bm25).results.map(\.passage.storyID) == ["a"])
    }

    @Test func theLiveIndexEqualsOneRebuiltFromTheDatabaseAfterUpdatesAndDeletes() async throws {
        let database = try await TestDatabase.location()
        let live = try makeArchive(await database.open(), embedding: true)
        let corpus = StoryFiles.read([packageRoot.appendingPathComponent("corpus").path]).stories
        try await live.ingest(corpus)
        _ = try await live.search("pie", filter: everyone)
        for story in corpus.prefix(10) { try await live.delete(storyID: story.artifactID) }
        var changed = corpus[20]
        changed.privacy = .public
        changed.title = "A new title"
        try await live.ingest([changed] + corpus.prefix(5))
        let rebuilt = try makeArchive(await database.open(), embedding: true)
        let viewer = SearchFilter(viewer: Viewer(userID: "u-ruth-carter", familyGroupIDs: ["fam-carter", "fam-odom"]))
        for query in ["sweet potato pie", "train north", "church choir", "shipyard", "fire hoses", "a new title"] {
            let a = try await live.search(query, filter: viewer, k: 20).results.map { "\($0.passage.id) \($0.score) \($0.storyTitle)" }
            let b = try await rebuilt.search(query, filter: viewer, k: 20).results.map { "\($0.passage.id) \($0.score) \($0.storyTitle)" }
            #expect(a == b, "\(query)")
        }
    }

    @Test func concurrentIngestsLeaveTheIndexAsTheDatabaseSaysIt() async throws {
        let database = try await TestDatabase.location()
        let archive = try makeArchive(await database.open())
        try await archive.ingest([story("contested")])
        _ = try await archive.search("levee", filter: everyone, settings: bm25)
        await withTaskGroup(of: Void.self) { group in
            for round in 0..<40 {
                group.addTask {
                    let privacy: Privacy = round % 2 == 0 ? .private : .public
                    _ = try? await archive.ingest([story("contested", privacy: privacy, text: "The levee broke, telling number \(round).")])
                }
            }
        }
        let rebuilt = try makeArchive(await database.open())
        #expect(try await archive.search("levee", filter: everyone, settings: bm25).results.map(\.passage.id) == rebuilt.search("levee", filter: everyone, settings: bm25).results.map(\.passage.id))
        let stored = try #require(try await archive.store.story(id: "contested"))
        #expect(try await archive.search("levee", filter: everyone, settings: bm25).results.isEmpty == (stored.privacy == .private))
    }

    // SQLite only: the full disk is simulated with a SQLite trigger.
    @Test(.enabled(if: TestDatabase.isSQLite)) func aStoppedIngestSaysHowFarItGotAndRerunningFinishesIt() async throws {
        let archive = try makeArchive(Storage.inMemory())
        try await (archive.store as! SQLiteStoryStore).writer.write { db in
            try db.execute(sql: "CREATE TRIGGER full_disk BEFORE INSERT ON story WHEN NEW.id = 'c' BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END")
        }
        let stories = ["a", "b", "c", "d"].map { story($0) }
        let error = try await #require(throws: IngestInterrupted.self) { try await archive.ingest(stories, batchSize: 1) }
        #expect(error.description.contains("after storing 2 of 4 stories"))
        #expect(error.description.contains("disk full (simulated)"))
        #expect(error.description.contains("running the same command again is safe"))
        #expect(try await archive.store.allStories().map(\.artifactID) == ["a", "b"])

        try await (archive.store as! SQLiteStoryStore).writer.write { db in try db.execute(sql: "DROP TRIGGER full_disk") }
        let summary = try await archive.ingest(stories, batchSize: 1)
        #expect(summary.unchanged == 2 && summary.added == 2)
    }
}

@Suite struct DemoCorpusTests {
    let batch = StoryFiles.read([packageRoot.appendingPathComponent("corpus").path])

    @Test func everyDemoStoryIsValid() {
        #expect(batch.problems.isEmpty, "\(batch.problems)")
        #expect(batch.warnings.isEmpty, "\(batch.warnings)")
        #expect(batch.stories.count >= 40)
        #expect(Set(batch.stories.map(\.artifactID)).count == batch.stories.count)
    }

    @Test func theCorpusSpansFamiliesDecadesPlacesAndPrivacy() {
        let families = Set(batch.stories.flatMap(\.familyGroupIDs))
        #expect(families.count >= 3)
        let decades = Set(batch.stories.flatMap(\.years).map { $0 / 10 * 10 })
        #expect(Set(stride(from: 1920, through: 2010, by: 10)).isSubset(of: decades), "decades: \(decades.sorted())")
        for privacy in Privacy.allCases { #expect(batch.stories.contains { $0.privacy == privacy }) }
        #expect(batch.stories.allSatisfy { !$0.transcript.segments.isEmpty })
        #expect(batch.stories.allSatisfy { $0.historicalContext.contains { $0.location?.coordinates != nil } })
        let places = batch.stories.flatMap(\.allPlaces).joined(separator: " ")
        for place in ["Chicago", "Detroit", "Tulsa", "Birmingham", "Oakland"] { #expect(places.contains(place), "no story in \(place)") }
    }
}
