import Foundation
import GriotChat
import GriotProviders

/// The storyteller's check in place of groundedness: every drawing given is placed in the
/// visible story, and the text next to it (the paragraph it follows, or the one after it) speaks
/// of it, by a content word of its caption (or cleaned file name) or by naming a drawing or
/// picture outright. A problem names the drawings that fail, as a flag the parent reads.
///
/// ```swift
/// PlacementCheck().problem(in: visibleStory, grounding: grounding)
/// // "Not placed: “my dragon” (d-2). Placed but not mentioned near its place: “a red kite” (d-1, after paragraph 3)."
/// ```
public struct PlacementCheck: ReplyCheck {
    /// Words that name a drawing outright ("as in the picture").
    static let references: Set<String> = ["drawing", "drawings", "picture", "pictures", "painting", "sketch", "drew", "drawn", "crayon", "crayons"]
    static let stopWords: Set<String> = [
        "a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "with", "by", "from", "my", "our", "your", "his", "her",
        "their", "its", "me", "i", "we", "you", "he", "she", "they", "it", "is", "are", "was", "were", "be", "this", "that", "these",
        "those", "some", "very", "big", "little", "small", "new", "old", "drawing", "picture", "image", "photo", "who", "which",
        "mine", "ours", "there", "here", "up", "down", "out", "into", "over", "under", "not", "no", "so", "too", "as", "if",
    ]

    public init() {}

    public func problem(in reply: String, grounding: Grounding) -> String? {
        let drawings = StoryPassages.drawings(in: grounding)
        guard !drawings.isEmpty else { return nil }
        let story = StoryText.parse(reply)
        let paragraphs = story.paragraphs.map(Self.folded)
        var unplaced: [String] = []
        var unmentioned: [String] = []
        for drawing in drawings {
            let name = "“\(drawing.label)” (\(drawing.id))"
            guard let placement = story.placements.first(where: { $0.drawingID == drawing.id }) else {
                unplaced.append(name)
                continue
            }
            let near = [placement.afterParagraph - 1, placement.afterParagraph].filter(paragraphs.indices.contains).map { paragraphs[$0] }
            if !near.contains(where: { Self.mentions(drawing, in: $0) }) {
                unmentioned.append("“\(drawing.label)” (\(drawing.id), after paragraph \(placement.afterParagraph))")
            }
        }
        var parts: [String] = []
        if !unplaced.isEmpty { parts.append("Not placed in the story: " + unplaced.joined(separator: ", ") + ".") }
        if !unmentioned.isEmpty { parts.append("Placed but not mentioned near its place: " + unmentioned.joined(separator: ", ") + ".") }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// Whether a folded paragraph speaks of the drawing: a content word of its label, or a
    /// word that names a drawing outright.
    static func mentions(_ drawing: StoryDrawing, in paragraph: String) -> Bool {
        let words = Set(paragraph.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init))
        if !words.isDisjoint(with: references) { return true }
        for word in contentWords(of: drawing.label) {
            // A script without spaces (Chinese, Japanese, Thai) is matched inside the text.
            if word.unicodeScalars.contains(where: { $0.properties.isIdeographic || (0x0E00...0x0E7F).contains($0.value) || (0x3040...0x30FF).contains($0.value) }) {
                if paragraph.contains(word) { return true }
                continue
            }
            // "dragons" for "dragon", "kites" for "kite": the stem, at the start of a word.
            let stem = word.count > 4 ? String(word.dropLast(word.hasSuffix("es") ? 2 : word.hasSuffix("s") ? 1 : 0)) : word
            if words.contains(where: { $0.hasPrefix(stem) || stem.hasPrefix($0) && $0.count >= 4 }) { return true }
        }
        return false
    }

    /// The label's words that carry its meaning: folded, no stop words, no numbers.
    static func contentWords(of label: String) -> [String] {
        folded(label).split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
            .filter { !stopWords.contains($0) && !$0.allSatisfy(\.isNumber) && ($0.count >= 3 || $0.unicodeScalars.contains { $0.properties.isIdeographic }) }
    }

    static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }
}
