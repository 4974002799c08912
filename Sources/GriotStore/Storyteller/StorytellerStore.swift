import Foundation

/// The storyteller's data (the Joanie app): a parent's children, their drawings, the bedtime
/// stories told from them in chapters, and the stories' read-only links. Every operation names
/// the signed-in parent: another parent's child, drawing, story or link reads as nil (or false,
/// or an empty list), exactly as a missing one does, so a route answers 404 for both.
///
/// ```swift
/// let store = try storage.storyteller
/// let child = try await store.addChild(ChildRecord(parentID: "u-ania", name: "Zofia Łukasiewicz", age: 6))
/// let story = try await store.createStory(BedtimeStoryRecord(parentID: "u-ania", childID: child.id))
/// ```
///
/// Drawings' bytes are not kept here but in a content-addressed blob store: the deletes say
/// which content hashes no drawing names any more, for the caller to remove those blobs.
/// The texts (a child's name and avatar, a drawing's file name and caption, a story's theme, a
/// chapter's text) are sealed with the parent's data key when a master key is configured, so a
/// user's erasure shreds them with the rest of the user's data.
public protocol StorytellerStore: Sendable {
    // MARK: Children

    /// Stores a new child (a text holding a NUL is refused as `.invalid`, naming it).
    func addChild(_ child: ChildRecord) async throws -> ChildRecord
    /// The parent's children, oldest first.
    func children(parentID: String) async throws -> [ChildRecord]
    func child(id: String, parentID: String) async throws -> ChildRecord?
    /// Sets the child's name, age and avatar; nil when the parent has no such child.
    func updateChild(id: String, parentID: String, name: String, age: Int?, avatar: String?, now: Date) async throws -> ChildRecord?
    /// Deletes the child with its drawings, its stories and their chapters and links, in one
    /// transaction; nil when the parent has no such child.
    func deleteChild(id: String, parentID: String) async throws -> StorytellerRemoval?

    // MARK: Drawings

    /// Stores a drawing of one of the parent's children; nil when the child is not theirs.
    func addDrawing(_ drawing: DrawingRecord) async throws -> DrawingRecord?
    /// A child's drawings, newest first, a page at a time (an empty page when the child is not
    /// the parent's). A cursor this list did not give is refused as `.invalid`.
    func drawings(childID: String, parentID: String, query: DrawingQuery) async throws -> DrawingPage
    func drawing(id: String, parentID: String) async throws -> DrawingRecord?
    /// Those of `ids` that are the parent's drawings, in the order of `ids` (the others left out).
    func drawings(ids: [String], parentID: String) async throws -> [DrawingRecord]
    /// Deletes a drawing; nil when the parent has no such drawing.
    func deleteDrawing(id: String, parentID: String) async throws -> DrawingRemoval?
    /// How many drawings the parent has, for the upload limits.
    func drawingCount(parentID: String) async throws -> Int
    /// How many drawings one of the parent's children has (0 for another parent's child).
    func drawingCount(childID: String, parentID: String) async throws -> Int

    // MARK: Stories and chapters

    /// Stores a new story for one of the parent's children; nil when the child is not theirs.
    func createStory(_ story: BedtimeStoryRecord) async throws -> BedtimeStoryRecord?
    func story(id: String, parentID: String) async throws -> BedtimeStoryRecord?
    /// A child's stories, most recently continued first.
    func stories(childID: String, parentID: String) async throws -> [BedtimeStoryRecord]
    /// Adds the draft as the story's next chapter (numbered in the same transaction, so two at
    /// once take 1 and 2, never the same) and touches the story; nil when the story is not the parent's.
    func appendChapter(_ draft: ChapterDraft, parentID: String) async throws -> ChapterRecord?
    /// A story's chapters in order (none when the story is not the parent's).
    func chapters(storyID: String, parentID: String) async throws -> [ChapterRecord]

    // MARK: Share links

    /// Stores a link to one of the parent's stories; nil when the story is not theirs.
    func createShare(_ share: StoryShareRecord) async throws -> StoryShareRecord?
    /// The link of a token, for anyone holding it; nil when there is none or it was revoked.
    func share(token: String) async throws -> StoryShareRecord?
    /// Ends a link (revoking twice keeps the first time); nil when the parent has no such link.
    func revokeShare(token: String, parentID: String, now: Date) async throws -> StoryShareRecord?
    /// A story's links, newest first, revoked ones included.
    func shares(storyID: String, parentID: String) async throws -> [StoryShareRecord]

    // MARK: Blobs

    /// The content hashes of the parent's drawings: read before a user's erasure, whose
    /// transaction deletes the rows (`purgeUser`), then passed to `unreferencedHashes`.
    func drawingHashes(parentID: String) async throws -> Set<String>
    /// Those of `hashes` that no drawing (of any parent) names: their blobs can go.
    func unreferencedHashes(_ hashes: Set<String>) async throws -> Set<String>
}

extension StorytellerStore {
    public func updateChild(id: String, parentID: String, name: String, age: Int?, avatar: String?) async throws -> ChildRecord? {
        try await updateChild(id: id, parentID: parentID, name: name, age: age, avatar: avatar, now: Date())
    }

    public func drawings(childID: String, parentID: String) async throws -> DrawingPage {
        try await drawings(childID: childID, parentID: parentID, query: DrawingQuery())
    }

    public func revokeShare(token: String, parentID: String) async throws -> StoryShareRecord? {
        try await revokeShare(token: token, parentID: parentID, now: Date())
    }
}

/// What deleting a child removed, and the content hashes of its drawings that no drawing names
/// any more: the caller removes those blobs (and their thumbnails).
public struct StorytellerRemoval: Sendable, Hashable {
    public var children = 0
    public var drawings = 0
    public var stories = 0
    public var chapters = 0
    public var shares = 0
    /// Sorted.
    public var unreferencedHashes: [String] = []

    public init() {}
}

/// A cursor of `drawings(childID:parentID:query:)`: where the last page ended, as the backend
/// stored it (the drawing's `created`, in the backend's own exact form, and its id), in
/// base64url so that it travels in a query string.
public enum DrawingCursor {
    public static func make(created: String, id: String) -> String {
        Data((created + "\n" + id).utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Reads a cursor a page gave, or throws `.invalid` saying what to do.
    public static func parse(_ text: String) throws -> (created: String, id: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let decoded = String(data: data, encoding: .utf8),
              let newline = decoded.firstIndex(of: "\n") else {
            throw ChatStoreError(.invalid, "The cursor \(text.prefix(60)) is not one a page of drawings gave; list the drawings again without it.")
        }
        return (String(decoded[..<newline]), String(decoded[decoded.index(after: newline)...]))
    }
}
