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
/// SQLite first (one transaction per batch) and then to the in-memory index, so the index
/// never holds what the database lost, and a restart rebuilds it from the database.
///
/// Writers take turns (one writer lock held across the database write and the index
/// update), so the index applies changes in the order the database committed them. The index
/// is built on the first search, so commands that only write never pay for it. Searches read
/// a copy-on-write snapshot taken under a short lock; text is analysed before that lock is
/// taken, so an ingest holds it only to append postings.
///
/// ```swift
/// let archive = try StoryArchive(store: StoryStore(path: "griot.sqlite"))
/// try archive.ingest(stories)
/// let results = try archive.search("the flood", filter: SearchFilter(viewer: .anonymous))
/// ```
public final class StoryArchive: Sendable {
    public let store: StoryStore
    public let splitter: PassageSplitter
    public let configuration: BM25Configuration
    /// Makes passage and query vectors; without one the archive searches with BM25 only.
    public let embedder: SentenceEmbedder?
    private let writes = Mutex<Void>(())
    private let state = Mutex<State?>(nil)
    /// The index version as last read or written (`indexVersion()`).
    private let version = Mutex<Int?>(nil)

    /// The meta key of the index version: a count of the committed changes to the stories'
    /// passages (ingests that changed something, deletes, reindexes), kept in the database.
    static let indexVersionKey = "index_version"

    struct State {
        var index: PassageIndex
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

        mutating func replace(storyID: String, title: String?, passages newPassages: [Passage], metadata: Set<String> = []) {
            for id in passageIDsByStory[storyID] ?? [] { passages[id] = nil }
            titles[storyID] = title
            metadataTerms[storyID] = metadata.isEmpty ? nil : metadata
            passageIDsByStory[storyID] = newPassages.isEmpty ? nil : newPassages.map(\.id)
            for passage in newPassages { passages[passage.id] = passage }
        }
    }

    public init(store: StoryStore, configuration: BM25Configuration = BM25Configuration(), splitter: PassageSplitter = PassageSplitter(),
                embedder: SentenceEmbedder? = nil) throws {
        self.store = store
        self.configuration = configuration
        self.splitter = splitter
        self.embedder = embedder
    }

    public func storyCount() throws -> Int { try store.storyCount() }

    /// The index and passages as of the last committed change, building them on first use.
    private func snapshot() throws -> State {
        if let loaded = state.withLock({ $0 }) { return loaded }
        return try writes.withLock { _ in
            if let loaded = state.withLock({ $0 }) { return loaded }
            let built = try buildState()
            state.withLock { $0 = built }
            return built
        }
    }

    private func buildState() throws -> State {
        var built = State(index: PassageIndex(configuration: configuration))
        let stories = try store.allStories()
        let passages = try store.allPassages()
        var passagesByStory: [String: [Passage]] = [:]
        for passage in passages { passagesByStory[passage.storyID, default: []].append(passage) }
        var vectors: [String: [Float]] = [:]
        if let embedder {
            vectors = try store.embeddings(model: embedder.modelID)
            // Passages stored without a vector (an interrupted ingest, another model) get one now.
            let missing = passages.filter { vectors[$0.id] == nil }
            if !missing.isEmpty {
                let made = try embed(missing, with: embedder)
                for (id, vector) in made { vectors[id] = vector }
            }
        }
        built.index.addStories(stories.map { story in
            (StoryFacets(story: story), Self.documents(for: story, passages: passagesByStory[story.artifactID] ?? [], vectors: vectors))
        })
        for story in stories {
            built.replace(storyID: story.artifactID, title: story.title, passages: passagesByStory[story.artifactID] ?? [],
                          metadata: Self.metadataTerms(story, built.index.analyzer))
        }
        return built
    }

    /// Stores and indexes stories in batches; `progress` hears (stories done, total).
    /// Stories whose stored copy is identical are left alone.
    @discardableResult
    public func ingest(_ stories: [Story], batchSize: Int = 64, progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> StoreSummary {
        var summary = StoreSummary()
        var done = 0
        for start in stride(from: 0, to: stories.count, by: batchSize) {
            let batch = stories[start..<min(start + batchSize, stories.count)].map { ($0, splitter.passages(of: $0)) }
            do {
                try writes.withLock { _ in
                    // Vectors of passages whose text is unchanged are kept, whatever happens to their story.
                    let kept = try embedder.map { try store.embeddings(model: $0.modelID, passageIDs: batch.flatMap { $0.1.map(\.id) }) } ?? [:]
                    let outcomes = try store.save(batch.map { (story: $0.0, passages: $0.1) }, revision: splitter.revision)
                    summary.count(outcomes)
                    let changed = zip(batch, outcomes).filter { $0.1 != .unchanged }.map(\.0)
                    var vectors = kept
                    if let embedder {
                        // Saving a changed story dropped its passages' rows, vectors included: put back the kept ones.
                        let changedPassages = changed.flatMap(\.1)
                        try store.saveEmbeddings(changedPassages.compactMap { passage in kept[passage.id].map { (passageID: passage.id, vector: $0) } },
                                                 model: embedder.modelID)
                        for (id, vector) in try embed(changedPassages.filter { kept[$0.id] == nil }, with: embedder) { vectors[id] = vector }
                    }
                    if !changed.isEmpty { try bumpIndexVersion() }
                    guard !changed.isEmpty, let analyzer = state.withLock({ $0?.index.analyzer }) else { return }
                    let prepared = PassageIndex.prepare(changed.map { (StoryFacets(story: $0.0), Self.documents(for: $0.0, passages: $0.1, vectors: vectors)) }, analyzer: analyzer)
                    state.withLock { state in
                        guard state != nil else { return }
                        state!.index.apply(prepared)
                        for (story, passages) in changed {
                            state!.replace(storyID: story.artifactID, title: story.title, passages: passages,
                                           metadata: Self.metadataTerms(story, analyzer))
                        }
                        state!.spelling = nil
                        state!.generation += 1
                    }
                }
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
    public func delete(storyID: String) throws -> Bool {
        try writes.withLock { _ in
            let deleted = try store.delete(storyID: storyID)
            if deleted { try bumpIndexVersion() }
            state.withLock { state in
                guard state != nil else { return }
                state!.index.removeStory(storyID)
                state!.replace(storyID: storyID, title: nil, passages: [])
                state!.spelling = nil
                state!.generation += 1
            }
            return deleted
        }
    }

    /// The top passages for a query among those the filter admits, with snippets.
    public func search(_ query: String, filter: SearchFilter, k: Int = 10, settings: RetrievalSettings = RetrievalSettings()) throws -> SearchOutcome {
        var snapshot = try snapshot()
        let needsVectors = settings.mode != .lexical
        guard !needsVectors || embedder != nil else {
            throw EmbeddingError.modelMissing(path: SentenceEmbedder.defaultModelFolder.path)
        }
        let depth = max(k, settings.candidatesPerArm)
        var terms = snapshot.index.queryTerms(query).map { (term: $0.term, weight: Float($0.count)) }
        var expansions: [String: [String]] = [:]
        if settings.expandsSpelling, settings.mode != .dense {
            if snapshot.spelling == nil {
                let built = SpellingExpander(vocabulary: snapshot.index.vocabulary)
                snapshot.spelling = built
                let generation = snapshot.generation
                state.withLock { if $0?.generation == generation { $0!.spelling = built } }
            }
            for (term, weight) in terms where !snapshot.index.contains(term: term) {
                let found = snapshot.spelling!.expansions(of: term)
                expansions[term] = found.map(\.term)
                // A nearer spelling counts for more; none counts as much as the word itself would.
                terms += found.map { (term: $0.term, weight: weight * ($0.distance == 1 ? 0.8 : 0.6)) }
            }
        }
        let lexical = settings.mode == .dense ? [] : snapshot.index.search(terms: terms, filter: filter, k: depth)
        var dense: [SearchHit] = []
        if needsVectors, let embedder {
            dense = snapshot.index.searchDense(vector: embedder.embed(query), filter: filter, k: depth)
        }
        let fused: [FusedHit]
        switch settings.mode {
        case .hybrid: fused = HybridFusion.fuse(lexical: lexical, dense: dense, method: settings.fusion, k: k)
        case .lexical: fused = HybridFusion.single(lexical, lexical: true, k: k)
        case .dense: fused = HybridFusion.single(dense, lexical: false, k: k)
        }
        let highlighted = Set(terms.map(\.term))
        let snippets = SnippetBuilder(analyzer: snapshot.index.analyzer)
        let results: [PassageResult] = fused.compactMap { hit in
            guard let passage = snapshot.passages[hit.documentID] else { return nil }
            return PassageResult(
                passage: passage, storyTitle: snapshot.titles[hit.storyID] ?? hit.storyID, score: hit.score,
                snippet: snippets.snippet(of: passage.text, terms: highlighted), lexical: hit.lexical, dense: hit.dense)
        }
        // Say which spellings were used only where a result the viewer may see contains them,
        // so that no word of a story they may not see is revealed.
        var shown = Set(results.flatMap { snapshot.index.analyzer.terms(in: $0.passage.text) })
        for result in results { shown.formUnion(snapshot.metadataTerms[result.passage.storyID] ?? []) }
        let visibleExpansions = expansions.mapValues { $0.filter(shown.contains) }.filter { !$0.value.isEmpty }
        return SearchOutcome(results: results, spellingExpansions: visibleExpansions)
    }

    /// Named passages in the order given, with the scores given, leaving out any the filter does
    /// not admit (a story since made private) or the index no longer holds: a replay of a turn
    /// on the passages it retrieved.
    public func passages(_ pinned: [(id: String, score: Float)], filter: SearchFilter) throws -> SearchOutcome {
        let snapshot = try snapshot()
        var admitted: [String: Bool] = [:]
        var results: [PassageResult] = []
        let snippets = SnippetBuilder(analyzer: snapshot.index.analyzer)
        for (id, score) in pinned {
            guard let passage = snapshot.passages[id] else { continue }
            if admitted[passage.storyID] == nil {
                admitted[passage.storyID] = try store.story(id: passage.storyID).map(filter.admits) ?? false
            }
            guard admitted[passage.storyID] == true else { continue }
            results.append(PassageResult(passage: passage, storyTitle: snapshot.titles[passage.storyID] ?? passage.storyID, score: score,
                                         snippet: snippets.snippet(of: passage.text, terms: []),
                                         lexical: nil, dense: nil))
        }
        return SearchOutcome(results: results, spellingExpansions: [:])
    }

    /// Re-embeds every passage with the current model (after a model change), then rebuilds
    /// the index; `progress` hears (passages done, total).
    public func reindex(progress: ((Int, Int) -> Void)? = nil) throws -> Int {
        guard let embedder else { throw EmbeddingError.modelMissing(path: SentenceEmbedder.defaultModelFolder.path) }
        return try writes.withLock { _ in
            let passages = try store.allPassages()
            try store.deleteAllEmbeddings()
            _ = try embed(passages, with: embedder, progress: progress)
            let rebuilt = try buildState()
            state.withLock { $0 = rebuilt }
            try bumpIndexVersion()
            return passages.count
        }
    }

    /// Embeds passages in chunks and stores each chunk's vectors as it is done.
    private func embed(_ passages: [Passage], with embedder: SentenceEmbedder, progress: ((Int, Int) -> Void)? = nil) throws -> [String: [Float]] {
        var vectors: [String: [Float]] = [:]
        for start in stride(from: 0, to: passages.count, by: 256) {
            let chunk = Array(passages[start..<min(start + 256, passages.count)])
            let made = embedder.embed(chunk.map(\.text))
            try store.saveEmbeddings(zip(chunk, made).map { (passageID: $0.id, vector: $1) }, model: embedder.modelID)
            for (passage, vector) in zip(chunk, made) { vectors[passage.id] = vector }
            progress?(min(start + 256, passages.count), passages.count)
        }
        return vectors
    }

    /// Which index a search ran on, for turn snapshots and replays: the count of committed changes
    /// to the passages (`v12`), the embedding model, and the BM25 parameters. Two searches with the
    /// same version saw the same passages and vectors.
    public func indexVersion() throws -> String {
        let number = try version.withLock { cached in
            if let cached { return cached }
            let stored = try store.metaValue(Self.indexVersionKey).flatMap { Int($0) } ?? 0
            cached = stored
            return stored
        }
        return "v\(number) \(embedder?.modelID ?? "lexical-only") bm25(k1=\(configuration.k1),b=\(configuration.b))"
    }

    /// Called under `writes` after a committed change.
    private func bumpIndexVersion() throws {
        let next = (try store.metaValue(Self.indexVersionKey).flatMap { Int($0) } ?? 0) + 1
        try store.setMetaValue(Self.indexVersionKey, String(next))
        version.withLock { $0 = next }
    }

    /// How many passages the index holds (building it if needed).
    public func indexedPassageCount() throws -> Int { try snapshot().index.documentCount }

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
