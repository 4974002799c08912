import Foundation
import GriotStore
import GriotChat

/// What the storyteller's model must reply: one JSON object,
/// `{"story_text": "…", "image_placements": [{"drawing_id": "…", "after_paragraph": 1}]}`, where
/// `story_text` is paragraphs separated by blank lines and every drawing given is placed once,
/// after a paragraph that exists.
///
/// ```swift
/// let reply = try StoryReply.parse(raw, drawingIDs: ["d-1", "d-2"])  // throws ReplyFormatError
/// reply.paragraphs.count; reply.placements[0].afterParagraph
/// ```
/// Each error names the field and what to do, in words meant for the model (given back on the
/// retry) and for the user (when the retry fails too).
public struct StoryReply: Sendable, Hashable, Codable {
    /// One drawing's place: after paragraph `afterParagraph` (from 1); the record a chapter stores.
    public typealias Placement = StoryPlacement

    public var storyText: String
    public var placements: [Placement]

    enum CodingKeys: String, CodingKey {
        case storyText = "story_text"
        case placements = "image_placements"
    }

    public init(storyText: String, placements: [Placement]) {
        self.storyText = storyText
        self.placements = placements
    }

    /// The paragraphs of `storyText`: split at blank lines, each trimmed, empty ones dropped.
    public var paragraphs: [String] { Self.paragraphs(of: storyText) }

    /// The same story in one spelling: paragraphs joined by one blank line, placements in paragraph
    /// order (drawings at one paragraph in the order given). What `parse` returns.
    public var canonical: StoryReply {
        let order = placements.enumerated().sorted { ($0.element.afterParagraph, $0.offset) < ($1.element.afterParagraph, $1.offset) }
        return StoryReply(storyText: paragraphs.joined(separator: "\n\n"), placements: order.map(\.element))
    }

    static func paragraphs(of text: String) -> [String] {
        var paragraphs: [String] = []
        var current: [Substring] = []
        func close() {
            let paragraph = current.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            if !paragraph.isEmpty { paragraphs.append(paragraph) }
            current = []
        }
        for line in text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) { close() } else { current.append(line) }
        }
        close()
        return paragraphs
    }

    static let shape = #"{"story_text": "…", "image_placements": [{"drawing_id": "…", "after_paragraph": 1}]}"#

    // MARK: Reading a reply

    /// The reply read and checked against the drawings given; canonical (see `canonical`).
    public static func parse(_ raw: String, drawingIDs: [String]) throws(ReplyFormatError) -> StoryReply {
        let reply = try decode(raw)
        try reply.validate(drawingIDs: drawingIDs)
        return reply.canonical
    }

    /// The reply's JSON object read into a `StoryReply`, without checking it against the drawings.
    /// A ```json fence around the object is taken off; any other text around it is an error.
    public static func decode(_ raw: String) throws(ReplyFormatError) -> StoryReply {
        let json = try unfenced(raw)
        let object: [String: Any]
        do {
            guard let read = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed]) as? [String: Any] else {
                throw ReplyFormatError("The reply must be one JSON object, \(shape), and nothing else.")
            }
            object = read
        } catch let error as ReplyFormatError {
            throw error
        } catch {
            throw ReplyFormatError("The reply is not valid JSON (\(Self.reason(error))). Reply with only the JSON object \(shape).")
        }
        var problems: [String] = []
        let unknown = object.keys.filter { $0 != "story_text" && $0 != "image_placements" }.sorted()
        if !unknown.isEmpty {
            problems.append("the object has \(unknown.map { "'\($0)'" }.joined(separator: ", ")), which is not a field; use only story_text and image_placements")
        }
        var storyText = ""
        switch object["story_text"] {
        case nil: problems.append("story_text is missing; it is the story, paragraphs separated by blank lines")
        case let text as String:
            storyText = text
            if paragraphs(of: text).isEmpty { problems.append("story_text is empty; write the story there, paragraphs separated by blank lines") }
        default: problems.append("story_text must be a string, the story with paragraphs separated by blank lines")
        }
        if StoryText.containsDrawingLine(storyText) {
            problems.append("story_text contains a drawing line (![…](drawing:…)); put drawings only in image_placements")
        }
        var placements: [Placement] = []
        switch object["image_placements"] {
        case nil: problems.append("image_placements is missing; it lists where each drawing goes, [{\"drawing_id\": \"…\", \"after_paragraph\": 1}]")
        case let list as [Any]:
            for (index, item) in list.enumerated() {
                guard let entry = item as? [String: Any] else {
                    problems.append("image_placements[\(index)] must be an object {\"drawing_id\": \"…\", \"after_paragraph\": 1}")
                    continue
                }
                let extra = entry.keys.filter { $0 != "drawing_id" && $0 != "after_paragraph" }.sorted()
                if !extra.isEmpty {
                    problems.append("image_placements[\(index)] has \(extra.map { "'\($0)'" }.joined(separator: ", ")), which is not a field; use only drawing_id and after_paragraph")
                }
                let id = entry["drawing_id"] as? String
                if id == nil { problems.append("image_placements[\(index)].drawing_id must be a string, one of the drawing ids given") }
                let paragraph = wholeNumber(entry["after_paragraph"])
                if paragraph == nil { problems.append("image_placements[\(index)].after_paragraph must be a whole number, the paragraph the drawing follows (from 1)") }
                if let id, let paragraph { placements.append(Placement(drawingID: id, afterParagraph: paragraph)) }
            }
        default: problems.append("image_placements must be a list, [{\"drawing_id\": \"…\", \"after_paragraph\": 1}]")
        }
        guard problems.isEmpty else { throw failure(problems) }
        return StoryReply(storyText: storyText, placements: placements)
    }

    /// Checks the placements against the drawings given: each names one of them, follows a
    /// paragraph that exists, and every drawing is placed exactly once.
    public func validate(drawingIDs: [String]) throws(ReplyFormatError) {
        var problems: [String] = []
        let count = paragraphs.count
        let given = Set(drawingIDs)
        let list = drawingIDs.isEmpty ? "none" : drawingIDs.joined(separator: ", ")
        var firstIndex: [String: Int] = [:]
        for (index, placement) in placements.enumerated() {
            if !given.contains(placement.drawingID) {
                problems.append("image_placements[\(index)].drawing_id '\(placement.drawingID)' is not one of the drawings given: \(list)")
            } else if let first = firstIndex[placement.drawingID] {
                problems.append("image_placements[\(index)] places drawing '\(placement.drawingID)' again (it is already at image_placements[\(first)]); place each drawing exactly once")
            } else {
                firstIndex[placement.drawingID] = index
            }
            if !(1...max(1, count)).contains(placement.afterParagraph) {
                problems.append("image_placements[\(index)].after_paragraph is \(placement.afterParagraph), but story_text has \(count) paragraph\(count == 1 ? "" : "s"); use a number from 1 to \(max(1, count))")
            }
        }
        for id in drawingIDs where firstIndex[id] == nil && !problems.contains(where: { $0.contains("'\(id)'") }) {
            problems.append("drawing '\(id)' is not placed; add {\"drawing_id\": \"\(id)\", \"after_paragraph\": N} with N from 1 to \(max(1, count))")
        }
        guard problems.isEmpty else { throw Self.failure(problems) }
    }

    private static func failure(_ problems: [String]) -> ReplyFormatError {
        let shown = problems.prefix(6)
        let more = problems.count > shown.count ? "; and \(problems.count - shown.count) more" : ""
        return ReplyFormatError("The story reply does not fit its format: " + shown.joined(separator: "; ") + more + ".")
    }

    /// The JSON between a ```json (or ```) fence, or the whole reply when there is no fence.
    private static func unfenced(_ raw: String) throws(ReplyFormatError) -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("```") else {
            guard text.hasPrefix("{") else {
                throw ReplyFormatError(text.isEmpty ? "The reply is empty. Reply with only the JSON object \(shape)."
                                       : "The reply must start with the JSON object, with no text before it. Reply with only \(shape).")
            }
            guard text.hasSuffix("}") else {
                throw ReplyFormatError("The reply must end with the JSON object's closing brace, with no text after it. Reply with only \(shape).")
            }
            return text
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let opening = lines.removeFirst().dropFirst(3).trimmingCharacters(in: .whitespaces).lowercased()
        guard opening.isEmpty || opening == "json", lines.last?.trimmingCharacters(in: .whitespaces) == "```" else {
            throw ReplyFormatError("The reply has a code fence that is not one ```json fence around the object. Reply with only \(shape).")
        }
        lines.removeLast()
        let inner = lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        guard inner.hasPrefix("{"), inner.hasSuffix("}") else {
            throw ReplyFormatError("The fence must hold only the JSON object \(shape).")
        }
        return inner
    }

    private static func wholeNumber(_ value: Any?) -> Int? {
        // JSON's true and false read as numbers too (of type "c"); they are no paragraph.
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, abs(double) < 1e9 else { return nil }
        return Int(double)
    }

    private static func reason(_ error: any Error) -> String {
        let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
        return String(text.prefix(160))
    }
}
