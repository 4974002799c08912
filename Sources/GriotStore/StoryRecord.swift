import Foundation
import GRDB
import GriotStories

/// A story row: the access columns (for SQL-side filters and operators' queries) and the
/// whole story as JSON. Both backends store this row, so a story hashes alike on either.
public struct StoryRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    public static let databaseTableName = "story"

    public var id: String
    public var title: String
    public var privacy: String
    public var ownerUserID: String?
    public var familyGroupIDs: String
    public var document: String
    /// The story's JSON and the splitter revision, hashed: a changed hash means new passages.
    public var contentHash: String
    public var ingestedAt: Date

    public init(story: Story, revision: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(story), as: UTF8.self)
        id = story.artifactID
        title = story.title
        privacy = story.privacy.rawValue
        ownerUserID = story.ownerUserID
        // JSON, not a joined string: group ids may hold any character.
        familyGroupIDs = String(decoding: try encoder.encode(story.familyGroupIDs), as: UTF8.self)
        document = json
        contentHash = StableHash.hex(revision + "\n" + json)
        ingestedAt = Date()
    }

    public func story() throws -> Story {
        try JSONDecoder().decode(Story.self, from: Data(document.utf8))
    }
}

/// A passage row, one to one with `Passage`.
struct PassageRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "passage"

    var id: String
    var storyID: String
    var ordinal: Int
    var text: String
    var speaker: String?
    var startSeconds: Double?
    var endSeconds: Double?
    var startOffset: Int
    var endOffset: Int

    init(_ passage: Passage) {
        id = passage.id
        storyID = passage.storyID
        ordinal = passage.ordinal
        text = passage.text
        speaker = passage.speaker
        startSeconds = passage.startSeconds
        endSeconds = passage.endSeconds
        startOffset = passage.startOffset
        endOffset = passage.endOffset
    }

    var passage: Passage {
        Passage(id: id, storyID: storyID, ordinal: ordinal, text: text, speaker: speaker,
                startSeconds: startSeconds, endSeconds: endSeconds, startOffset: startOffset, endOffset: endOffset)
    }
}

/// A story's text as stored: a public story's stays plain (anyone may read it), a non-public
/// story's title, document and passages are sealed with the story's own data key, which a
/// delete of the story shreds.
extension StoryRecord {
    /// Whether this story's text is sealed: every story but a public one.
    var isSealed: Bool { privacy != Privacy.public.rawValue }

    func sealed(_ cipher: FieldCipher, _ db: Database) throws -> StoryRecord {
        guard isSealed else { return self }
        var record = self
        record.title = try cipher.seal(title, .storyTitle, row: id, scope: .story(id), db: db)
        record.document = try cipher.seal(document, .storyDocument, row: id, scope: .story(id), db: db)
        return record
    }

    func opened(_ cipher: FieldCipher, _ db: Database) throws -> StoryRecord {
        guard isSealed else { return self }
        var record = self
        record.title = try cipher.open(title, .storyTitle, row: id, db: db)
        record.document = try cipher.open(document, .storyDocument, row: id, db: db)
        return record
    }
}

extension PassageRecord {
    /// Sealed with the story's data key `keyID` (read once per story by the caller: a story
    /// has hundreds of passages), or as it is when the story is public (nil).
    func sealed(_ cipher: FieldCipher, keyID: String?) throws -> PassageRecord {
        guard let keyID else { return self }
        var record = self
        record.text = try cipher.seal(text, .passageText, row: id, keyID: keyID)
        record.speaker = try cipher.seal(speaker, .passageSpeaker, row: id, keyID: keyID)
        return record
    }

    func opened(_ cipher: FieldCipher, _ sealed: Bool, _ db: Database) throws -> PassageRecord {
        guard sealed else { return self }
        var record = self
        record.text = try cipher.open(text, .passageText, row: id, db: db)
        record.speaker = try cipher.open(speaker, .passageSpeaker, row: id, db: db)
        return record
    }
}
