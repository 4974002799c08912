import GriotSearch
import GriotStories
import Testing

/// No search ever returns a passage whose story the viewer may not see: not the BM25 arm,
/// not the vector arm, not their fusion.
@Suite struct PrivacyTests {
    /// The access rule written out independently of `Viewer.maySee`, as the oracle.
    static func visible(_ story: Story, to userID: String?, families: Set<String>) -> Bool {
        switch story.privacy {
        case .public: return true
        case .private: return userID != nil && story.ownerUserID == userID
        case .familyOnly:
            return (userID != nil && story.ownerUserID == userID) || !families.isDisjoint(with: story.familyGroupIDs)
        }
    }

    static func randomUnitVector(_ random: inout some RandomNumberGenerator) -> [Float] {
        let vector = (0..<16).map { _ in Float.random(in: -1...1, using: &random) }
        let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return vector.map { $0 / norm }
    }

    static let words = ["flood", "levee", "train", "church", "pie", "porter", "union", "shipyard", "gumbo", "choir",
                        "march", "factory", "school", "letter", "radio", "cotton", "mine", "steel", "dance", "wedding"]
    static let users = (0..<12).map { "u\($0)" }
    static let families = (0..<6).map { "fam\($0)" }

    struct Corpus {
        var stories: [Story]
        var documents: [SearchDocument]
        var index: PassageIndex
    }

    static func randomCorpus(_ random: inout some RandomNumberGenerator, storyCount: Int) -> Corpus {
        var stories: [Story] = []
        var index = PassageIndex()
        var batch: [(StoryFacets, [SearchDocument])] = []
        for number in 0..<storyCount {
            let privacy = Privacy.allCases.randomElement(using: &random)!
            let owner = Bool.random(using: &random) ? users.randomElement(using: &random) : nil
            let groups = (0..<Int.random(in: 0...2, using: &random)).map { _ in families.randomElement(using: &random)! }
            let text = (0..<30).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
            let story = Story(artifactID: "s\(number)", title: words.randomElement(using: &random)!,
                              people: [["Ida Mae", "Amos", "Octavia"].randomElement(using: &random)!],
                              privacy: privacy, ownerUserID: owner, familyGroupIDs: groups, transcript: Transcript(text: text))
            stories.append(story)
            let documents = (0..<Int.random(in: 1...3, using: &random)).map { part in
                SearchDocument(id: "s\(number)-p\(part)", storyID: story.artifactID, fields: [
                    .text: (0..<25).map { _ in words.randomElement(using: &random)! }.joined(separator: " "),
                    .title: story.title, .people: story.people.joined(separator: " "),
                ], vector: randomUnitVector(&random))
            }
            batch.append((StoryFacets(story: story), documents))
        }
        index.addStories(batch)
        return Corpus(stories: stories, documents: batch.flatMap(\.1), index: index)
    }

    @Test func tenThousandRandomSearchesWithRandomViewersLeakNothing() {
        var random = SeededRandom(seed: 20261122)
        var searches = 0
        var hitsSeen = 0
        for _ in 0..<20 {
            let corpus = Self.randomCorpus(&random, storyCount: Int.random(in: 20...120, using: &random))
            let byID = Dictionary(uniqueKeysWithValues: corpus.stories.map { ($0.artifactID, $0) })
            for _ in 0..<500 {
                let userID = Bool.random(using: &random) ? Self.users.randomElement(using: &random) : nil
                let families = Set((0..<Int.random(in: 0...2, using: &random)).map { _ in Self.families.randomElement(using: &random)! })
                var filter = SearchFilter(viewer: Viewer(userID: userID, familyGroupIDs: families))
                if Int.random(in: 0..<4, using: &random) == 0 { filter.people = ["Amos"] }
                let query = (0..<Int.random(in: 1...4, using: &random)).map { _ in Self.words.randomElement(using: &random)! }.joined(separator: " ")
                let k = Int.random(in: 1...50, using: &random)
                let hits = corpus.index.search(query, filter: filter, k: k)
                searches += 1
                hitsSeen += hits.count
                for hit in hits {
                    let story = byID[hit.storyID]!
                    #expect(Self.visible(story, to: userID, families: families), "leak: \(hit.storyID) to \(userID ?? "anonymous") \(families)")
                    if !filter.people.isEmpty { #expect(story.people == ["Amos"]) }
                }
                // And nothing visible is missing: as many hits as visible matching passages, up to k.
                let queryTerms = Set(query.split(separator: " ").map(String.init))
                let visibleMatches = corpus.documents.filter { document in
                    let story = byID[document.storyID]!
                    return Self.visible(story, to: userID, families: families)
                        && (filter.people.isEmpty || story.people == ["Amos"])
                        && !queryTerms.isDisjoint(with: (document.fields[.text] ?? "").split(separator: " ").map(String.init) + [story.title])
                }.count
                #expect(hits.count == min(k, visibleMatches))

                // The vector arm and the fused ranking obey the same rule.
                let dense = corpus.index.searchDense(vector: Self.randomUnitVector(&random), filter: filter, k: k)
                let fused = HybridFusion.fuse(lexical: hits, dense: dense, method: searches % 2 == 0 ? .standard : .weighted(lexicalWeight: 0.5), k: k)
                let visibleDocuments = corpus.documents.filter { document in
                    let story = byID[document.storyID]!
                    return Self.visible(story, to: userID, families: families) && (filter.people.isEmpty || story.people == ["Amos"])
                }.count
                #expect(dense.count == min(k, visibleDocuments))
                for hit in dense.map(\.storyID) + fused.map(\.storyID) {
                    #expect(Self.visible(byID[hit]!, to: userID, families: families), "leak through the vector arm or fusion: \(hit)")
                }
            }
        }
        #expect(searches == 10_000)
        #expect(hitsSeen > 50_000)  // the searches really returned results to check
    }

    @Test func aPrivacyChangeTakesEffectOnTheNextSearch() {
        var index = PassageIndex()
        let story = Story(artifactID: "wedding", title: "Loretta's wedding", privacy: .public, ownerUserID: "u-ruth",
                          familyGroupIDs: ["fam-carter"], transcript: Transcript(text: "coconut cake in a hatbox"))
        let documents = [SearchDocument(id: "wedding-1", storyID: "wedding", fields: [.text: "coconut cake in a hatbox"])]
        index.replaceStory(StoryFacets(story: story), documents: documents)
        let anonymous = SearchFilter(viewer: .anonymous)
        let family = SearchFilter(viewer: Viewer(userID: "u-tad", familyGroupIDs: ["fam-carter"]))
        #expect(index.search("coconut cake", filter: anonymous).count == 1)

        var familyOnly = story
        familyOnly.privacy = .familyOnly
        index.updateFacets(StoryFacets(story: familyOnly))
        #expect(index.search("coconut cake", filter: anonymous).isEmpty)
        #expect(index.search("coconut cake", filter: family).count == 1)

        var privateStory = story
        privateStory.privacy = .private
        index.replaceStory(StoryFacets(story: privateStory), documents: documents)
        #expect(index.search("coconut cake", filter: family).isEmpty)
        #expect(index.search("coconut cake", filter: SearchFilter(viewer: Viewer(userID: "u-ruth"))).count == 1)
    }
}

/// SplitMix64: a fixed seed gives the same corpora and searches on every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
