import Foundation
import GriotEmbedding
import GriotSearch
import GriotStore
import GriotStories
import GriotText
import Synchronization

/// One ranked passage, ready to show: where it comes from, why it matched, where it sits.
public struct PassageResult: Sendable, Hashable {
    public var passage: Passage
    public var storyTitle: String
    public var score: Float
    public var snippet: Snippet
    /// Where the passage stood in each arm (nil: that arm did not return it or did not run).
    public var lexical: ArmRank?
    public var dense: ArmRank?
}

/// Which arms a search uses and how they are fused.
public struct RetrievalSettings: Sendable, Hashable {
    public enum Mode: String, Sendable, CaseIterable { case hybrid, lexical, dense }

    public var mode: Mode = .hybrid
    /// Normalised weighted fusion at equal weights: nDCG@10 0.732 on SciFact against 0.718 for
    /// RRF(k=60) (docs/BENCHMARKS.md); RRF is one setting away.
    public var fusion: FusionMethod = .weighted(lexicalWeight: 0.5)
    /// How deep each arm ranks before fusion.
    public var candidatesPerArm = 100
    /// Query words the index lacks are expanded to close index terms (typos in names and places).
    public var expandsSpelling = true

    public init(mode: Mode = .hybrid, fusion: FusionMethod = .weighted(lexicalWeight: 0.5), candidatesPerArm: Int = 100, expandsSpelling: Bool = true) {
        self.mode = mode
        self.fusion = fusion
        self.candidatesPerArm = candidatesPerArm
        self.expandsSpelling = expandsSpelling
    }
}

/// A search's results and how the query was read.
public struct SearchOutcome: Sendable {
    public var results: [PassageResult]
    /// Query words replaced by close index terms, shown only when a returned passage holds them.
    public var spellingExpansions: [String: [String]]

    public init(results: [PassageResult], spellingExpansions: [String: [String]]) {
        self.results = results
        self.spellingExpansions = spellingExpansions
    }
}

/// An ingest that stopped part-way, saying what is safe to do next.
public struct IngestInterrupted: Error, CustomStringConvertible {
    public var stored: Int
    public var total: Int
    public var reason: String

    public var description: String {
        "ingest stopped after storing \(stored) of \(total) stories (\(reason)); running the same command again is safe: "
            + "stories already stored are skipped as unchanged. Check that the database file is writable and not locked."
    }
}

/// The stories of one database and their search index, kept in step: every change goes to
/// the database first (one transaction per batch) and then to the in-memory index, so the index
/// never holds what the database lost, and a restart rebuilds it from the database.
///
/// Writers take turns (one writer lock held across the database write and the index
/// update), so the index applies changes in the order the database committed them. The index
/// is built on the first search, so commands that only write never pay for it. Searches read
/// a copy-on-write snapshot taken under a short lock; text is analysed before that lock is
/// taken, so an ingest holds it only to append postings.
///
/// ```swift
/// let archive = try StoryArchive(storage: SQLiteStoryStore(path: "griot.sqlite").storage())
/// try await archive.ingest(stories)
/// let results = try await archive.search("the flood", filter: SearchFilter(viewer: .anonymous))
/// ```
public final class StoryArchive: Sendable {
    /// The database: its stories here, its conversations and limits beside them.
    public let storage: Storage
    public var store: any StoryStore { storage.stories }
    public let splitter: PassageSplitter
    public let configuration: BM25Configuration
    /// Makes passage and query vectors; without one the archive searches with BM25 only.
    public let embedder: SentenceEmbedder?
    private let writes = WriterTurns()
    private let state = Mutex<State?>(nil)
    /// The index version as last read or written (`indexVersion()`).
    private let version = Mutex<Int?>(nil)

    /// The meta key of the index version: a count of the committed changes to the stories'
    /// passages (ingests that changed something, deletes, reindexes), kept in the database.
    static let indexVersionKey = "index_version"

    struct State {
        var index: PassageIndex
        /// The stories whose passages the index holds, as stored: what a turn shows of each.
        var stories: [String: Story] = [:]
        var passages: [String: Passage] = [:]
        var passageIDsByStory: [String: [String]] = [:]
        var titles: [String: String] = [:]
        /// The index terms of each story's title, people, places and topics: what a viewer of
        /// the story sees besides its passages.
        var metadataTerms: [String: Set<String>] = [:]
        /// Built on the first search that needs it after a change.
        var spelling: SpellingExpander?
        /// Counts changes, so that work done on an older snapshot is not installed over a newer one.
        var generation = 0
        /// The last entry of the database's change log this state holds (`catchUp`).
        var changeSequence: Int64 = 0

        mutating func replace(storyID: String, story: Story?, passages newPassages: [Passage], metadata: Set<String> = []) {
            for id in passageIDsByStory[storyID] ?? [] { passages[id] = nil }
            stories[storyID] = story
            titles[storyID] = story?.title
            metadataTerms[storyID] = metadata.isEmpty ? nil : metadata
            passageIDsByStory[storyID] = newPassages.isEmpty ? nil : newPassages.map(\.id)
            for passage in newPassages { passages[passage.id] = passage }
        }
    }

    public init(storage: Storage, configuration: BM25Configuration = BM25Configuration(), splitter: PassageSplitter = PassageSplitter(),
                embedder: SentenceEmbedder? = nil) {
        self.storage = storage
        self.configuration = configuration
        self.splitter = splitter
        self.embedder = embedder
    }

    public func storyCount() async throws -> Int { try await store.storyCount() }

    /// The index and passages as of the last committed change, building them on first use.
    private func snapshot() async throws -> State {
        if let loaded = state.withLock({ $0 }) { return loaded }
        return try await writes.run {
            if let loaded = state.withLock({ $0 }) { return loaded }
            let built = try await buildState()
            state.withLock { $0 = built }
            return built
        }
    }

    private func buildState() async throws -> State {
        var built = State(index: PassageIndex(configuration: configuration))
        // Read first: a change committed while the stories are read is applied again by the next
        // `catchUp`, which is harmless; one read before it and missed would not be.
        built.changeSequence = try await store.lastChangeSequence()
        let stories = try await store.allStories()
        let passages = try await store.allPassages()
        var passagesByStory: [String: [Passage]] = [:]
        for passage in passages { passagesByStory[passage.storyID, default: []].append(passage) }
        var vectors: [String: [Float]] = [:]
        if let embedder {
            vectors = try await store.embeddings(model: embedder.modelID)
            // Passages stored without a vector (an interrupted ingest, another model) get one now.
            let missing = passages.filter { vectors[$0.id] == nil }
            if !missing.isEmpty {
                let made = try await embed(missing, with: embedder)
                for (id, vector) in made { vectors[id] = vector }
            }
        }
        built.index.addStories(stories.map { story in
            (StoryFacets(story: story), Self.documents(for: story, passages: passagesByStory[story.artifactID] ?? [], vectors: vectors))
        })
        for story in stories {
            built.replace(storyID: story.artifactID, story: story, passages: passagesByStory[story.artifactID] ?? [],
                          metadata: Self.metadataTerms(story, built.index.analyzer))
        }
        return built
    }

    /// Stores and indexes stories in batches; `progress` hears (stories done, total).
    /// Stories whose stored copy is identical are left alone.
    @discardableResult
    public func ingest(_ stories: [Story], batchSize: Int = 64, progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> StoreSummary {
        var summary = StoreSummary()
        var done = 0
        for start in stride(from: 0, to: stories.count, by: batchSize) {
            let batch = stories[start..<min(start + batchSize, stories.count)].map { ($0, splitter.passages(of: $0)) }
            do {
                let outcomes = try await writes.run {
                    // Vectors of passages whose text is unchanged are kept, whatever happens to their story.
                    var kept: [String: [Float]] = [:]
                    if let embedder { kept = try await store.embeddings(model: embedder.modelID, passageIDs: batch.flatMap { $0.1.map(\.id) }) }
                    let outcomes = try await store.save(batch.map { (story: $0.0, passages: $0.1) }, revision: splitter.revision)
                    let changed = zip(batch, outcomes).filter { $0.1 != .unchanged }.map(\.0)
                    var vectors = kept
                    if let embedder {
                        // Saving a changed story dropped its passages' rows, vectors included: put back the kept ones.
                        let changedPassages = changed.flatMap(\.1)
                        try await store.saveEmbeddings(changedPassages.compactMap { passage in kept[passage.id].map { (passageID: passage.id, vector: $0) } },
                                                       model: embedder.modelID)
                        for (id, vector) in try await embed(changedPassages.filter { kept[$0.id] == nil }, with: embedder) { vectors[id] = vector }
                    }
                    if !changed.isEmpty { try await bumpIndexVersion() }
                    guard !changed.isEmpty, let analyzer = state.withLock({ $0?.index.analyzer }) else { return outcomes }
                    let prepared = PassageIndex.prepare(changed.map { (StoryFacets(story: $0.0), Self.documents(for: $0.0, passages: $0.1, vectors: vectors)) }, analyzer: analyzer)
                    state.withLock { state in
                        guard state != nil else { return }
                        state!.index.apply(prepared)
                        for (story, passages) in changed {
                            state!.replace(storyID: story.artifactID, story: story, passages: passages,
                                           metadata: Self.metadataTerms(story, analyzer))
                        }
                        state!.spelling = nil
                        state!.generation += 1
                    }
                    return outcomes
                }
                summary.count(outcomes)
            } catch {
                throw IngestInterrupted(stored: done, total: stories.count, reason: "\(error)")
            }
            done += batch.count
            progress?(done, stories.count)
        }
        return summary
    }

    /// Deletes a story and its passages from the database and the index.
    @discardableResult
    public func delete(storyID: String) async throws -> Bool {
        try await writes.run {
            let deleted = try await store.delete(storyID: storyID)
            if deleted { try await bumpIndexVersion() }
            state.withLock { state in
                guard state != nil else { return }
                state!.index.removeStory(storyID)
                state!.replace(storyID: storyID, story: nil, passages: [])
                state!.spelling = nil
                state!.generation += 1
            }
            return deleted
        }
    }

    /// A consistent view of the index as of the last committed change, loading it on first use:
    /// searched without waiting (a turn searches it on the preparation lane).
    public func searcher() async throws -> ArchiveSearcher {
        ArchiveSearcher(archive: self, snapshot: try await snapshot())
    }

    /// The top passages for a query among those the filter admits, with snippets.
    public func search(_ query: String, filter: SearchFilter, k: Int = 10, settings: RetrievalSettings = RetrievalSettings()) async throws -> SearchOutcome {
        try await searcher().search(query, filter: filter, k: k, settings: settings)
    }

    /// Named passages in the order given (a replay's pinned passages); see `ArchiveSearcher.passages`.
    public func passages(_ pinned: [(id: String, score: Float)], filter: SearchFilter) async throws -> SearchOutcome {
        try await searcher().passages(pinned, filter: filter)
    }

    /// Keeps a spelling expander built on the snapshot of `generation`, unless the index changed since.
    func keepSpelling(_ built: SpellingExpander, generation: Int) {
        state.withLock { if $0?.generation == generation { $0!.spelling = built } }
    }

    /// Re-embeds every passage with the current model (after a model change), then rebuilds
    /// the index; `progress` hears (passages done, total).
    public func reindex(progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> Int {
        guard let embedder else { throw EmbeddingError.modelMissing(path: SentenceEmbedder.defaultModelFolder.path) }
        return try await writes.run {
            let passages = try await store.allPassages()
            try await store.deleteAllEmbeddings()
            _ = try await embed(passages, with: embedder, progress: progress)
            let rebuilt = try await buildState()
            state.withLock { $0 = rebuilt }
            try await bumpIndexVersion()
            return passages.count
        }
    }

    /// Embeds passages in chunks and stores each chunk's vectors as it is done.
    private func embed(_ passages: [Passage], with embedder: SentenceEmbedder, progress: ((Int, Int) -> Void)? = nil) async throws -> [String: [Float]] {
        var vectors: [String: [Float]] = [:]
        for start in stride(from: 0, to: passages.count, by: 256) {
            let chunk = Array(passages[start..<min(start + 256, passages.count)])
            let made = embedder.embed(chunk.map(\.text))
            try await store.saveEmbeddings(zip(chunk, made).map { (passageID: $0.id, vector: $1) }, model: embedder.modelID)
            for (passage, vector) in zip(chunk, made) { vectors[passage.id] = vector }
            progress?(min(start + 256, passages.count), passages.count)
        }
        return vectors
    }

    /// Which index a search ran on, for turn snapshots and replays: the count of committed changes
    /// to the passages (`v12`), the embedding model, and the BM25 parameters. Two searches with the
    /// same version saw the same passages and vectors.
    public func indexVersion() async throws -> String {
        let number: Int
        if let cached = version.withLock({ $0 }) {
            number = cached
        } else {
            number = try await store.metaValue(Self.indexVersionKey).flatMap { Int($0) } ?? 0
            version.withLock { $0 = $0 ?? number }
        }
        return "v\(number) \(embedder?.modelID ?? "lexical-only") bm25(k1=\(configuration.k1),b=\(configuration.b))"
    }

    /// Applies the changes committed since this node's index was built or last caught up (by
    /// other nodes on a shared database, or by other processes on the same file), so that its
    /// searches see them: a story ingested, deleted or made private anywhere is found, or not,
    /// here too. Returns the change-log position the index now holds, nil while no index is
    /// loaded (loading reads everything). The service calls it a few times a second.
    @discardableResult
    public func catchUp(batchSize: Int = 500) async throws -> Int64? {
        try await writes.run {
            guard var applied = state.withLock({ $0?.changeSequence }) else { return nil }
            while true {
                let changes = try await store.changes(after: applied, limit: batchSize)
                guard let last = changes.last else { break }
                if changes.contains(where: { $0.kind == .all }) {
                    // Every vector was dropped (a reindex): nothing short of a rebuild is current.
                    let rebuilt = try await buildState()
                    state.withLock { $0 = rebuilt }
                    applied = rebuilt.changeSequence
                } else {
                    try await apply(changes, upTo: last.sequence)
                    applied = last.sequence
                }
                version.withLock { $0 = nil }
                if changes.count < batchSize { break }
            }
            return applied
        }
    }

    /// The position in the change log this node's index holds (nil before it is loaded).
    public func appliedChange() -> Int64? {
        state.withLock { $0?.changeSequence }
    }

    /// Reads each changed story as it now stands and puts it in the index (or takes it out, when
    /// it is gone). Called under `writes`.
    private func apply(_ changes: [StoryChange], upTo sequence: Int64) async throws {
        var seen = Set<String>()
        let storyIDs = changes.map(\.storyID).filter { seen.insert($0).inserted }
        var present: [(story: Story, passages: [Passage], vectors: [String: [Float]])] = []
        var gone: [String] = []
        for id in storyIDs {
            guard let story = try await store.story(id: id) else {
                gone.append(id)
                continue
            }
            let passages = try await store.passages(storyID: id)
            var vectors: [String: [Float]] = [:]
            if let embedder, !passages.isEmpty {
                vectors = try await store.embeddings(model: embedder.modelID, passageIDs: passages.map(\.id))
            }
            present.append((story, passages, vectors))
        }
        guard let analyzer = state.withLock({ $0?.index.analyzer }) else { return }
        let prepared = PassageIndex.prepare(present.map { (StoryFacets(story: $0.story), Self.documents(for: $0.story, passages: $0.passages, vectors: $0.vectors)) },
                                            analyzer: analyzer)
        state.withLock { state in
            guard state != nil else { return }
            for id in gone {
                state!.index.removeStory(id)
                state!.replace(storyID: id, story: nil, passages: [])
            }
            state!.index.apply(prepared)
            for entry in present {
                state!.replace(storyID: entry.story.artifactID, story: entry.story, passages: entry.passages,
                               metadata: Self.metadataTerms(entry.story, analyzer))
            }
            state!.spelling = nil
            state!.generation += 1
            state!.changeSequence = max(state!.changeSequence, sequence)
        }
    }

    /// Called under `writes` after a committed change.
    private func bumpIndexVersion() async throws {
        let next = (try await store.metaValue(Self.indexVersionKey).flatMap { Int($0) } ?? 0) + 1
        try await store.setMetaValue(Self.indexVersionKey, String(next))
        version.withLock { $0 = next }
    }

    /// How many passages the index holds (building it if needed).
    public func indexedPassageCount() async throws -> Int { try await snapshot().index.documentCount }

    static func metadataTerms(_ story: Story, _ analyzer: TextAnalyzer) -> Set<String> {
        Set(analyzer.terms(in: ([story.title] + story.allPeople + story.allPlaces + story.allTopics).joined(separator: " ; ")))
    }

    /// The searchable fields of each passage: its text, its story's metadata, its vector.
    static func documents(for story: Story, passages: [Passage], vectors: [String: [Float]] = [:]) -> [SearchDocument] {
        let people = story.allPeople.joined(separator: "; ")
        let places = story.allPlaces.joined(separator: "; ")
        let topics = story.allTopics.joined(separator: "; ")
        return passages.map { passage in
            SearchDocument(id: passage.id, storyID: story.artifactID, fields: [
                .text: passage.text, .title: story.title, .people: people, .places: places, .topics: topics,
            ], vector: vectors[passage.id])
        }
    }
}
