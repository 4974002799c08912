import Foundation

/// A child of a signed-in parent, whose drawings become the storyteller's bedtime stories.
/// Every read and write names the parent too: another parent's child reads as nil.
/// The name and avatar are sealed with the parent's data key when a master key is configured.
public struct ChildRecord: Sendable, Hashable, Codable {
    public var id: String
    public var parentID: String
    public var name: String
    public var age: Int?
    /// What the app shows for the child (an emoji or a picture's name), as the parent chose it.
    public var avatar: String?
    public var created: Date
    public var updated: Date

    public init(id: String = StorytellerID.make("ch"), parentID: String, name: String, age: Int? = nil, avatar: String? = nil,
                created: Date = Date(), updated: Date? = nil) {
        self.id = id
        self.parentID = parentID
        self.name = name
        self.age = age
        self.avatar = avatar
        self.created = created
        self.updated = updated ?? created
    }
}

/// New ids for the storyteller's rows: a kind prefix and 128 random bits, so an id says what it
/// names and cannot be guessed from another.
public enum StorytellerID {
    public static func make(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }
}
