import Foundation

/// The text a reader sees of a story: its paragraphs separated by blank lines, and after
/// paragraph N one line `![caption](drawing:<id>)` per drawing placed there (Markdown's image
/// form, so any Markdown view shows where each drawing goes).
///
/// ```swift
/// let visible = StoryText.render(reply, drawings: drawings)
/// let back = StoryText.parse(visible)   // == reply.canonical: the story text and its placements
/// ```
/// `parse` is the exact inverse of `render` for a valid reply: that is what the stored chapter,
/// the share page and the PDF read the placements back from.
public enum StoryText {
    /// The paragraphs of a story text: split at blank lines, each trimmed, empty ones dropped.
    public static func paragraphs(of text: String) -> [String] { StoryReply.paragraphs(of: text) }

    /// The visible form of a reply. A drawing not in `drawings` is labelled "drawing".
    public static func render(_ reply: StoryReply, drawings: [StoryDrawing]) -> String {
        let labels = Dictionary(drawings.map { ($0.id, $0.label) }, uniquingKeysWith: { first, _ in first })
        let canonical = reply.canonical
        var blocks: [String] = []
        var placements = canonical.placements[...]
        for (index, paragraph) in canonical.paragraphs.enumerated() {
            blocks.append(paragraph)
            while let next = placements.first, next.afterParagraph <= index + 1 {
                placements.removeFirst()
                blocks.append(drawingLine(id: next.drawingID, caption: labels[next.drawingID] ?? "drawing"))
            }
        }
        // Placements past the last paragraph (an unchecked reply) still show, at the end.
        for placement in placements { blocks.append(drawingLine(id: placement.drawingID, caption: labels[placement.drawingID] ?? "drawing")) }
        return blocks.joined(separator: "\n\n")
    }

    /// The story text and placements of a visible story: every block of lines that are all
    /// drawing lines is placements after the paragraphs before it; every other block is a paragraph.
    ///
    /// A drawing line that the output stages joined to the end of a paragraph's line (they
    /// regroup text at sentence boundaries, and one that leaves a sentence out can take the blank
    /// line with it) is still read as a placement after that paragraph.
    public static func parse(_ visible: String) -> StoryReply {
        var paragraphs: [String] = []
        var placements: [StoryReply.Placement] = []
        for block in StoryReply.paragraphs(of: separatingDrawingLines(visible)) {
            let lines = block.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let ids = lines.map(drawingID(inLine:))
            if !ids.isEmpty, ids.allSatisfy({ $0 != nil }) {
                for id in ids { placements.append(.init(drawingID: id!, afterParagraph: paragraphs.count)) }
            } else {
                paragraphs.append(block)
            }
        }
        return StoryReply(storyText: paragraphs.joined(separator: "\n\n"), placements: placements)
    }

    /// Puts every drawing line that ends a line of text into a block of its own after it.
    static func separatingDrawingLines(_ visible: String) -> String {
        guard visible.contains("](drawing:") else { return visible }
        var lines: [String] = []
        for line in visible.split(separator: "\n", omittingEmptySubsequences: false) {
            var text = Substring(line.trimmingCharacters(in: .whitespaces))
            var markers: [Substring] = []
            // Peel drawing lines off the end, last first, while what is left still has text.
            while text.hasSuffix(")"), let start = text.range(of: "![", options: .backwards)?.lowerBound, start != text.startIndex,
                  drawingID(inLine: text[start...]) != nil {
                markers.insert(text[start...], at: 0)
                text = Substring(text[..<start].trimmingCharacters(in: .whitespaces))
            }
            if markers.isEmpty || text.isEmpty {
                lines.append(String(line))
            } else {
                lines.append(String(text))
                lines.append("")
                lines += markers.map(String.init)
                lines.append("")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `![caption](drawing:id)`, the caption on one line with its brackets escaped and the id
    /// percent-encoded past letters, digits and `-._~:`, so any caption and id reads back.
    public static func drawingLine(id: String, caption: String) -> String {
        var escaped = ""
        for character in caption.split(whereSeparator: \.isNewline).joined(separator: " ") {
            if character == "\\" || character == "[" || character == "]" { escaped.append("\\") }
            escaped.append(character)
        }
        return "![\(escaped)](drawing:\(id.addingPercentEncoding(withAllowedCharacters: idCharacters) ?? id))"
    }

    private static let idCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:")

    /// The drawing id of one line of the form `drawingLine` writes, or nil.
    public static func drawingID(inLine line: some StringProtocol) -> String? {
        guard line.hasPrefix("![") else { return nil }
        var index = line.index(line.startIndex, offsetBy: 2)
        var escaping = false
        while index < line.endIndex {
            let character = line[index]
            if escaping { escaping = false }
            else if character == "\\" { escaping = true }
            else if character == "]" { break }
            index = line.index(after: index)
        }
        guard index < line.endIndex else { return nil }
        let rest = line[line.index(after: index)...]
        guard rest.hasPrefix("(drawing:"), rest.hasSuffix(")") else { return nil }
        let encoded = rest.dropFirst("(drawing:".count).dropLast()
        guard !encoded.isEmpty, encoded.unicodeScalars.allSatisfy({ idCharacters.contains($0) || $0 == "%" }) else { return nil }
        return String(encoded).removingPercentEncoding
    }

    /// Whether a text holds a line that reads as a drawing line (a story text must not: it would
    /// read back as a placement).
    static func containsDrawingLine(_ text: String) -> Bool {
        text.split(whereSeparator: \.isNewline).contains { drawingID(inLine: $0.trimmingCharacters(in: .whitespaces)) != nil }
    }
}
