import Foundation
import GriotChat
@testable import GriotStoryteller
import Testing

@Suite struct TemplateStorytellerTests {
    @Test func aSampleStoryPlacesEveryDrawingAfterTheParagraphThatNamesIt() {
        let grounding = StoryFixtures.grounding()
        let story = TemplateStoryteller().compose(StoryFixtures.request(grounding))
        let told = StoryText.parse(story)
        #expect(told.paragraphs.first == TemplateStoryteller.sampleNotice)
        #expect(story.hasPrefix("This is a sample story"))
        #expect(told.placements.map(\.drawingID) == ["d-1", "d-2", "d-3"])
        #expect(throws: Never.self) { try told.validate(drawingIDs: ["d-1", "d-2", "d-3"]) }
        for (placement, label) in zip(told.placements, ["a red kite over the hill", "my dragon", "李秀英的龍"]) {
            #expect(told.paragraphs[placement.afterParagraph - 1].contains(label))
        }
        #expect(story.contains("![my dragon](drawing:d-2)"), "the file name, cleaned, when there is no caption")
        // The first name only: the surname never appears.
        #expect(story.contains("Zofia"))
        #expect(!story.contains("Łukasiewicz"))
        #expect(PlacementCheck().problem(in: story, grounding: grounding) == nil)
        #expect(!ChildModeration().verdict(for: story, age: 3).blocks)
        #expect(TemplateStoryteller().modelName == "griot-template-storyteller-1")
    }

    @Test func aSampleChapterIsStoredWithoutItsNotice() throws {
        let told = StoryText.parse(TemplateStoryteller().compose(StoryFixtures.request(StoryFixtures.grounding())))
        let stored = TemplateStoryteller.removingSampleNotice(told)
        #expect(stored.paragraphs == Array(told.paragraphs.dropFirst()))
        #expect(stored.placements.map(\.afterParagraph) == told.placements.map { $0.afterParagraph - 1 })
        #expect(throws: Never.self) { try stored.validate(drawingIDs: ["d-1", "d-2", "d-3"]) }
        #expect(TemplateStoryteller.removingSampleNotice(stored) == stored)
    }

    @Test func theSameDrawingsGiveTheSameStoryAndOtherCaptionsAnother() {
        let one = TemplateStoryteller().compose(StoryFixtures.request(StoryFixtures.grounding()))
        #expect(TemplateStoryteller().compose(StoryFixtures.request(StoryFixtures.grounding())) == one)
        var bodies: Set<String> = []
        for caption in ["a blue whale", "grandma's garden", "a rocket to the moon", "my cat Miso", "a castle made of cake", "the snowy mountain"] {
            let drawings = [StoryDrawing(id: "d-1", caption: caption, filename: nil), StoryDrawing(id: "d-2", caption: "a tall tree", filename: nil)]
            let story = TemplateStoryteller().compose(StoryFixtures.request(StoryFixtures.grounding(drawings: drawings)))
            // Set the captions themselves aside: the wording around them differs.
            bodies.insert(story.replacingOccurrences(of: caption, with: "…"))
        }
        #expect(bodies.count >= 3, "the wording is picked by the captions, not one fixed text")
    }

    @Test func withoutANameTheChildIsOurLittleOneAndAThemeIsUsed() {
        let story = TemplateStoryteller().compose(StoryFixtures.request(StoryFixtures.grounding(name: nil, theme: "the sea")))
        #expect(story.contains("our little one") || story.contains("Our little one"))
        #expect(story.contains("the sea"))
        #expect(!story.contains("nil"))
    }

    @Test func fileNamesAreCleanedIntoWords() {
        #expect(StoryDrawing.cleanedFilename("my_dragon-2.jpg") == "my dragon")
        #expect(StoryDrawing.cleanedFilename("IMG_2041.JPG") == nil)
        #expect(StoryDrawing.cleanedFilename("photos/Sun-and-Moon_20241129.png") == "Sun and Moon")
        #expect(StoryDrawing.cleanedFilename("Łódź.jpeg") == "Łódź")
        #expect(StoryDrawing(id: "d", caption: "  ", filename: "DSC0007.jpg").label == "drawing")
    }
}

@Suite struct PlacementCheckTests {
    static let drawings = [StoryDrawing(id: "d-1", caption: "a red kite", filename: nil), StoryDrawing(id: "d-2", caption: "Grandpa's boats", filename: nil)]

    @Test func aStoryThatPlacesAndNamesEveryDrawingPasses() {
        let grounding = StoryFixtures.grounding(drawings: Self.drawings)
        let story = StoryText.render(StoryReply(storyText: "Zofia's kite flew high.\n\nDown at the harbour, the boats bobbed.\n\nGoodnight.",
                                                placements: [.init(drawingID: "d-1", afterParagraph: 1), .init(drawingID: "d-2", afterParagraph: 2)]),
                                     drawings: Self.drawings)
        #expect(PlacementCheck().problem(in: story, grounding: grounding) == nil, "'boats' for 'boats', 'kite' for 'kite'")
    }

    @Test func aDrawingNotPlacedOrNotMentionedNearItsPlaceIsNamed() throws {
        let grounding = StoryFixtures.grounding(drawings: Self.drawings)
        let story = StoryText.render(StoryReply(storyText: "Zofia ran up the hill.\n\nShe had tea.\n\nA red kite flew by, and she slept.",
                                                placements: [.init(drawingID: "d-1", afterParagraph: 1)]), drawings: Self.drawings)
        let problem = try #require(PlacementCheck().problem(in: story, grounding: grounding))
        #expect(problem.contains("Not placed in the story: “Grandpa's boats” (d-2)"))
        #expect(problem.contains("not mentioned near its place: “a red kite” (d-1, after paragraph 1)"))
    }

    @Test func anExplicitReferenceOrAnotherScriptCounts() {
        let drawings = [StoryDrawing(id: "d-1", caption: "李秀英的龍", filename: nil), StoryDrawing(id: "d-2", caption: nil, filename: "IMG_1.jpg")]
        let grounding = StoryFixtures.grounding(drawings: drawings)
        let story = StoryText.render(StoryReply(storyText: "夜里，李秀英的龍飞过河。\n\nAnd in the next picture, everyone waved.",
                                                placements: [.init(drawingID: "d-1", afterParagraph: 1), .init(drawingID: "d-2", afterParagraph: 2)]),
                                     drawings: drawings)
        #expect(PlacementCheck().problem(in: story, grounding: grounding) == nil)
    }
}

@Suite struct ChapterSummaryTests {
    static let chapterOne = """
        Once upon a time, a fox called Pip lived in Willowbrook with his friend Mira the owl. The river was wide and slow. \
        The sun was warm on the grass. The bees hummed all day long. Pip liked to count the clouds. \
        One morning Mira found a silver key by the Old Mill. The wind blew through the reeds. The frogs sang. \
        The reeds were tall and green. Everyone had porridge for breakfast. \
        At night they slept under the Lantern Tree, and the stars shone.
        """
    static let chapterTwo = """
        The next day, Pip and Mira followed the river to Bramble Bay. The sand was soft. The gulls called. \
        They built a castle with a tower. A crab waved a claw. They ate apples. The tide came in slowly. Then they walked home to sleep.
        """

    @Test func chaptersThatFitAreKeptWhole() {
        let fitted = ChapterSummary.fit([(1, Self.chapterOne), (2, Self.chapterTwo)], tokens: 10_000, counter: WordCounter())
        #expect(fitted.map(\.text) == [Self.chapterOne, Self.chapterTwo])
        #expect(fitted.allSatisfy { !$0.summarised })
    }

    @Test func chapterOneSummarisedUnderTheBudgetKeepsItsNamesAndPlaces() {
        let counter = WordCounter()
        let budget = counter.count(Self.chapterTwo) * 2 + 12
        let fitted = ChapterSummary.fit([(1, Self.chapterOne), (2, Self.chapterTwo)], tokens: budget, counter: counter)
        #expect(fitted.count == 2)
        #expect(fitted[0].summarised && !fitted[1].summarised)
        #expect(fitted[1].text == Self.chapterTwo)
        let summary = fitted[0].text
        #expect(fitted.map { counter.count($0.text) }.reduce(0, +) <= budget)
        for name in ["Pip", "Willowbrook", "Mira", "Old Mill", "Lantern Tree"] { #expect(summary.contains(name), "\(name) in: \(summary)") }
        #expect(summary.hasPrefix("Once upon a time"))
        #expect(!summary.contains("porridge"), "a sentence that names no one is the first to go")
        let passage = StoryPassages.passage(for: fitted[0], number: 5)
        #expect(passage.passageID == "chapter-1" && passage.storyTitle == "Chapter 1 (summary)")
    }

    @Test func theNamesAreTheWordsWithACapitalInsideASentence() {
        let names = ChapterSummary.characterNames(in: ["Then Zofia met Łucja in Kraków. The end."])
        #expect(names == ["Zofia", "Łucja", "Kraków"])
    }
}
