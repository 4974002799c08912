import Foundation

/// One committed change to the stories, in the order the database committed them. Every write
/// that changes what a search could return (a story saved or deleted, its passages' vectors
/// stored, every vector dropped for a reindex) appends one in the same transaction, so a node
/// that applies the log in order holds what the database holds.
public struct StoryChange: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// The story, its passages or their vectors changed, or it was deleted: read it again.
        case story
        /// Every vector was dropped (a reindex with another model): rebuild the whole index.
        case all
    }

    /// Increases with each commit; a node remembers the last one it applied.
    public var sequence: Int64
    /// The story changed (empty for `all`).
    public var storyID: String
    public var kind: Kind

    public init(sequence: Int64, storyID: String, kind: Kind) {
        self.sequence = sequence
        self.storyID = storyID
        self.kind = kind
    }
}
