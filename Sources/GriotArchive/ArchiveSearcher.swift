import GriotEmbedding
import GriotSearch
import GriotStories

/// The archive's index as of one committed change, searched without waiting: a turn takes one
/// on its own task (loading the index on first use reads the database) and searches it on the
/// preparation lane, whose threads must not wait for the database.
///
/// ```swift
/// let searcher = try await archive.searcher()
/// let outcome = try searcher.search("the flood", filter: SearchFilter(viewer: viewer), k: 8)
/// ```
///
/// A snapshot is a copy-on-write value that nothing mutates in place; the spelling expander it
/// may build is handed back to the archive under its lock, hence `@unchecked Sendable`.
public struct ArchiveSearcher: @unchecked Sendable {
    let archive: StoryArchive
    let snapshot: StoryArchive.State

    /// A story the index holds, as stored (nil when deleted since, or never ingested).
    public func story(id: String) -> Story? { snapshot.stories[id] }

    /// The top passages for a query among those the filter admits, with snippets.
    public func search(_ query: String, filter: SearchFilter, k: Int = 10, settings: RetrievalSettings = RetrievalSettings()) throws -> SearchOutcome {
        var snapshot = self.snapshot
        let embedder = archive.embedder
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
                archive.keepSpelling(built, generation: generation)
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
    public func passages(_ pinned: [(id: String, score: Float)], filter: SearchFilter) -> SearchOutcome {
        var admitted: [String: Bool] = [:]
        var results: [PassageResult] = []
        let snippets = SnippetBuilder(analyzer: snapshot.index.analyzer)
        for (id, score) in pinned {
            guard let passage = snapshot.passages[id] else { continue }
            if admitted[passage.storyID] == nil {
                admitted[passage.storyID] = snapshot.stories[passage.storyID].map(filter.admits) ?? false
            }
            guard admitted[passage.storyID] == true else { continue }
            results.append(PassageResult(passage: passage, storyTitle: snapshot.titles[passage.storyID] ?? passage.storyID, score: score,
                                         snippet: snippets.snippet(of: passage.text, terms: []),
                                         lexical: nil, dense: nil))
        }
        return SearchOutcome(results: results, spellingExpansions: [:])
    }
}
