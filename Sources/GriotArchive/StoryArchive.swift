import Foundation
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
    private let writes = Mutex<Void>(())
    private let state = Mutex<State?>(nil)

    struct State {
        var index: BM25Index
        var passages: [String: Passage] = [:]
        var passageIDsByStory: [String: [String]] = [:]
        var titles: [String: String] = [:]

        mutating func replace(storyID: String, title: String?, passages newPassages: [Passage]) {
            for id in passageIDsByStory[storyID] ?? [] { passages[id] = nil }
            titles[storyID] = title
            passageIDsByStory[storyID] = newPassages.isEmpty ? nil : newPassages.map(\.id)
            for passage in newPassages { passages[passage.id] = passage }
        }
    }

    public init(store: StoryStore, configuration: BM25Configuration = BM25Configuration(), splitter: PassageSplitter = PassageSplitter()) throws {
        self.store = store
        self.configuration = configuration
        self.splitter = splitter
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
        var built = State(index: BM25Index(configuration: configuration))
        let stories = try store.allStories()
        var passagesByStory: [String: [Passage]] = [:]
        for passage in try store.allPassages() { passagesByStory[passage.storyID, default: []].append(passage) }
        built.index.addStories(stories.map { story in
            (StoryFacets(story: story), Self.documents(for: story, passages: passagesByStory[story.artifactID] ?? []))
        })
        for story in stories {
            built.replace(storyID: story.artifactID, title: story.title, passages: passagesByStory[story.artifactID] ?? [])
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
                    let outcomes = try store.save(batch.map { (story: $0.0, passages: $0.1) }, revision: splitter.revision)
                    summary.count(outcomes)
                    let changed = zip(batch, outcomes).filter { $0.1 != .unchanged }.map(\.0)
                    guard !changed.isEmpty, let analyzer = state.withLock({ $0?.index.analyzer }) else { return }
                    let prepared = BM25Index.prepare(changed.map { (StoryFacets(story: $0.0), Self.documents(for: $0.0, passages: $0.1)) }, analyzer: analyzer)
                    state.withLock { state in
                        guard state != nil else { return }
                        state!.index.apply(prepared)
                        for (story, passages) in changed {
                            state!.replace(storyID: story.artifactID, title: story.title, passages: passages)
                        }
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
            state.withLock { state in
                guard state != nil else { return }
                state!.index.removeStory(storyID)
                state!.replace(storyID: storyID, title: nil, passages: [])
            }
            return deleted
        }
    }

    /// The top passages for a query among those the filter admits, with snippets.
    public func search(_ query: String, filter: SearchFilter, k: Int = 10) throws -> [PassageResult] {
        let snapshot = try snapshot()
        let hits = snapshot.index.search(query, filter: filter, k: k)
        let terms = Set(snapshot.index.queryTerms(query).map(\.term))
        let snippets = SnippetBuilder(analyzer: snapshot.index.analyzer)
        return hits.compactMap { hit in
            guard let passage = snapshot.passages[hit.documentID] else { return nil }
            return PassageResult(
                passage: passage, storyTitle: snapshot.titles[hit.storyID] ?? hit.storyID,
                score: hit.score, snippet: snippets.snippet(of: passage.text, terms: terms))
        }
    }

    /// How many passages the index holds (building it if needed).
    public func indexedPassageCount() throws -> Int { try snapshot().index.documentCount }

    /// The searchable fields of each passage: its text, and its story's metadata.
    static func documents(for story: Story, passages: [Passage]) -> [SearchDocument] {
        let people = story.allPeople.joined(separator: "; ")
        let places = story.allPlaces.joined(separator: "; ")
        let topics = story.allTopics.joined(separator: "; ")
        return passages.map { passage in
            SearchDocument(id: passage.id, storyID: story.artifactID, fields: [
                .text: passage.text, .title: story.title, .people: people, .places: places, .topics: topics,
            ])
        }
    }
}
