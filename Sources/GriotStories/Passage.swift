/// A stretch of one story's transcript: the unit that search returns and answers cite.
///
/// ```swift
/// let passages = PassageSplitter().passages(of: story)
/// passages[0].startSeconds   // where the video opens for this passage
/// ```
public struct Passage: Sendable, Hashable, Codable {
    /// Stable across re-ingests of the same text: the story id and a hash of the passage text.
    public var id: String
    public var storyID: String
    /// Position of the passage within its story, from 0.
    public var ordinal: Int
    public var text: String
    /// The speaker with the most words in the passage, when the transcript names speakers.
    public var speaker: String?
    /// Seconds into the recording, when the transcript has timed segments.
    public var startSeconds: Double?
    public var endSeconds: Double?
    /// Unicode scalar offsets of the passage in the story's transcript text.
    public var startOffset: Int
    public var endOffset: Int

    public init(id: String, storyID: String, ordinal: Int, text: String, speaker: String? = nil,
                startSeconds: Double? = nil, endSeconds: Double? = nil, startOffset: Int, endOffset: Int) {
        self.id = id
        self.storyID = storyID
        self.ordinal = ordinal
        self.text = text
        self.speaker = speaker
        self.startSeconds = startSeconds
        self.endSeconds = endSeconds
        self.startOffset = startOffset
        self.endOffset = endOffset
    }

    enum CodingKeys: String, CodingKey {
        case id
        case storyID = "story_id"
        case ordinal, text, speaker
        case startSeconds = "start_seconds"
        case endSeconds = "end_seconds"
        case startOffset = "start_offset"
        case endOffset = "end_offset"
    }
}
