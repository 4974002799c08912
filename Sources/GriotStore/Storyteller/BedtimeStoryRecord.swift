import Foundation

/// A bedtime story the storyteller tells one child, in chapters (`ChapterRecord`), each new
/// chapter continuing the last with new drawings. Named apart from `StoryRecord` (the archive's
/// stories). The theme is sealed with the parent's data key when a master key is configured.
public struct BedtimeStoryRecord: Sendable, Hashable, Codable {
    public var id: String
    public var parentID: String
    public var childID: String
    /// What the parent asked the story to be about, if anything.
    public var theme: String?
    public var created: Date
    /// When the last chapter was added.
    public var updated: Date

    public init(id: String = StorytellerID.make("bs"), parentID: String, childID: String, theme: String? = nil, created: Date = Date(),
                updated: Date? = nil) {
        self.id = id
        self.parentID = parentID
        self.childID = childID
        self.theme = theme
        self.created = created
        self.updated = updated ?? created
    }
}
