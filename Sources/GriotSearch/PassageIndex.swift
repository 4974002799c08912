import GriotStories
import GriotText

/// The fields of a passage that search looks at. Story metadata is indexed with every passage
/// of the story, so a question that names a person finds that person's stories.
public enum IndexField: Int, Sendable, CaseIterable, Hashable, Codable {
    case text, title, people, places, topics
}

/// BM25 settings. `fieldWeights` multiply a field's term frequency before saturation (BM25F).
public struct BM25Configuration: Sendable, Hashable {
    public var k1: Float = 1.2
    public var b: Float = 0.75
    public var fieldWeights: [IndexField: Float] = [.text: 1.0, .title: 2.0, .people: 1.5, .places: 1.5, .topics: 1.0]

    public init(k1: Float = 1.2, b: Float = 0.75, fieldWeights: [IndexField: Float]? = nil) {
        self.k1 = k1
        self.b = b
        if let fieldWeights { self.fieldWeights = fieldWeights }
    }
}

/// One searchable unit: a passage, with the texts of its fields.
public struct SearchDocument: Sendable {
    public var id: String
    public var storyID: String
    public var fields: [IndexField: String]
    /// The passage's embedding (unit length), for the dense arm; nil leaves it out of that arm.
    public var vector: [Float]?

    public init(id: String, storyID: String, fields: [IndexField: String], vector: [Float]? = nil) {
        self.id = id
        self.storyID = storyID
        self.fields = fields
        self.vector = vector
    }
}

/// A batch of stories whose text is already analysed (see `PassageIndex.prepare`).
public struct PreparedBatch: Sendable {
    public struct Document: Sendable {
        var id: String
        var terms: [String]
        var frequencies: [[UInt16]]
        var lengths: [UInt32]
        var vector: [Float]?
    }

    var stories: [(StoryFacets, [Document])]
}

/// A ranked result.
public struct SearchHit: Sendable, Hashable {
    public var documentID: String
    public var storyID: String
    public var score: Float
}

/// An inverted index scored with BM25F, with access and facet filters applied while scoring.
///
/// Scoring is exact: every posting of every query term is visited (term at a time into a
/// score array), and the top k are kept in a heap. A document the filter rejects is skipped
/// before its score is touched, so a story the viewer may not see never enters the ranking.
/// Deleted documents are tombstoned and their postings dropped when a quarter are dead.
///
/// ```swift
/// var index = PassageIndex()
/// index.replaceStory(StoryFacets(story: story), documents: documents)
/// let hits = index.search("flood levee", filter: SearchFilter(viewer: .anonymous), k: 10)
/// ```
public struct PassageIndex: Sendable {
    public internal(set) var configuration: BM25Configuration
    public let analyzer: TextAnalyzer

    static let fieldCount = IndexField.allCases.count

    // Terms and postings. Postings are in ascending document order.
    var termIDs: [String: Int32] = [:]
    var postingDocs: [[Int32]] = []
    /// Term frequency per field, `fieldCount` entries per posting.
    var postingFrequencies: [[UInt16]] = []
    /// Live documents per term.
    var documentFrequency: [Int32] = []

    // Documents.
    var documentIDs: [String] = []
    var documentStory: [Int32] = []
    var documentLengths: [UInt32] = []
    var documentTerms: [[Int32]] = []
    var alive: [Bool] = []
    /// `weight / (1 - b + b * length / average length)` per document and field.
    var fieldNorms: [Float] = []
    var liveDocumentCount = 0
    var fieldLengthTotals = [Double](repeating: 0, count: fieldCount)

    // Vectors, for the dense arm: `dimension` floats per document (zeros where none was given),
    // and an int8 copy (one scale per vector) that the scan reads first: a quarter of the bytes.
    var dimension = 0
    var vectors: [Float] = []
    var quantized: [Int8] = []
    var scales: [Float] = []
    var hasVector: [Bool] = []

    // Stories.
    var storyIndex: [String: Int32] = [:]
    var stories: [StoryFacets] = []
    var storyDocuments: [[Int32]] = []
    /// 1 for public stories, 0 for others (decided per query): the access-only starting point.
    var publicVerdicts: [UInt8] = []

    public init(configuration: BM25Configuration = BM25Configuration(), analyzer: TextAnalyzer = TextAnalyzer()) {
        self.configuration = configuration
        self.analyzer = analyzer
    }

    public var documentCount: Int { liveDocumentCount }
    /// Live documents that carry a vector.
    public var vectorCount: Int { zip(alive, hasVector).filter { $0 && $1 }.count }

    /// Every term with its live document frequency: the vocabulary the spelling expander searches.
    public var vocabulary: [String: Int] {
        var terms: [String: Int] = [:]
        terms.reserveCapacity(termIDs.count)
        for (term, id) in termIDs where documentFrequency[Int(id)] > 0 { terms[term] = Int(documentFrequency[Int(id)]) }
        return terms
    }
    public var termCount: Int { termIDs.count }
    public var storyCount: Int { storyIndex.count }

    // MARK: Changes

    /// Adds or replaces a story and all of its documents; access changes take effect at once.
    public mutating func replaceStory(_ facets: StoryFacets, documents: [SearchDocument]) {
        addStories([(facets, documents)])
    }

    /// Adds or replaces many stories, recomputing length statistics once at the end.
    public mutating func addStories(_ batch: [(StoryFacets, [SearchDocument])]) {
        apply(prepare(batch))
    }

    /// Text analysis for a batch, done without touching the index, so that a caller holding
    /// a lock around the index can analyse first and hold the lock only for `apply`.
    public func prepare(_ batch: [(StoryFacets, [SearchDocument])]) -> PreparedBatch {
        Self.prepare(batch, analyzer: analyzer)
    }

    public static func prepare(_ batch: [(StoryFacets, [SearchDocument])], analyzer: TextAnalyzer) -> PreparedBatch {
        PreparedBatch(stories: batch.map { facets, documents in
            (facets, documents.map { document in
                var frequencies: [String: [UInt16]] = [:]
                var lengths = [UInt32](repeating: 0, count: Self.fieldCount)
                for (field, text) in document.fields {
                    for term in analyzer.terms(in: text) {
                        frequencies[term, default: [UInt16](repeating: 0, count: Self.fieldCount)][field.rawValue] &+= 1
                        lengths[field.rawValue] += 1
                    }
                }
                // Sorted so that the same text always builds the same postings.
                let terms = frequencies.keys.sorted()
                return PreparedBatch.Document(id: document.id, terms: terms, frequencies: terms.map { frequencies[$0]! },
                                              lengths: lengths, vector: document.vector)
            })
        })
    }

    /// Adds or replaces the prepared stories.
    public mutating func apply(_ batch: PreparedBatch) {
        for (facets, documents) in batch.stories {
            let story = upsertStory(facets)
            for document in storyDocuments[Int(story)] { tombstone(document) }
            storyDocuments[Int(story)] = documents.map { addDocument($0, story: story) }
        }
        refreshNorms()
        compactIfNeeded()
    }

    /// Removes a story and its documents. Returns false when the story was not indexed.
    @discardableResult
    public mutating func removeStory(_ storyID: String) -> Bool {
        guard let story = storyIndex.removeValue(forKey: storyID) else { return false }
        for document in storyDocuments[Int(story)] { tombstone(document) }
        storyDocuments[Int(story)] = []
        // The slot stays, marked unreachable, so document-to-story numbers stay valid.
        stories[Int(story)] = StoryFacets(storyID: storyID, privacy: .private)
        publicVerdicts[Int(story)] = 2
        refreshNorms()
        compactIfNeeded()
        return true
    }

    /// Changes who may see a story (and its facets) without touching its documents.
    public mutating func updateFacets(_ facets: StoryFacets) {
        if let story = storyIndex[facets.storyID] {
            stories[Int(story)] = facets
            publicVerdicts[Int(story)] = facets.privacy == .public ? 1 : 0
        }
    }

    private mutating func upsertStory(_ facets: StoryFacets) -> Int32 {
        if let existing = storyIndex[facets.storyID] {
            stories[Int(existing)] = facets
            publicVerdicts[Int(existing)] = facets.privacy == .public ? 1 : 0
            return existing
        }
        let story = Int32(stories.count)
        storyIndex[facets.storyID] = story
        stories.append(facets)
        storyDocuments.append([])
        publicVerdicts.append(facets.privacy == .public ? 1 : 0)
        return story
    }

    private mutating func addDocument(_ document: PreparedBatch.Document, story: Int32) -> Int32 {
        let documentNumber = Int32(documentIDs.count)
        var termNumbers: [Int32] = []
        termNumbers.reserveCapacity(document.terms.count)
        for (term, frequencies) in zip(document.terms, document.frequencies) {
            let termID = internTerm(term)
            termNumbers.append(termID)
            postingDocs[Int(termID)].append(documentNumber)
            postingFrequencies[Int(termID)].append(contentsOf: frequencies)
            documentFrequency[Int(termID)] += 1
        }
        documentIDs.append(document.id)
        documentStory.append(story)
        documentLengths.append(contentsOf: document.lengths)
        documentTerms.append(termNumbers)
        alive.append(true)
        fieldNorms.append(contentsOf: [Float](repeating: 0, count: Self.fieldCount))
        if dimension == 0, let vector = document.vector {
            dimension = vector.count
            // The documents added before the first vector (a follower applies a story before its
            // vectors are stored) took no room; give them theirs, so that document d's vector
            // starts at d * dimension. Without this the scan read past the end and crashed.
            let earlier = documentIDs.count - 1
            vectors = [Float](repeating: 0, count: earlier * dimension)
            quantized = [Int8](repeating: 0, count: earlier * dimension)
        }
        if let vector = document.vector, vector.count == dimension {
            vectors.append(contentsOf: vector)
            let (codes, scale) = Self.quantize(vector)
            quantized.append(contentsOf: codes)
            scales.append(scale)
            hasVector.append(true)
        } else {
            vectors.append(contentsOf: [Float](repeating: 0, count: dimension))
            quantized.append(contentsOf: [Int8](repeating: 0, count: dimension))
            scales.append(0)
            hasVector.append(false)
        }
        liveDocumentCount += 1
        for field in 0..<Self.fieldCount { fieldLengthTotals[field] += Double(document.lengths[field]) }
        return documentNumber
    }

    private mutating func internTerm(_ term: String) -> Int32 {
        if let id = termIDs[term] { return id }
        let id = Int32(postingDocs.count)
        termIDs[term] = id
        postingDocs.append([])
        postingFrequencies.append([])
        documentFrequency.append(0)
        return id
    }

    private mutating func tombstone(_ document: Int32) {
        let number = Int(document)
        guard alive[number] else { return }
        alive[number] = false
        liveDocumentCount -= 1
        for termID in documentTerms[number] { documentFrequency[Int(termID)] -= 1 }
        for field in 0..<Self.fieldCount {
            fieldLengthTotals[field] -= Double(documentLengths[number * Self.fieldCount + field])
        }
        documentTerms[number] = []
    }

    /// Length normalisation depends on the average field lengths, so it is recomputed after
    /// every batch of changes (linear in the number of documents, not of postings).
    private mutating func refreshNorms() {
        let count = Self.fieldCount
        let b = configuration.b
        var weights = [Float](repeating: 0, count: count)
        var averages = [Float](repeating: 1, count: count)
        for field in IndexField.allCases {
            weights[field.rawValue] = configuration.fieldWeights[field] ?? 0
            if liveDocumentCount > 0 {
                averages[field.rawValue] = max(Float(fieldLengthTotals[field.rawValue] / Double(liveDocumentCount)), 1e-6)
            }
        }
        fieldNorms.withUnsafeMutableBufferPointer { norms in
            documentLengths.withUnsafeBufferPointer { lengths in
                for document in 0..<alive.count {
                    for field in 0..<count {
                        let relative = Float(lengths[document * count + field]) / averages[field]
                        norms[document * count + field] = weights[field] / (1 - b + b * relative)
                    }
                }
            }
        }
    }

    /// Once a quarter of the documents are dead, drops them: postings, per-document arrays
    /// and numbers, so a long-running index does not grow with every re-ingest.
    private mutating func compactIfNeeded() {
        let dead = alive.count - liveDocumentCount
        guard dead > 256, dead * 4 > alive.count else { return }
        let count = Self.fieldCount
        var renumbered = [Int32](repeating: -1, count: alive.count)
        var next: Int32 = 0
        for document in alive.indices where alive[document] {
            renumbered[document] = next
            next += 1
        }
        for term in 0..<postingDocs.count {
            var docs: [Int32] = []
            var frequencies: [UInt16] = []
            docs.reserveCapacity(Int(documentFrequency[term]))
            frequencies.reserveCapacity(Int(documentFrequency[term]) * count)
            for (position, document) in postingDocs[term].enumerated() where alive[Int(document)] {
                docs.append(renumbered[Int(document)])
                frequencies.append(contentsOf: postingFrequencies[term][position * count..<(position + 1) * count])
            }
            postingDocs[term] = docs
            postingFrequencies[term] = frequencies
        }
        func keepLive<T>(_ values: [T], stride: Int = 1) -> [T] {
            var kept: [T] = []
            kept.reserveCapacity(liveDocumentCount * stride)
            for document in alive.indices where alive[document] {
                kept.append(contentsOf: values[document * stride..<(document + 1) * stride])
            }
            return kept
        }
        documentIDs = keepLive(documentIDs)
        documentStory = keepLive(documentStory)
        documentLengths = keepLive(documentLengths, stride: count)
        documentTerms = keepLive(documentTerms)
        fieldNorms = keepLive(fieldNorms, stride: count)
        vectors = keepLive(vectors, stride: dimension)
        quantized = keepLive(quantized, stride: dimension)
        scales = keepLive(scales)
        hasVector = keepLive(hasVector)
        storyDocuments = storyDocuments.map { $0.map { renumbered[Int($0)] } }
        alive = [Bool](repeating: true, count: liveDocumentCount)
    }

    /// Whether the index holds a term (after analysis), in any story: callers must not show
    /// such a term to a viewer unless a search the viewer may run finds it.
    public func contains(term: String) -> Bool { termIDs[term].map { documentFrequency[Int($0)] > 0 } ?? false }
}

