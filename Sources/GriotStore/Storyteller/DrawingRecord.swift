import Foundation

/// One drawing of a child as the database keeps it: its bytes are not here but in the
/// content-addressed blob store, under `contentHash`, so two drawings of the same bytes share
/// one blob (the store says when the last drawing naming a hash goes, so the blob can too).
/// The file name and caption are sealed with the parent's data key when a master key is configured.
public struct DrawingRecord: Sendable, Hashable, Codable {
    public var id: String
    public var parentID: String
    public var childID: String
    /// SHA-256 (hex) of the stored bytes, after their metadata was stripped.
    public var contentHash: String
    /// `image/png` or `image/jpeg`.
    public var mediaType: String
    public var byteCount: Int
    public var width: Int
    public var height: Int
    public var filename: String?
    /// The parent's words about the drawing (the offline storyteller tells its story from them).
    public var caption: String?
    public var created: Date

    public init(id: String = StorytellerID.make("dr"), parentID: String, childID: String, contentHash: String, mediaType: String,
                byteCount: Int, width: Int, height: Int, filename: String? = nil, caption: String? = nil, created: Date = Date()) {
        self.id = id
        self.parentID = parentID
        self.childID = childID
        self.contentHash = contentHash
        self.mediaType = mediaType
        self.byteCount = byteCount
        self.width = width
        self.height = height
        self.filename = filename
        self.caption = caption
        self.created = created
    }
}

/// Which of a child's drawings to list: newest first, `limit` at a time, from where the last
/// page ended (`DrawingPage.nextCursor`), optionally made in `[from, until)`.
public struct DrawingQuery: Sendable, Hashable {
    public var limit: Int
    public var cursor: String?
    public var from: Date?
    public var until: Date?

    public init(limit: Int = 50, cursor: String? = nil, from: Date? = nil, until: Date? = nil) {
        self.limit = limit
        self.cursor = cursor
        self.from = from
        self.until = until
    }

    /// The most one page holds, whatever the caller asks.
    public static let largestPage = 200

    public var pageSize: Int { max(1, min(limit, Self.largestPage)) }
}

/// One page of a child's drawings, newest first; `nextCursor` is nil on the last page.
public struct DrawingPage: Sendable, Hashable {
    public var drawings: [DrawingRecord]
    public var nextCursor: String?

    public init(drawings: [DrawingRecord], nextCursor: String?) {
        self.drawings = drawings
        self.nextCursor = nextCursor
    }
}

/// A deleted drawing, and whether another drawing (of anyone) still names its bytes: when not,
/// the caller removes the blob and its thumbnail.
public struct DrawingRemoval: Sendable, Hashable {
    public var drawing: DrawingRecord
    public var hashStillReferenced: Bool

    public init(drawing: DrawingRecord, hashStillReferenced: Bool) {
        self.drawing = drawing
        self.hashStillReferenced = hashStillReferenced
    }
}
