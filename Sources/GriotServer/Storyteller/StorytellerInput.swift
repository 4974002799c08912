import Foundation

/// What a storyteller turn is told from, carried in `TurnRequest.assistantInput` from the route to
/// the storyteller's passage source: the story, the child, the drawings of this chapter, the theme,
/// and the child's first name (nil when the service is set not to send it to the model).
struct StorytellerInput: Sendable, Hashable {
    var storyID: String
    var childID: String
    var drawingIDs: [String]
    var theme: String?
    var childName: String?
    var childAge: Int?

    var fields: [String: String] {
        var fields = ["story_id": storyID, "child_id": childID, "drawing_ids": drawingIDs.joined(separator: ",")]
        fields["theme"] = theme
        fields["child_name"] = childName
        fields["child_age"] = childAge.map(String.init)
        return fields
    }

    init(storyID: String, childID: String, drawingIDs: [String], theme: String?, childName: String?, childAge: Int?) {
        self.storyID = storyID
        self.childID = childID
        self.drawingIDs = drawingIDs
        self.theme = theme
        self.childName = childName
        self.childAge = childAge
    }

    /// Reads the fields back; nil when the turn was not started by the storyteller's routes.
    init?(_ fields: [String: String]) {
        guard let storyID = fields["story_id"], let childID = fields["child_id"], let drawings = fields["drawing_ids"] else { return nil }
        self.init(storyID: storyID, childID: childID, drawingIDs: drawings.split(separator: ",").map(String.init), theme: fields["theme"],
                  childName: fields["child_name"], childAge: fields["child_age"].flatMap(Int.init))
    }
}
