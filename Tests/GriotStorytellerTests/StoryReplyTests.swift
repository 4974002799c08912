import Foundation
import GriotChat
import GriotTestSupport
@testable import GriotStoryteller
import Testing

@Suite struct StoryReplyTests {
    static let ids = ["d-1", "d-2"]
    static let valid = StoryFixtures.json([
        "story_text": "Once upon a time, Zofia flew a red kite.\n\nA small dragon waved hello.\n\nThen everyone slept.",
        "image_placements": [["drawing_id": "d-1", "after_paragraph": 1], ["drawing_id": "d-2", "after_paragraph": 2]],
    ])

    @Test func aValidReplyReadsWithOrWithoutAJSONFence() throws {
        let plain = try StoryReply.parse(Self.valid, drawingIDs: Self.ids)
        #expect(plain.paragraphs.count == 3)
        #expect(plain.placements == [.init(drawingID: "d-1", afterParagraph: 1), .init(drawingID: "d-2", afterParagraph: 2)])
        #expect(try StoryReply.parse("```json\n\(Self.valid)\n```", drawingIDs: Self.ids) == plain)
        #expect(try StoryReply.parse("  ```\n\(Self.valid)\n```\n", drawingIDs: Self.ids) == plain)
    }

    /// The output stages regroup text at sentence boundaries: a drawing line that lost its blank
    /// line and ended up at the end of a paragraph's line is still read as its placement.
    @Test func aDrawingLineJoinedToItsParagraphStillReadsAsAPlacement() {
        let visible = "Zofia flew a red kite. ![a red kite](drawing:d-1)\nA small dragon waved. ![a dragon](drawing:d-2) ![a kite](drawing:d-1)\n\nThen everyone slept."
        let parsed = StoryText.parse(visible)
        #expect(parsed.paragraphs == ["Zofia flew a red kite.", "A small dragon waved.", "Then everyone slept."])
        #expect(parsed.placements == [.init(drawingID: "d-1", afterParagraph: 1), .init(drawingID: "d-2", afterParagraph: 2),
                                      .init(drawingID: "d-1", afterParagraph: 2)])
        // Text that only mentions the syntax mid-line is left as text.
        #expect(StoryText.parse("She drew ![x](drawing:d-1) and smiled.").placements.isEmpty)
    }

    @Test func textAroundTheObjectIsRefusedWithWhatToDo() {
        for raw in ["Here is your story: \(Self.valid)", "\(Self.valid)\nI hope you like it!", "```json\n\(Self.valid)\n``` Enjoy",
                    "```python\n\(Self.valid)\n```", "", "[\(Self.valid)]", "{\"story_text\": \"Once\""] {
            #expect(throws: ReplyFormatError.self, "\(raw.prefix(40))") { try StoryReply.parse(raw, drawingIDs: Self.ids) }
        }
        let error = #expect(throws: ReplyFormatError.self) { try StoryReply.parse("Sure! \(Self.valid)", drawingIDs: Self.ids) }
        #expect(error?.message.contains("Reply with only") == true)
    }

    @Test func fieldsOfTheWrongShapeAreNamed() {
        func message(_ object: Any) -> String {
            do { _ = try StoryReply.parse(StoryFixtures.json(object), drawingIDs: Self.ids); return "" } catch { return error.message }
        }
        #expect(message(["image_placements": []]).contains("story_text is missing"))
        #expect(message(["story_text": "\n \n", "image_placements": []]).contains("story_text is empty"))
        #expect(message(["story_text": 7, "image_placements": []]).contains("story_text must be a string"))
        #expect(message(["story_text": "A.", "image_placements": [["drawing_id": "d-1", "after_paragraph": "1"]]])
            .contains("image_placements[0].after_paragraph must be a whole number"))
        #expect(message(["story_text": "A.", "image_placements": [["drawing_id": "d-1", "after_paragraph": true]]])
            .contains("image_placements[0].after_paragraph must be a whole number"))
        #expect(message(["story_text": "A.", "image_placements": [["drawing_id": "d-1", "after_paragraph": 1.5]]])
            .contains("after_paragraph must be a whole number"))
        #expect(message(["story_text": "A.", "image_placements": [], "title": "Kites"]).contains("'title', which is not a field"))
        #expect(message(["story_text": "A.\n\n![kite](drawing:d-1)", "image_placements": []]).contains("put drawings only in image_placements"))
    }

    @Test func placementsAreCheckedAgainstTheDrawingsGiven() {
        let reply = StoryReply(storyText: "One.\n\nTwo.", placements: [
            .init(drawingID: "d-1", afterParagraph: 1), .init(drawingID: "d-1", afterParagraph: 2), .init(drawingID: "d-9", afterParagraph: 3),
        ])
        let error = #expect(throws: ReplyFormatError.self) { try reply.validate(drawingIDs: ["d-1", "d-2"]) }
        let message = error?.message ?? ""
        #expect(message.contains("image_placements[2].drawing_id 'd-9' is not one of the drawings given: d-1, d-2"))
        #expect(message.contains("image_placements[2].after_paragraph is 3, but story_text has 2 paragraphs; use a number from 1 to 2"))
        #expect(message.contains("image_placements[1] places drawing 'd-1' again (it is already at image_placements[0])"))
        #expect(message.contains("drawing 'd-2' is not placed"))
        #expect(throws: ReplyFormatError.self) { try StoryReply(storyText: "One.", placements: [.init(drawingID: "d-1", afterParagraph: 0)]).validate(drawingIDs: ["d-1"]) }
        #expect(throws: Never.self) { try StoryReply(storyText: "One.", placements: [.init(drawingID: "d-1", afterParagraph: 1)]).validate(drawingIDs: ["d-1"]) }
    }

    @Test func theFormatRendersParagraphsWithEachDrawingAfterItsParagraph() throws {
        let grounding = StoryFixtures.grounding(drawings: Array(StoryFixtures.drawings.prefix(2)))
        let visible = try StoryReplyFormat().render(Self.valid, grounding: grounding)
        #expect(visible == """
            Once upon a time, Zofia flew a red kite.

            ![a red kite over the hill](drawing:d-1)

            A small dragon waved hello.

            ![my dragon](drawing:d-2)

            Then everyone slept.
            """)
        #expect(throws: ReplyFormatError.self) { try StoryReplyFormat().render(Self.valid, grounding: StoryFixtures.grounding()) }
    }

    /// Render then parse gives back the reply, for random stories in any script, with captions
    /// and ids that hold the very characters of the drawing line's syntax.
    @Test func parsingTheVisibleStoryGivesBackTheReply() throws {
        var random = SplitMix64(seed: 39)
        let words = ["Once", "upon", "a", "time,", "Zofia", "Łukasiewicz", "李秀英", "龍", "flew.", "![x]", "(drawing:d-1)", "]", "[", "\\",
                     "](", "*kite*", "#", "—", "🐉", "\u{2028}", "…", "\"quoted\"", "`code`", "!", "[1]"]
        let captionParts = ["red", "kite", "]", "[", "\\", "(", ")", "\n", "龍", "Łódź", "![", "drawing:"]
        let idParts = ["d", "-", "1", " ", ")", "(", "%", "é", "龍", "/", ":", "x"]
        for round in 0..<300 {
            let paragraphCount = Int.random(in: 1...6, using: &random)
            var paragraphs: [String] = []
            while paragraphs.count < paragraphCount {
                let lines = (0..<Int.random(in: 1...2, using: &random)).map { _ in
                    (0..<Int.random(in: 1...9, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
                }
                let paragraph = StoryReply.paragraphs(of: lines.joined(separator: "\n")).joined(separator: "\n")
                if !paragraph.isEmpty, !StoryText.containsDrawingLine(paragraph), StoryReply.paragraphs(of: paragraph) == [paragraph] { paragraphs.append(paragraph) }
            }
            var drawings: [StoryDrawing] = []
            for index in 0..<Int.random(in: 0...5, using: &random) {
                let id = (0..<Int.random(in: 1...6, using: &random)).map { _ in idParts.randomElement(using: &random)! }.joined() + "\(index)"
                let caption = Bool.random(using: &random) ? nil : (0..<Int.random(in: 1...5, using: &random)).map { _ in captionParts.randomElement(using: &random)! }.joined(separator: " ")
                drawings.append(StoryDrawing(id: id, caption: caption, filename: nil))
            }
            let placements = drawings.shuffled(using: &random).map { ["drawing_id": $0.id, "after_paragraph": Int.random(in: 1...paragraphCount, using: &random)] as [String: Any] }
            // The model's spelling: extra blank lines and spaces between paragraphs.
            let storyText = paragraphs.joined(separator: ["\n\n", "\n \n\n", "\r\n\r\n"].randomElement(using: &random)!)
            let raw = StoryFixtures.json(["story_text": storyText, "image_placements": placements])
            let reply = try StoryReply.parse(raw, drawingIDs: drawings.map(\.id))
            let visible = StoryText.render(reply, drawings: drawings)
            #expect(StoryText.parse(visible) == reply, "round \(round): \(visible)")
            #expect(reply.paragraphs == paragraphs)
        }
    }
}
