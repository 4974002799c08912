import Foundation
import GriotSearch
import GriotStories
import GriotText
import Testing

@Suite struct PassageIndexTests {
    let everyone = SearchFilter(viewer: .anonymous)

    func document(_ id: String, _ text: String, story: String? = nil) -> (StoryFacets, [SearchDocument]) {
        (StoryFacets(storyID: story ?? id, privacy: .public),
         [SearchDocument(id: id, storyID: story ?? id, fields: [.text: text])])
    }

    /// BM25 computed the slow, obvious way, to check the index's scores and order.
    func naiveBM25(_ documents: [(String, String)], query: String, k1: Float = 1.2, b: Float = 0.75) -> [(String, Float)] {
        let analyzer = TextAnalyzer()
        let terms = documents.map { ($0.0, analyzer.terms(in: $0.1)) }
        let average = Float(terms.reduce(0) { $0 + $1.1.count }) / Float(terms.count)
        let n = Float(terms.count)
        return terms.map { id, words in
            var score: Float = 0
            for term in analyzer.terms(in: query) {
                let df = Float(terms.filter { $0.1.contains(term) }.count)
                guard df > 0 else { continue }
                let idf = log(1 + (n - df + 0.5) / (df + 0.5))
                let tf = Float(words.filter { $0 == term }.count)
                score += idf * tf / (tf + k1 * (1 - b + b * Float(words.count) / average))
            }
            return (id, score)
        }.filter { $0.1 > 0 }.sorted { $0.1 > $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
    }

    @Test func scoresAndOrderEqualPlainBM25OnASingleField() {
        var random = SeededRandom(seed: 7)
        let vocabulary = ["flood", "levee", "camp", "boat", "rain", "cotton", "mule", "train", "north", "chicago", "church", "pie"]
        let documents = (0..<200).map { number in
            ("d\(String(format: "%03d", number))", (0..<Int.random(in: 5...60, using: &random)).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " "))
        }
        var index = PassageIndex(configuration: BM25Configuration(fieldWeights: [.text: 1]))
        index.addStories(documents.map { document($0.0, $0.1) })
        for query in ["flood levee", "train north chicago", "pie pie church", "mule"] {
            let expected = naiveBM25(documents, query: query)
            let hits = index.search(query, filter: everyone, k: 25)
            #expect(hits.count == min(25, expected.count))
            for (hit, reference) in zip(hits, expected) {
                #expect(abs(hit.score - reference.1) < 1e-3 * max(1, reference.1), "\(query): \(hit.documentID) \(hit.score) vs \(reference)")
            }
            // Ranks agree wherever scores are not (nearly) tied.
            let expectedIDs = expected.prefix(25).map(\.0)
            #expect(Set(hits.map(\.documentID)).symmetricDifference(expectedIDs).count <= 2)
        }
    }

    @Test func metadataFieldsFindAStoryByItsPeopleAndPlaces() {
        var index = PassageIndex()
        index.addStories([
            (StoryFacets(storyID: "a", privacy: .public),
             [SearchDocument(id: "a1", storyID: "a", fields: [.text: "we rode the train", .people: "Ida Mae Carter", .places: "Clarksdale, Mississippi"])]),
            (StoryFacets(storyID: "b", privacy: .public),
             [SearchDocument(id: "b1", storyID: "b", fields: [.text: "we rode the train", .people: "Octavia Batiste", .places: "Opelousas"])]),
        ])
        #expect(index.search("train Clarksdale", filter: everyone).first?.storyID == "a")
        #expect(index.search("Octavia's train", filter: everyone).first?.storyID == "b")
    }

    @Test func replacingAndRemovingStoriesUpdatesTheIndex() {
        var index = PassageIndex()
        index.addStories([document("p1", "the levee broke at mounds landing", story: "flood"), document("p2", "sweet potato pie", story: "pie")])
        #expect(index.search("levee", filter: everyone).map(\.documentID) == ["p1"])

        index.replaceStory(StoryFacets(storyID: "flood", privacy: .public),
                           documents: [SearchDocument(id: "p3", storyID: "flood", fields: [.text: "two nights on a church roof"])])
        #expect(index.search("levee", filter: everyone).isEmpty)
        #expect(index.search("roof", filter: everyone).map(\.documentID) == ["p3"])
        #expect(index.documentCount == 2)

        let removed = index.removeStory("flood")
        #expect(removed)
        #expect(index.search("roof", filter: everyone).isEmpty)
        let removedAgain = index.removeStory("flood")
        #expect(!removedAgain)
        #expect(index.documentCount == 1)
        #expect(index.search("pie", filter: everyone).map(\.documentID) == ["p2"])
    }

    @Test func manyRemovalsCompactWithoutChangingResults() {
        var index = PassageIndex()
        index.addStories((0..<3_000).map { document("d\($0)", "story number \($0) about the \($0 % 2 == 0 ? "flood" : "train")") })
        for number in stride(from: 0, to: 3_000, by: 2) where number % 3 != 0 { index.removeStory("d\(number)") }
        let hits = index.search("flood", filter: everyone, k: 1_000)
        #expect(hits.count == 500)
        #expect(hits.allSatisfy { Int($0.documentID.dropFirst())! % 6 == 0 })
    }

    @Test func scoresAfterDeletionsEqualAFreshIndexOfWhatIsLeft() {
        var random = SeededRandom(seed: 11)
        let vocabulary = ["flood", "levee", "camp", "boat", "rain", "cotton", "mule", "train", "north", "chicago"]
        let documents = (0..<3_000).map { number in
            document("d\(number)", (0..<Int.random(in: 3...40, using: &random)).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " "))
        }
        var live = PassageIndex()
        live.addStories(documents)
        let removed = Set((0..<3_000).filter { $0 % 3 != 1 }.map { "d\($0)" })
        for id in removed.sorted() { live.removeStory(id) }
        live.addStories(Array(documents.prefix(30)))  // some come back, under new numbers
        var fresh = PassageIndex()
        fresh.addStories(documents.filter { !removed.contains($0.0.storyID) } + Array(documents.prefix(30)).filter { removed.contains($0.0.storyID) })
        #expect(live.documentCount == fresh.documentCount)
        for query in ["flood levee", "mule train north", "chicago"] {
            let a = live.search(query, filter: everyone, k: 50)
            let b = fresh.search(query, filter: everyone, k: 50)
            #expect(a.map(\.documentID) == b.map(\.documentID))
            for (x, y) in zip(a, b) { #expect(abs(x.score - y.score) < 1e-5) }
        }
    }

    @Test func termsWithoutWeightNeitherScoreNorRepeatADocument() {
        var index = PassageIndex()
        index.addStories([document("x", "flood train")])
        let hits = index.search(terms: [("flood", 0), ("train", 1)], filter: everyone, k: 10)
        #expect(hits.map(\.documentID) == ["x"])
    }

    /// A node whose index starts empty may apply a story before its vectors (the change log
    /// carries them as a later change): the dense arm then found the vectors of later documents
    /// at the wrong place, past the end of the storage, and the search crashed the node.
    @Test func documentsWithoutVectorsBeforeTheFirstVectorKeepTheDenseScanInBounds() {
        var index = PassageIndex()
        index.addStories((0..<3).map { document("plain\($0)", "the levee broke", story: "plain\($0)") })
        let unit = { (axis: Int) in (0..<8).map { $0 == axis ? Float(1) : 0 } }
        index.addStories((0..<20).map { number in
            (StoryFacets(storyID: "vec\(number)", privacy: .public),
             [SearchDocument(id: "vec\(number)", storyID: "vec\(number)", fields: [.text: "the train came"], vector: unit(number % 8))])
        })
        // The stories whose vector is the query's axis, each found with its exact score, by both scans.
        for exact in [false, true] {
            let hits = index.searchDense(vector: unit(3), filter: everyone, k: 3, exact: exact)
            #expect(Set(hits.map(\.storyID)) == ["vec3", "vec11", "vec19"], "\(hits.map { ($0.storyID, $0.score) })")
            #expect(hits.allSatisfy { abs($0.score - 1) < 1e-5 }, "\(hits.map { ($0.storyID, $0.score) })")
        }
    }

    @Test func facetFiltersNarrowByPeoplePlacesAndYears() {
        var index = PassageIndex()
        let stories = [
            Story(artifactID: "a", title: "Flood", people: ["Ida Mae Carter"], historicalContext: [HistoricalContext(year: 1927, location: Place(name: "Greenville, Mississippi"))], privacy: .public, transcript: Transcript(text: "water")),
            Story(artifactID: "b", title: "Shipyard", people: ["Octavia Batiste"], historicalContext: [HistoricalContext(year: 1943, location: Place(name: "Richmond, California"))], privacy: .public, transcript: Transcript(text: "water")),
        ]
        index.addStories(stories.map { (StoryFacets(story: $0), [SearchDocument(id: $0.artifactID, storyID: $0.artifactID, fields: [.text: "water"])]) })
        #expect(index.search("water", filter: SearchFilter(viewer: .anonymous, people: ["carter"])).map(\.storyID) == ["a"])
        #expect(index.search("water", filter: SearchFilter(viewer: .anonymous, places: ["California"])).map(\.storyID) == ["b"])
        #expect(index.search("water", filter: SearchFilter(viewer: .anonymous, years: 1940...1949)).map(\.storyID) == ["b"])
        #expect(index.search("water", filter: SearchFilter(viewer: .anonymous, people: ["Carter"], places: ["California"])).isEmpty)
        #expect(index.search("water", filter: SearchFilter(viewer: .anonymous, people: ["Amos", "Batiste"])).map(\.storyID) == ["b"])
    }
}

@Suite struct SnippetTests {
    @Test func theWindowHoldsTheMatchesAndMarksThem() {
        let text = (0..<80).map { "word\($0)" }.joined(separator: " ") + " the levee broke at Mounds Landing in April. " + (0..<80).map { "tail\($0)" }.joined(separator: " ")
        let analyzer = TextAnalyzer()
        let snippet = SnippetBuilder(analyzer: analyzer).snippet(of: text, terms: Set(analyzer.terms(in: "levee landing")))
        #expect(snippet.text.hasPrefix("…"))
        #expect(snippet.text.hasSuffix("…"))
        #expect(snippet.marked().contains("**levee** broke at Mounds **Landing**"))
        #expect(snippet.highlights.count == 2)
    }
}
