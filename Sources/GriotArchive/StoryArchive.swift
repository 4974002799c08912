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

/// The stories of one database and their search index, kept in step: every change goes to
/// SQLite first (one transaction per batch) and then to the in-memory index, so the index
/// never holds what the database lost, and a restart rebuilds it from the database.
///
/// Searches read a snapshot of the index taken under a lock (a cheap copy-on-write copy),
/// so they never wait for an ingest to finish scoring and never see half an ingest.
///
/// ```swift
/// let archive = try StoryArchive(store: StoryStore(path: "griot.sqlite"))
/// try archive.ingest(stories)
/// let results = archive.search("the flood", filter: SearchFilter(viewer: .anonymous))
/// ```
public final class StoryArchive: Sendable {
    public let store: StoryStore
    public let splitter: PassageSplitter
    private let state: Mutex<State>

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
        self.splitter = splitter
        var state = State(index: BM25Index(configuration: configuration))
        let stories = try store.allStories()
        var passagesByStory: [String: [Passage]] = [:]
        for passage in try store.allPassages() { passagesByStory[passage.storyID, default: []].append(passage) }
        state.index.addStories(stories.map { story in
            let passages = passagesByStory[story.artifactID] ?? []
            return (StoryFacets(story: story), Self.documents(for: story, passages: passages))
        })
        for story in stories {
            state.replace(storyID: story.artifactID, title: story.title, passages: passagesByStory[story.artifactID] ?? [])
        }
        self.state = Mutex(state)
    }

    public var storyCount: Int { state.withLock { $0.index.storyCount } }
    public var passageCount: Int { state.withLock { $0.index.documentCount } }

    /// Stores and indexes stories, in batches; `progress` hears (stories done, total).
    @discardableResult
    public func ingest(_ stories: [Story], batchSize: Int = 64, progress: (@Sendable (Int, Int) -> Void)? = nil) throws -> StoreSummary {
        var summary = StoreSummary()
        var done = 0
        for start in stride(from: 0, to: stories.count, by: batchSize) {
            let batch = stories[start..<min(start + batchSize, stories.count)].map { ($0, splitter.passages(of: $0)) }
            let saved = try store.save(batch.map { (story: $0.0, passages: $0.1) })
            summary.added += saved.added
            summary.updated += saved.updated
            summary.unchanged += saved.unchanged
            let documents = batch.map { (StoryFacets(story: $0.0), Self.documents(for: $0.0, passages: $0.1)) }
            state.withLock { state in
                for (story, passages) in batch {
                    state.replace(storyID: story.artifactID, title: story.title, passages: passages)
                }
                state.index.addStories(documents)
            }
            done += batch.count
            progress?(done, stories.count)
        }
        return summary
    }

    /// Deletes a story and its passages from the database and the index.
    @discardableResult
    public func delete(storyID: String) throws -> Bool {
        let deleted = try store.delete(storyID: storyID)
        state.withLock { state in
            state.index.removeStory(storyID)
            state.replace(storyID: storyID, title: nil, passages: [])
        }
        return deleted
    }

    /// The top passages for a query among those the filter admits, with snippets.
    public func search(_ query: String, filter: SearchFilter, k: Int = 10) -> [PassageResult] {
        let snapshot = state.withLock { $0 }
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
