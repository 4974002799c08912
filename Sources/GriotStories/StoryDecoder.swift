import Foundation

/// Something wrong with one story (or one line) of an ingest file, said so that the person
/// who made the file knows where to look and what to do.
public struct StoryProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based line for JSONL files.
    public var line: Int?
    public var artifactID: String?
    public var field: String?
    public var message: String

    public init(file: String, line: Int? = nil, artifactID: String? = nil, field: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.artifactID = artifactID
        self.field = field
        self.message = message
    }

    public var description: String {
        var place = file
        if let line { place += ":\(line)" }
        var subject = ""
        if let artifactID { subject += " story \"\(artifactID)\"" }
        if let field { subject += " field \"\(field)\"" }
        return "\(place):\(subject.isEmpty ? "" : subject + ":") \(message)"
    }
}

/// The stories of one file, with what was wrong (rejected stories) and what was odd (kept).
public struct DecodedStories: Sendable {
    public var stories: [Story] = []
    public var problems: [StoryProblem] = []
    public var warnings: [StoryProblem] = []
}

/// Reads stories in the ingest format (see `corpus/FORMAT.md`) from JSON or JSONL and checks
/// every field. A story with any problem is rejected whole; the rest of the file goes on.
///
/// ```swift
/// let decoded = StoryDecoder().decode(data, fileName: "family.jsonl")
/// for problem in decoded.problems { print(problem) }
/// ```
public struct StoryDecoder: Sendable {
    public init() {}

    /// Decodes a file's bytes. `.jsonl` (or `.ndjson`) means one story per line; anything else
    /// is JSON holding one story object or an array of them.
    public func decode(_ data: Data, fileName: String) -> DecodedStories {
        var result = DecodedStories()
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let lower = fileName.lowercased()
        if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") {
            var lineNumber = 0
            for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                lineNumber += 1
                if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
                decodeDocument(Array(line), fileName: fileName, line: lineNumber, into: &result)
            }
        } else {
            decodeDocument(bytes, fileName: fileName, line: nil, into: &result)
        }
        return resolveDuplicates(result, fileName: fileName)
    }

    private func decodeDocument(_ bytes: [UInt8], fileName: String, line: Int?, into result: inout DecodedStories) {
        if let offset = firstInvalidUTF8Offset(bytes) {
            result.problems.append(StoryProblem(
                file: fileName, line: line,
                message: "is not valid UTF-8 (bad byte at offset \(offset)); save the file as UTF-8 and ingest it again"))
            return
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            result.problems.append(StoryProblem(
                file: fileName, line: line,
                message: "is not valid JSON (\(reason)); fix the syntax, e.g. a missing comma or quote"))
            return
        }
        let objects: [Any] = (parsed as? [Any]) ?? [parsed]
        for object in objects {
            guard let fields = object as? [String: Any] else {
                result.problems.append(StoryProblem(
                    file: fileName, line: line,
                    message: "holds a \(typeName(object)), not a story object; each story is a JSON object {\"artifact_id\": ..., \"title\": ..., \"transcript\": ...}"))
                continue
            }
            var reader = FieldReader(fields: fields, file: fileName, line: line)
            if let story = reader.story() {
                result.stories.append(story)
                result.warnings += reader.warnings
            } else {
                result.problems += reader.problems
            }
        }
    }

    /// Inside one file the last story with an id wins; the earlier ones are dropped with a warning.
    private func resolveDuplicates(_ decoded: DecodedStories, fileName: String) -> DecodedStories {
        var result = decoded
        var lastIndex: [String: Int] = [:]
        for (index, story) in decoded.stories.enumerated() { lastIndex[story.artifactID] = index }
        guard lastIndex.count < decoded.stories.count else { return result }
        result.stories = decoded.stories.enumerated().filter { lastIndex[$0.element.artifactID] == $0.offset }.map(\.element)
        var counts: [String: Int] = [:]
        for story in decoded.stories { counts[story.artifactID, default: 0] += 1 }
        for (id, count) in counts.sorted(by: { $0.key < $1.key }) where count > 1 {
            result.warnings.append(StoryProblem(
                file: fileName, artifactID: id, field: "artifact_id",
                message: "appears \(count) times in this file; the last one is kept (give each story its own artifact_id if they differ)"))
        }
        return result
    }

    private func firstInvalidUTF8Offset(_ bytes: [UInt8]) -> Int? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}

func typeName(_ value: Any) -> String {
    switch value {
    case is String: return "string"
    case is [Any]: return "array"
    case is [String: Any]: return "object"
    case is NSNull: return "null"
    case is NSNumber: return "number or boolean"
    default: return "\(type(of: value))"
    }
}

/// Reads the fields of one story object, collecting every problem rather than stopping at the first.
struct FieldReader {
    let fields: [String: Any]
    let file: String
    let line: Int?
    var problems: [StoryProblem] = []
    var warnings: [StoryProblem] = []
    var artifactID: String?

    init(fields: [String: Any], file: String, line: Int?) {
        self.fields = fields
        self.file = file
        self.line = line
    }

    mutating func story() -> Story? {
        let id = requiredString("artifact_id", hint: "give every story a unique artifact_id, e.g. \"carter-1927-flood\"")
        artifactID = id
        if let id, id.count > 200 || id.contains(where: { $0.isWhitespace || $0.isNewline || $0 == "/" }) {
            problem("artifact_id", "\"\(id.prefix(40))\" is not usable as an id; use up to 200 characters without spaces or slashes")
        }
        let title = requiredString("title", hint: "add a short title such as the storyteller's name and subject")
        let privacy = readPrivacy()
        let transcript = readTranscript()
        let historical = readHistoricalContext()
        let tags = readTags()
        let duration = optionalNumber("duration_seconds")
        if let duration, duration < 0 { problem("duration_seconds", "is negative; give the recording length in seconds") }
        let story = Story(
            artifactID: id ?? "", title: title ?? "",
            description: optionalString("description"), creator: optionalString("creator"),
            creationDate: optionalString("creation_date"),
            interviewees: stringList("interviewees"), people: stringList("people"),
            tags: stringList("tags"), subject: stringList("subject"), language: stringList("language"),
            aiMetadata: tags, historicalContext: historical, privacy: privacy ?? .private,
            ownerUserID: optionalString("owner_user_id"), familyGroupIDs: stringList("family_group_ids"),
            transcript: transcript ?? Transcript(text: ""),
            videoURL: optionalString("video_url"), thumbnailURL: optionalString("thumbnail_url"),
            durationSeconds: duration, updatedAt: optionalString("updated_at"), source: optionalString("source"))
        guard problems.isEmpty, id != nil, title != nil, transcript != nil else { return nil }
        if story.privacy == .familyOnly, story.familyGroupIDs.isEmpty {
            warn("family_group_ids", "is empty for a family_only story, so only its owner can see it; list the family groups that may")
        }
        if story.privacy != .public, story.ownerUserID == nil, story.familyGroupIDs.isEmpty {
            warn("owner_user_id", "is missing on a \(story.privacy.rawValue) story, so nobody can see it; set owner_user_id")
        }
        return story
    }

    mutating func readPrivacy() -> Privacy? {
        guard let raw = fields["privacy"], !(raw is NSNull) else { return .private }
        guard let text = raw as? String else {
            problem("privacy", "must be a string: public, family_only or private")
            return nil
        }
        guard let privacy = Privacy(rawValue: text.lowercased()) else {
            problem("privacy", "has unknown value \"\(text)\"; use public, family_only or private (leave it out for private)")
            return nil
        }
        return privacy
    }

    mutating func readTranscript() -> Transcript? {
        guard let raw = fields["transcript"], !(raw is NSNull) else {
            problem("transcript", "is missing; add the transcript as a string or as {\"segments\": [{\"start\", \"end\", \"speaker\", \"text\"}]}")
            return nil
        }
        if let text = raw as? String { return nonEmpty(Transcript(text: text), field: "transcript") }
        guard let object = raw as? [String: Any] else {
            problem("transcript", "is a \(typeName(raw)); give a string or an object with text or segments")
            return nil
        }
        if let rawSegments = object["segments"], !(rawSegments is NSNull) {
            guard let list = rawSegments as? [Any] else {
                problem("transcript.segments", "must be an array of {start, end, speaker, text}")
                return nil
            }
            var segments: [TranscriptSegment] = []
            var previousEnd = 0.0
            for (index, element) in list.enumerated() {
                let field = "transcript.segments[\(index)]"
                guard let segment = element as? [String: Any] else {
                    problem(field, "is a \(typeName(element)); each segment is an object {start, end, speaker, text}")
                    continue
                }
                guard let text = segment["text"] as? String else {
                    problem(field + ".text", "is missing or not a string; add what was said in this segment")
                    continue
                }
                let start = (segment["start"] as? NSNumber)?.doubleValue
                let end = (segment["end"] as? NSNumber)?.doubleValue
                guard let start, let end, start >= 0, end >= start else {
                    problem(field, "needs numeric start and end seconds with 0 <= start <= end")
                    continue
                }
                if start + 0.001 < previousEnd {
                    warn(field + ".start", "starts at \(start)s, before the previous segment ends (\(previousEnd)s); check the timings")
                }
                previousEnd = end
                let speaker = segment["speaker"] as? String
                segments.append(TranscriptSegment(start: start, end: end, speaker: speaker?.isEmpty == true ? nil : speaker, text: text))
            }
            if !problems.isEmpty { return nil }
            if !segments.isEmpty { return nonEmpty(Transcript(segments: segments), field: "transcript.segments") }
        }
        if let text = object["text"] as? String { return nonEmpty(Transcript(text: text), field: "transcript.text") }
        problem("transcript", "has neither text nor segments; add transcript.text or transcript.segments")
        return nil
    }

    mutating func nonEmpty(_ transcript: Transcript, field: String) -> Transcript? {
        if transcript.text.allSatisfy({ $0.isWhitespace || $0.isNewline }) {
            problem(field, "is empty; a story needs what was said: add the transcript text (or leave this story out until it is transcribed)")
            return nil
        }
        return transcript
    }

    mutating func readHistoricalContext() -> [HistoricalContext] {
        guard let raw = fields["historical_context"], !(raw is NSNull) else { return [] }
        guard let list = raw as? [Any] else {
            problem("historical_context", "must be an array of {year, location: {name, coordinates: [lat, lon]}}")
            return []
        }
        var contexts: [HistoricalContext] = []
        for (index, element) in list.enumerated() {
            let field = "historical_context[\(index)]"
            guard let object = element as? [String: Any] else {
                problem(field, "must be an object {year, location}")
                continue
            }
            var context = HistoricalContext()
            if let year = object["year"], !(year is NSNull) {
                guard let number = year as? NSNumber, number.doubleValue == number.doubleValue.rounded() else {
                    problem(field + ".year", "must be a whole number such as 1927")
                    continue
                }
                context.year = number.intValue
            }
            if let location = object["location"] as? [String: Any] {
                guard let name = location["name"] as? String, !name.isEmpty else {
                    problem(field + ".location.name", "is missing; name the place, e.g. \"Greenville, Mississippi\"")
                    continue
                }
                var place = Place(name: name)
                if let coordinates = location["coordinates"], !(coordinates is NSNull) {
                    guard let pair = coordinates as? [NSNumber], pair.count == 2,
                          abs(pair[0].doubleValue) <= 90, abs(pair[1].doubleValue) <= 180 else {
                        problem(field + ".location.coordinates", "must be [latitude, longitude] in degrees, e.g. [33.41, -91.06]")
                        continue
                    }
                    place.coordinates = GeoPoint(latitude: pair[0].doubleValue, longitude: pair[1].doubleValue)
                }
                context.location = place
            }
            contexts.append(context)
        }
        return contexts
    }

    mutating func readTags() -> StoryTags {
        guard let raw = fields["ai_metadata"], !(raw is NSNull) else { return StoryTags() }
        guard let object = raw as? [String: Any] else {
            problem("ai_metadata", "must be an object {topics, people, places, keywords, summary}")
            return StoryTags()
        }
        let nested = FieldReader(fields: object, file: file, line: line)
        var reader = nested
        reader.artifactID = artifactID
        let tags = StoryTags(
            topics: reader.stringList("topics", prefix: "ai_metadata."),
            people: reader.stringList("people", prefix: "ai_metadata."),
            places: reader.stringList("places", prefix: "ai_metadata."),
            keywords: reader.stringList("keywords", prefix: "ai_metadata."),
            summary: reader.optionalString("summary", prefix: "ai_metadata."))
        problems += reader.problems
        return tags
    }

    mutating func requiredString(_ key: String, hint: String) -> String? {
        guard let value = fields[key], !(value is NSNull) else {
            problem(key, "is missing; \(hint)")
            return nil
        }
        guard let text = value as? String else {
            problem(key, "is a \(typeName(value)), not a string; \(hint)")
            return nil
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty {
            problem(key, "is empty; \(hint)")
            return nil
        }
        return trimmed
    }

    mutating func optionalString(_ key: String, prefix: String = "") -> String? {
        guard let value = fields[key], !(value is NSNull) else { return nil }
        guard let text = value as? String else {
            problem(prefix + key, "is a \(typeName(value)), not a string")
            return nil
        }
        return text.isEmpty ? nil : text
    }

    mutating func optionalNumber(_ key: String) -> Double? {
        guard let value = fields[key], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber else {
            problem(key, "is a \(typeName(value)), not a number")
            return nil
        }
        return number.doubleValue
    }

    mutating func stringList(_ key: String, prefix: String = "") -> [String] {
        guard let value = fields[key], !(value is NSNull) else { return [] }
        if let text = value as? String { return text.isEmpty ? [] : [text] }
        guard let list = value as? [Any], let strings = list as? [String] else {
            problem(prefix + key, "must be a list of strings, e.g. [\"Ida Mae Carter\"]")
            return []
        }
        return strings.filter { !$0.isEmpty }
    }

    mutating func problem(_ field: String, _ message: String) {
        problems.append(StoryProblem(file: file, line: line, artifactID: artifactID, field: field, message: message))
    }

    mutating func warn(_ field: String, _ message: String) {
        warnings.append(StoryProblem(file: file, line: line, artifactID: artifactID, field: field, message: message))
    }
}
