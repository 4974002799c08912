import Foundation
import GriotChat
import GriotProviders

/// How a story turn's grounding is written: one place that the storyteller's `PassageSource`
/// (which reads the store) and the storyteller's own parts (the reply format, the template, the
/// placement check) both go through, so they agree on what a drawing, a chapter and the child are.
///
/// The passages of a story turn, numbered from 1 in this order:
/// 1. the child (`storyID` "child", `passageID` "child"): the first name only, the age band and
///    the theme; the one place the template storyteller reads the name from (a model reads it
///    from `{{user_name}}` too, which the route fills with the same first name);
/// 2. each drawing (`storyID` "drawing", `passageID` the drawing's id, `storyTitle` its caption,
///    else its cleaned file name, else "drawing"), in the order the images are sent;
/// 3. each earlier chapter (`storyID` "chapter", `passageID` "chapter-N", `storyTitle`
///    "Chapter N"), oldest first, whole or summarised (`ChapterSummary`).
///
/// ```swift
/// let context = StoryPassages.context(child: .init(name: "Ama Owusu", age: 5, theme: "the sea"),
///                                     drawings: [.init(id: "d-1", caption: "a red kite", filename: nil)],
///                                     chapters: [], images: ["data:image/jpeg;base64,…"])
/// StoryPassages.drawings(in: grounding)   // [StoryDrawing(id: "d-1", label: "a red kite")]
/// ```
public enum StoryPassages {
    public static let childStoryID = "child"
    public static let drawingStoryID = "drawing"
    public static let chapterStoryID = "chapter"

    /// The child as the model may know them: a first name (nil when the parent switched names
    /// off), an age and the story's theme.
    public struct Child: Sendable, Hashable {
        public var firstName: String?
        public var age: Int?
        public var theme: String?

        /// Only the first word of `name` is kept: no surname ever reaches the provider.
        public init(name: String?, age: Int? = nil, theme: String? = nil) {
            firstName = name.flatMap(StoryPassages.firstName(of:))
            self.age = age
            self.theme = theme.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// The first word of a name ("Zofia Łukasiewicz" → "Zofia"); nil for a blank one.
    public static func firstName(of name: String) -> String? {
        name.split(whereSeparator: { $0.isWhitespace }).first.map(String.init)
    }

    /// The passages and images of one story turn, numbered from 1 (see the type's comment).
    public static func context(child: Child, drawings: [StoryDrawing], chapters: [Chapter], images: [String]) -> SourcedContext {
        var passages = [passage(for: child, number: 1)]
        for drawing in drawings { passages.append(passage(for: drawing, number: passages.count + 1)) }
        for chapter in chapters { passages.append(passage(for: chapter, number: passages.count + 1)) }
        let description = "drawings=\(drawings.count) chapters=\(chapters.count)"
            + (chapters.contains(where: \.summarised) ? " summarised=\(chapters.filter(\.summarised).count)" : "")
        return SourcedContext(passages: passages, images: images, description: description)
    }

    // MARK: The child

    public static func passage(for child: Child, number: Int) -> GroundingPassage {
        var lines = ["First name: \(child.firstName ?? "not given; call the child \"our little one\"")"]
        if let age = child.age { lines.append("Age: \(age)") }
        if let theme = child.theme { lines.append("Theme: \(theme)") }
        return GroundingPassage(number: number, storyID: childStoryID, passageID: childStoryID, storyTitle: "The child",
                                people: child.firstName.map { [$0] } ?? [], text: lines.joined(separator: "\n"))
    }

    /// The child of a story turn's grounding, as `passage(for:number:)` wrote it.
    public static func child(in grounding: Grounding) -> Child? {
        guard let passage = grounding.passages.first(where: { $0.storyID == childStoryID }) else { return nil }
        var child = Child(name: passage.people.first)
        for line in passage.text.split(separator: "\n") {
            if line.hasPrefix("Age: ") { child.age = Int(line.dropFirst(5)) }
            if line.hasPrefix("Theme: ") { child.theme = String(line.dropFirst(7)) }
        }
        return child
    }

    // MARK: Drawings

    /// The file name goes only as its cleaned words, never as written: a name such as
    /// "zofia_kowalska_school.jpg" may say more about the child than the first name.
    public static func passage(for drawing: StoryDrawing, number: Int) -> GroundingPassage {
        var text = "Drawing id: \(drawing.id)"
        if let caption = drawing.caption { text += "\n\(captionLine)\(caption)" }
        else if let words = drawing.filename.flatMap(StoryDrawing.cleanedFilename) { text += "\n\(fileLine)\(words)" }
        return GroundingPassage(number: number, storyID: drawingStoryID, passageID: drawing.id, storyTitle: drawing.label, text: text)
    }

    static let captionLine = "The parent's caption: "
    static let fileLine = "No caption; the file name reads: "

    /// The drawings of a story turn's grounding, in the order they were given (a file name as its
    /// cleaned words).
    public static func drawings(in grounding: Grounding) -> [StoryDrawing] {
        grounding.passages.filter { $0.storyID == drawingStoryID }.map { passage in
            var caption: String?, filename: String?
            for line in passage.text.split(separator: "\n") {
                if line.hasPrefix(captionLine) { caption = String(line.dropFirst(captionLine.count)) }
                if line.hasPrefix(fileLine) { filename = String(line.dropFirst(fileLine.count)) }
            }
            return StoryDrawing(id: passage.passageID, caption: caption, filename: filename)
        }
    }

    // MARK: Chapters

    /// An earlier chapter as the model is shown it.
    public struct Chapter: Sendable, Hashable {
        public var number: Int
        public var text: String
        /// `text` is an extractive summary of the chapter, not the whole of it.
        public var summarised: Bool

        public init(number: Int, text: String, summarised: Bool = false) {
            self.number = number
            self.text = text
            self.summarised = summarised
        }

        public var passageID: String { "chapter-\(number)" }
    }

    public static func passage(for chapter: Chapter, number: Int) -> GroundingPassage {
        GroundingPassage(number: number, storyID: chapterStoryID, passageID: chapter.passageID,
                         storyTitle: "Chapter \(chapter.number)" + (chapter.summarised ? " (summary)" : ""), text: chapter.text)
    }

    /// The earlier chapters of a story turn's grounding, oldest first.
    public static func chapters(in grounding: Grounding) -> [Chapter] {
        grounding.passages.filter { $0.storyID == chapterStoryID }.compactMap { passage in
            guard passage.passageID.hasPrefix("chapter-"), let number = Int(passage.passageID.dropFirst(8)) else { return nil }
            return Chapter(number: number, text: passage.text, summarised: passage.storyTitle.hasSuffix("(summary)"))
        }
    }
}

/// A drawing as a story turn knows it: its id, and the words a story may call it by.
public struct StoryDrawing: Sendable, Hashable {
    public var id: String
    public var caption: String?
    public var filename: String?

    public init(id: String, caption: String?, filename: String?) {
        self.id = id
        let caption = caption?.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        self.caption = caption?.isEmpty == false ? caption : nil
        let filename = filename?.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        self.filename = filename?.isEmpty == false ? filename : nil
    }

    /// The caption, else the file name cleaned ("my_dragon-2.jpg" → "my dragon"), else "drawing".
    public var label: String {
        if let caption { return caption }
        if let filename, let cleaned = Self.cleanedFilename(filename) { return cleaned }
        return "drawing"
    }

    /// A file name as words: no extension, separators as spaces, numbers and camera prefixes
    /// ("IMG_2041", "DSC0007", "PXL") dropped; nil when nothing is left.
    public static func cleanedFilename(_ filename: String) -> String? {
        var name = Substring(filename)
        if let slash = name.lastIndex(where: { $0 == "/" || $0 == "\\" }) { name = name[name.index(after: slash)...] }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.distance(from: dot, to: name.endIndex) <= 6 {
            name = name[..<dot]
        }
        let words = name.split(whereSeparator: { $0 == "_" || $0 == "-" || $0 == "." || $0 == "+" || $0.isWhitespace })
            .filter { word in
                let lower = word.lowercased()
                if word.allSatisfy(\.isNumber) { return false }
                for prefix in ["img", "dsc", "pxl", "dcim", "photo", "image", "scan", "screenshot"] where lower.hasPrefix(prefix) {
                    if lower.dropFirst(prefix.count).allSatisfy(\.isNumber) { return false }
                }
                // "20241129", "v2", "x3": numbers with a letter or two are no words.
                return word.filter(\.isNumber).count * 2 <= word.count
            }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
