import Foundation

/// One chapter of a bedtime story: its text, where each drawing goes in it, and how it was
/// made (the model, the prompt's version, the turn; `sample` when the offline template wrote
/// it). Chapters are numbered 1, 2, … in the order they were added. The text is sealed with the
/// parent's data key when a master key is configured.
public struct ChapterRecord: Sendable, Hashable, Codable {
    public var id: String
    public var storyID: String
    public var number: Int
    public var text: String
    public var placements: [StoryPlacement]
    /// The drawings the chapter was told from, in the order given.
    public var drawingIDs: [String]
    public var sample: Bool
    public var model: String
    public var promptVersion: Int
    public var turnID: String?
    public var created: Date

    public init(id: String, storyID: String, number: Int, text: String, placements: [StoryPlacement], drawingIDs: [String], sample: Bool,
                model: String, promptVersion: Int, turnID: String?, created: Date) {
        self.id = id
        self.storyID = storyID
        self.number = number
        self.text = text
        self.placements = placements
        self.drawingIDs = drawingIDs
        self.sample = sample
        self.model = model
        self.promptVersion = promptVersion
        self.turnID = turnID
        self.created = created
    }

    /// The chapter a draft becomes as the story's `number`th.
    public init(_ draft: ChapterDraft, number: Int) {
        self.init(id: draft.id, storyID: draft.storyID, number: number, text: draft.text, placements: draft.placements,
                  drawingIDs: draft.drawingIDs, sample: draft.sample, model: draft.model, promptVersion: draft.promptVersion,
                  turnID: draft.turnID, created: draft.created)
    }
}

/// A chapter before it is added: the store gives it the story's next number, so two chapters
/// added at once never share one.
public struct ChapterDraft: Sendable, Hashable {
    public var id: String
    public var storyID: String
    public var text: String
    public var placements: [StoryPlacement]
    public var drawingIDs: [String]
    public var sample: Bool
    public var model: String
    public var promptVersion: Int
    public var turnID: String?
    public var created: Date

    public init(id: String = StorytellerID.make("sc"), storyID: String, text: String, placements: [StoryPlacement], drawingIDs: [String],
                sample: Bool, model: String, promptVersion: Int, turnID: String? = nil, created: Date = Date()) {
        self.id = id
        self.storyID = storyID
        self.text = text
        self.placements = placements
        self.drawingIDs = drawingIDs
        self.sample = sample
        self.model = model
        self.promptVersion = promptVersion
        self.turnID = turnID
        self.created = created
    }
}

/// Where a drawing is shown in a chapter: after its `afterParagraph`th paragraph (0: before the
/// first). The JSON is the model's reply format: `{"drawing_id": "…", "after_paragraph": 2}`.
public struct StoryPlacement: Sendable, Hashable, Codable {
    public var drawingID: String
    public var afterParagraph: Int

    public init(drawingID: String, afterParagraph: Int) {
        self.drawingID = drawingID
        self.afterParagraph = afterParagraph
    }

    enum CodingKeys: String, CodingKey {
        case drawingID = "drawing_id"
        case afterParagraph = "after_paragraph"
    }
}
