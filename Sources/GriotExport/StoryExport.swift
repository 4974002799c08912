import Foundation

/// A bedtime story as it is exported: its title, its chapters' paragraphs in order, and after
/// each paragraph the drawings the story placed there, with their bytes as stored.
///
/// It holds no ids and reads no store: the server gathers a story, its chapters and its drawings
/// for their parent and hands them over, so the layout can be tested on its own.
///
/// ```swift
/// let drawing = StoryExport.Drawing(bytes: png, mediaType: "image/png", caption: "A smiling sun")
/// let story = StoryExport(title: "A bedtime story", chapters: [.init(number: 1, paragraphs: [.init(text: "Once…", drawings: [drawing])])])
/// let pdf = story.pdf()
/// ```
public struct StoryExport: Sendable, Hashable {
    /// A drawing as stored: PNG or JPEG bytes, the media type they were stored as, and the label
    /// a reader sees under it (its caption, or its cleaned file name).
    public struct Drawing: Sendable, Hashable {
        public var bytes: Data
        public var mediaType: String
        public var caption: String

        public init(bytes: Data, mediaType: String, caption: String) {
            self.bytes = bytes
            self.mediaType = mediaType
            self.caption = caption
        }
    }

    /// A paragraph and the drawings the story placed after it, in the story's order.
    public struct Paragraph: Sendable, Hashable {
        public var text: String
        public var drawings: [Drawing]

        public init(text: String, drawings: [Drawing] = []) {
            self.text = text
            self.drawings = drawings
        }
    }

    /// A chapter (numbered from 1); `sample` when the offline sample storyteller wrote it.
    public struct Chapter: Sendable, Hashable {
        public var number: Int
        public var paragraphs: [Paragraph]
        public var sample: Bool

        public init(number: Int, paragraphs: [Paragraph], sample: Bool = false) {
            self.number = number
            self.paragraphs = paragraphs
            self.sample = sample
        }
    }

    public var title: String
    public var chapters: [Chapter]
    /// When the story was exported: the PDF's creation date.
    public var exportedAt: Date

    public init(title: String, chapters: [Chapter], exportedAt: Date = Date()) {
        self.title = title
        self.chapters = chapters
        self.exportedAt = exportedAt
    }
}
