import Foundation
import GriotArchive
import GriotSearch
import GriotStories
import GriotTestSupport
import GriotText
import Testing

/// Misspelt person and place names from the demo corpus still find the story they name.
@Suite struct TypoToleranceTests {
    /// Two sets: ours, and a harder one written independently (TypoQueries.swift), whose
    /// topical hints are words many stories share, so that the name must pick the story.
    @Test(arguments: ["ours", "independent"])
    func misspeltNamesAndPlacesFindTheirStoryInTheTopFive(set: String) async throws {
        let misspeltQueries = set == "ours" ? misspeltQueries : typoQueries
        #expect(misspeltQueries.count >= 30)
        let stories = StoryFiles.read([packageRoot.appendingPathComponent("corpus").path]).stories
        let byID = Dictionary(uniqueKeysWithValues: stories.map { ($0.artifactID, $0) })
        let archive = try makeArchive(await TestDatabase.storage(), embedding: true)
        try await archive.ingest(stories)
        var found = 0
        var misses: [String] = []
        // The BM25 arm alone, with and without expansion: what spelling tolerance itself adds.
        var lexical = (withExpansion: 0, without: 0)
        for (query, storyID) in misspeltQueries {
            let story = try #require(byID[storyID], "no demo story \(storyID)")
            // Search as someone who may see the story: its owner, in its families.
            let filter = SearchFilter(viewer: Viewer(userID: story.ownerUserID, familyGroupIDs: Set(story.familyGroupIDs)))
            let top = try await archive.search(query, filter: filter, k: 5).results.map(\.passage.storyID)
            if top.contains(storyID) { found += 1 } else { misses.append("\(query) → \(top)") }
            func lexicalFinds(_ expands: Bool) async throws -> Bool {
                let settings = RetrievalSettings(mode: .lexical, expandsSpelling: expands)
                return try await archive.search(query, filter: filter, k: 5, settings: settings).results.contains { $0.passage.storyID == storyID }
            }
            if try await lexicalFinds(true) { lexical.withExpansion += 1 }
            if try await lexicalFinds(false) { lexical.without += 1 }
        }
        let rate = Double(found) / Double(misspeltQueries.count)
        print("typo queries (\(set)): \(found)/\(misspeltQueries.count) in the top 5 (hybrid); BM25 alone \(lexical.withExpansion) with spelling expansion, \(lexical.without) without; misses: \(misses)")
        #expect(rate >= 0.9, "only \(found) of \(misspeltQueries.count): \(misses)")
        #expect(lexical.withExpansion > lexical.without)
    }

    @Test func eachMisspellingAloneIsExpandedToTheNameItMeans() async throws {
        let stories = StoryFiles.read([packageRoot.appendingPathComponent("corpus").path]).stories
        let archive = try makeArchive(await TestDatabase.storage())
        try await archive.ingest(stories)
        let byID = Dictionary(uniqueKeysWithValues: stories.map { ($0.artifactID, $0) })
        let analyzer = TextAnalyzer()
        var understood = 0
        var missed: [String] = []
        for ((misspelt, meant), (_, storyID)) in zip(misspeltNames, misspeltQueries) {
            let story = byID[storyID]!
            let owner = SearchFilter(viewer: Viewer(userID: story.ownerUserID, familyGroupIDs: Set(story.familyGroupIDs)))
            let outcome = try await archive.search(misspelt, filter: owner, k: 10, settings: RetrievalSettings(mode: .lexical))
            let wanted = Set(analyzer.terms(in: meant))
            // Either stemming already maps the misspelling onto the name, or an expansion does.
            if wanted.isSubset(of: analyzer.terms(in: misspelt)) || outcome.spellingExpansions.values.contains(where: { !wanted.isDisjoint(with: $0) }) {
                understood += 1
            } else {
                missed.append("\(misspelt) → \(outcome.spellingExpansions)")
            }
        }
        print("misspelt names read as the name meant: \(understood)/\(misspeltNames.count); missed: \(missed)")
        #expect(Double(understood) >= 0.9 * Double(misspeltNames.count), "\(missed)")
    }

    @Test func anExactSpellingOutranksAnExpansion() async throws {
        let archive = try makeArchive(await TestDatabase.storage())
        try await archive.ingest([
            story("exact", text: "We took the train to Chicago in the winter."),
            story("other", text: "Nothing about trains here, only the river."),
        ])
        let results = try await archive.search("Chicago", filter: SearchFilter(viewer: .anonymous), settings: RetrievalSettings(mode: .lexical))
        #expect(results.results.map(\.passage.storyID) == ["exact"])
        #expect(results.spellingExpansions.isEmpty)
        let misspelt = try await archive.search("Chicaga", filter: SearchFilter(viewer: .anonymous), settings: RetrievalSettings(mode: .lexical))
        #expect(misspelt.results.first?.passage.storyID == "exact")
        #expect(misspelt.spellingExpansions == ["chicaga": ["chicago"]])
    }

    @Test func expansionsNeverNameAWordOnlyAHiddenStoryHas() async throws {
        let archive = try makeArchive(await TestDatabase.storage())
        try await archive.ingest([
            story("hidden", privacy: .private, text: "Okonkwo kept the ledger."),
            story("open", text: "The ledger was kept at the church."),
        ])
        let outcome = try await archive.search("Okonkwa ledger", filter: SearchFilter(viewer: .anonymous), settings: RetrievalSettings(mode: .lexical))
        #expect(outcome.results.map(\.passage.storyID) == ["open"])
        #expect(outcome.spellingExpansions.isEmpty)
    }
}

/// Questions that misspell a person or place of one demo story (each misspelling checked to
/// appear nowhere in corpus/), with the story they should find.
let misspeltQueries: [(query: String, storyID: String)] = [
    ("Ida Mae Cartr flood levee", "carter-1927-flood"),
    ("Mounds Landng levee broke", "carter-1927-flood"),
    ("Greenvile levee camp Red Cross", "carter-1927-flood"),
    ("Clarksdle tickets to Memphis", "carter-leaving-clarksdale"),
    ("leaving Clarksdail by night", "carter-leaving-clarksdale"),
    ("Maxwel Street overcoat", "carter-first-winter-bronzeville"),
    ("Bronzvile kitchenette first winter", "carter-first-winter-bronzeville"),
    ("True Vyne church 47th Street", "carter-true-vine-storefront-church"),
    ("Panama Limted berths porter", "carter-pullman-porter"),
    ("Marquete Park rock thrown", "carter-1966-open-housing-march"),
    ("Hartwel Elementary classroom", "carter-ruth-first-classroom"),
    ("Idlewyld honeymoon wedding", "carter-loretta-wedding-detroit"),
    ("Greenwod Avenue before the fire", "whitfield-greenwood-before-the-fire"),
    ("Ambrose Dawkns bricklayer", "whitfield-rebuilding-the-shoe-shop-1922"),
    ("Walter Petiford steward foundry", "whitfield-rouge-foundry-and-local-600"),
    ("Hastngs Street riot", "whitfield-hastings-street-1943"),
    ("Graystone Ballrom freeway letter", "whitfield-black-bottom-and-the-freeway"),
    ("Hitsvile Sunday dinner radio", "whitfield-sunday-dinners-and-motown"),
    ("Clairmont raid summer 1967", "whitfield-summer-of-1967"),
    ("Agnes Pruit nursing school", "whitfield-denise-nursing-school"),
    ("Harmn Axle and Gear layoff", "whitfield-calvin-auto-layoffs"),
    ("Pauline Greeer bake sale", "whitfield-2013-bankruptcy-and-josies-recipes"),
    ("Opelousa la-la dance", "batiste-opelousas-la-la-saturday-nights"),
    ("Lucien Batsite trumpet", "batiste-lucien-trumpet-seventh-ward"),
    ("cousin Jules letter from Califrnia", "batiste-letter-from-california-1942"),
    ("Richmund shipyards swing shift", "batiste-richmond-shipyards-swing-shift"),
    ("Slim Jenkns club shoeshine", "batiste-seventh-street-saturday-nights"),
    ("Octavai gumbo filé", "batiste-octavia-sunday-gumbo-file"),
    ("Big Walter Pinkny docks", "batiste-teddy-longshoreman-port-of-oakland"),
    ("Celestyne free breakfast program", "batiste-celestine-free-breakfast-1969"),
    ("Cypriss freeway collapse earthquake", "batiste-loma-prieta-cypress-collapse-1989"),
    ("Adelyne Street capuchons", "batiste-simone-2016-gentrification-mardi-gras"),
    ("Wendel Odum iron ore mines", "odom-red-mountain-ore-mines"),
    ("Muscda mines scrip", "odom-red-mountain-ore-mines"),
    ("Hattie Odomm choir Sunday supper", "odom-hattie-choir-sunday-supper"),
    ("relief line Jubilie Stew", "odom-1932-relief-line"),
    ("Lenoks Avenue letters Savoy", "odom-reginald-harlem-letters"),
    ("Beatrice Oddom beauty shop", "odom-bea-fourth-avenue-beauty-shop"),
    ("Kelly Ingrem Park fire hoses", "odom-childrens-crusade-kelly-ingram-park"),
    ("Pashal's Atlanta Valiant", "odom-moving-to-atlanta-1974"),
    ("Centennial Olympik Park", "odom-1996-olympics-atlanta"),
    ("Zora Pryce kitchen table", "odom-zora-kitchen-table-2018"),
    ("Sixteenth Street Baptst bombing", "odom-sixteenth-street-sunday-1963"),
]

/// Each misspelling of `misspeltQueries` with the name it stands for.
let misspeltNames: [(misspelt: String, meant: String)] = [
    ("Cartr", "Carter"),
    ("Landng", "Landing"),
    ("Greenvile", "Greenville"),
    ("Clarksdle", "Clarksdale"),
    ("Clarksdail", "Clarksdale"),
    ("Maxwel", "Maxwell"),
    ("Bronzvile", "Bronzeville"),
    ("Vyne", "Vine"),
    ("Limted", "Limited"),
    ("Marquete", "Marquette"),
    ("Hartwel", "Hartwell"),
    ("Idlewyld", "Idlewild"),
    ("Greenwod", "Greenwood"),
    ("Dawkns", "Dawkins"),
    ("Petiford", "Pettiford"),
    ("Hastngs", "Hastings"),
    ("Ballrom", "Ballroom"),
    ("Hitsvile", "Hitsville"),
    ("Clairmont", "Clairmount"),
    ("Pruit", "Pruitt"),
    ("Harmn", "Harmon"),
    ("Greeer", "Greer"),
    ("Opelousa", "Opelousas"),
    ("Batsite", "Batiste"),
    ("Califrnia", "California"),
    ("Richmund", "Richmond"),
    ("Jenkns", "Jenkins"),
    ("Octavai", "Octavia"),
    ("Pinkny", "Pinkney"),
    ("Celestyne", "Celestine"),
    ("Cypriss", "Cypress"),
    ("Adelyne", "Adeline"),
    ("Odum", "Odom"),
    ("Muscda", "Muscoda"),
    ("Odomm", "Odom"),
    ("Jubilie", "Jubilee"),
    ("Lenoks", "Lenox"),
    ("Oddom", "Odom"),
    ("Ingrem", "Ingram"),
    ("Pashal's", "Paschal's"),
    ("Olympik", "Olympic"),
    ("Pryce", "Price"),
    ("Baptst", "Baptist"),
]
