import Foundation

/// Something wrong with one story (or one line) of an ingest file, said so that the person
/// who made the file knows where to look and what to do.
public struct StoryProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based line for JSONL files.
    public var line: Int?
    /// 0-based position in a top-level JSON array, so that the person can find the story
    /// in a file that holds many of them on few lines.
    public var element: Int?
    public var artifactID: String?
    public var field: String?
    public var message: String

    public init(file: String, line: Int? = nil, element: Int? = nil, artifactID: String? = nil, field: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.element = element
        self.artifactID = artifactID
        self.field = field
        self.message = message
    }

    /// `FILE[:LINE][[ELEMENT]]: story "ID" field "F": message`, e.g. `family.jsonl:5: ...` or `family.json[3]: ...`.
    public var description: String {
        var place = file
        if let line { place += ":\(line)" }
        if let element { place += "[\(element)]" }
        var subject = ""
        if let artifactID { subject += " story \"\(artifactID)\"" }
        if let field { subject += " field \"\(field)\"" }
        return "\(place):\(subject.isEmpty ? "" : subject + ":") \(message)"
    }
}

/// The stories of one file, with what was wrong (rejected stories) and what was odd (worth a
/// look, but no reason to reject a story).
public struct DecodedStories: Sendable {
    public var stories: [Story] = []
    public var problems: [StoryProblem] = []
    public var warnings: [StoryProblem] = []
    /// Stories turned away: one per story object with problems (however many problems it has),
    /// per unreadable file or JSONL line, and per valid copy dropped because a later copy with
    /// the same artifact_id was rejected. Counted here because problems cannot be: one story
    /// may have several, and stories without a usable artifact_id cannot be told apart.
    public var rejectedCount = 0
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
        var occurrences: [Occurrence] = []
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let lower = fileName.lowercased()
        if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") {
            var lineNumber = 0
            for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                lineNumber += 1
                if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
                decodeDocument(Array(line), fileName: fileName, line: lineNumber, into: &result, occurrences: &occurrences)
            }
        } else {
            decodeDocument(bytes, fileName: fileName, line: nil, into: &result, occurrences: &occurrences)
        }
        return resolveDuplicates(result, occurrences: occurrences, fileName: fileName)
    }

    /// One story object as it appeared in the file, accepted or not, so that duplicates can be
    /// judged by the copy the person wrote last rather than by the last copy that happened to pass.
    private struct Occurrence {
        var artifactID: String
        var line: Int?
        var element: Int?
        /// Its index in `DecodedStories.stories`, or nil when it was rejected.
        var storyIndex: Int?
    }

    private func decodeDocument(
        _ bytes: [UInt8], fileName: String, line: Int?,
        into result: inout DecodedStories, occurrences: inout [Occurrence]
    ) {
        if let offset = firstInvalidUTF8Offset(bytes) {
            result.problems.append(StoryProblem(
                file: fileName, line: line,
                message: "is not valid UTF-8 (bad byte at offset \(offset)); save the file as UTF-8 and ingest it again"))
            result.rejectedCount += 1
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
            result.rejectedCount += 1
            return
        }
        // Only stories in a top-level array get a position; a lone object is found by its file (or line).
        let elements: [(object: Any, element: Int?)] = (parsed as? [Any]).map { list in
            list.enumerated().map { ($0.element, $0.offset) }
        } ?? [(parsed, nil)]
        for (object, element) in elements {
            guard let fields = object as? [String: Any] else {
                result.problems.append(StoryProblem(
                    file: fileName, line: line, element: element,
                    message: "holds a \(typeName(object)), not a story object; each story is a JSON object {\"artifact_id\": ..., \"title\": ..., \"transcript\": ...}"))
                result.rejectedCount += 1
                continue
            }
            var reader = FieldReader(fields: fields, file: fileName, line: line, element: element)
            let story = reader.story()
            // Warnings of a rejected story are kept too: a misspelt key often explains the rejection.
            result.warnings += reader.warnings
            if let story {
                result.stories.append(story)
            } else {
                result.problems += reader.problems
                result.rejectedCount += 1
            }
            if let id = reader.artifactID {
                occurrences.append(Occurrence(
                    artifactID: id, line: line, element: element,
                    storyIndex: story == nil ? nil : result.stories.count - 1))
            }
        }
    }

    /// Inside one file the last copy of an id is the one the person meant. When it is valid it
    /// wins and the earlier copies are dropped with a warning. When it was rejected, no copy is
    /// stored: an earlier copy may say `"privacy": "public"` where the last one tried to restrict
    /// the story, so keeping it would publish what the person meant to hide.
    private func resolveDuplicates(_ decoded: DecodedStories, occurrences: [Occurrence], fileName: String) -> DecodedStories {
        var result = decoded
        var copies: [String: [Occurrence]] = [:]
        var order: [String] = []
        for occurrence in occurrences {
            if copies[occurrence.artifactID] == nil { order.append(occurrence.artifactID) }
            copies[occurrence.artifactID, default: []].append(occurrence)
        }
        var dropped = Set<Int>()
        for id in order {
            guard let all = copies[id], all.count > 1, let last = all.last else { continue }
            let earlierAccepted = all.dropLast().compactMap(\.storyIndex)
            dropped.formUnion(earlierAccepted)
            if last.storyIndex != nil {
                result.warnings.append(StoryProblem(
                    file: fileName, artifactID: id, field: "artifact_id",
                    message: "appears \(all.count) times in this file; the last one is kept (give each story its own artifact_id if they differ)"))
            } else if !earlierAccepted.isEmpty {
                // Every copy already rejected says so itself; this only explains the valid copies that vanish.
                result.problems.append(StoryProblem(
                    file: fileName, line: last.line, element: last.element, artifactID: id, field: "artifact_id",
                    message: "appears \(all.count) times in this file and its last copy was rejected, so no copy is stored; fix the last copy and ingest again"))
                result.rejectedCount += earlierAccepted.count
            }
        }
        if !dropped.isEmpty {
            result.stories = decoded.stories.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
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
    let element: Int?
    var problems: [StoryProblem] = []
    var warnings: [StoryProblem] = []
    var artifactID: String?

    /// The top-level keys of the ingest format: `Story.CodingKeys`, spelt out because those are
    /// not enumerable. A test encodes a full `Story` and expects no unknown-field warning, so the
    /// two cannot drift apart unnoticed.
    static let knownKeys = [
        "artifact_id", "title", "description", "creator", "creation_date", "interviewees", "people", "tags",
        "subject", "language", "ai_metadata", "historical_context", "privacy", "owner_user_id",
        "family_group_ids", "transcript", "video_url", "thumbnail_url", "duration_seconds", "updated_at", "source",
        "public_domain",
    ]

    init(fields: [String: Any], file: String, line: Int?, element: Int? = nil) {
        self.fields = fields
        self.file = file
        self.line = line
        self.element = element
    }

    mutating func story() -> Story? {
        let id = requiredString("artifact_id", hint: "give every story a unique artifact_id, e.g. \"carter-1927-flood\"")
        artifactID = id
        // No control or invisible format characters either: an id with a NUL was cut there when
        // stored, and a zero-width space makes two ids that look the same.
        if let id, id.count > 200 || id.contains(where: { $0.isWhitespace || $0.isNewline || $0 == "/" })
            || id.unicodeScalars.contains(where: { [.control, .format].contains($0.properties.generalCategory) }) {
            problem("artifact_id", "\"\(id.prefix(40))\" is not usable as an id; use up to 200 characters without spaces, slashes or control characters")
        }
        warnAboutUnknownKeys()
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
            durationSeconds: duration, updatedAt: optionalString("updated_at"), source: optionalString("source"),
            publicDomain: optionalBool("public_domain", hint: "true only for text nobody holds a copyright in, e.g. the WPA narratives") ?? false)
        guard problems.isEmpty, id != nil, title != nil, transcript != nil else { return nil }
        if story.privacy == .familyOnly, story.familyGroupIDs.isEmpty {
            warn("family_group_ids", "is empty for a family_only story, so only its owner can see it; list the family groups that may")
        }
        if story.privacy != .public, story.ownerUserID == nil, story.familyGroupIDs.isEmpty {
            warn("owner_user_id", "is missing on a \(story.privacy.rawValue) story, so nobody can see it; set owner_user_id")
        }
        return story
    }

    /// A misspelt key would otherwise vanish without a word, and with it perhaps the privacy the
    /// person chose; the story is still stored, since nothing it does say is wrong.
    mutating func warnAboutUnknownKeys() {
        let known = Set(Self.knownKeys)
        for key in fields.keys.sorted() where !known.contains(key) {
            guard let suggestion = Self.nearestKnownKey(to: key) else {
                warn(nil, "unknown field \"\(key)\" is ignored; remove it, or rename it to one of the fields in corpus/FORMAT.md")
                continue
            }
            var message = "unknown field \"\(key)\" is ignored; did you mean \"\(suggestion)\"?"
            if suggestion == "privacy", fields["privacy"] == nil || fields["privacy"] is NSNull {
                message += " Without a \"privacy\" field this story is private; rename the field to set its privacy"
            }
            warn(nil, message)
        }
    }

    /// The known key closest to `key`, ignoring case, within 2 edits (1 for keys of up to 3
    /// characters, where 2 edits would match nearly anything).
    static func nearestKnownKey(to key: String) -> String? {
        let typed = Array(key.lowercased())
        let limit = typed.count <= 3 ? 1 : 2
        var best: (key: String, distance: Int)?
        for candidate in knownKeys {
            let distance = editDistance(typed, Array(candidate))
            if distance <= limit, distance < best?.distance ?? Int.max { best = (candidate, distance) }
        }
        return best?.key
    }

    /// Edits (insert, delete, substitute, swap two neighbours) needed to turn `a` into `b`; a
    /// swap counts as one because "tilte" for "title" is one slip of the fingers.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
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
                var speaker: String?
                if let rawSpeaker = segment["speaker"], !(rawSpeaker is NSNull) {
                    guard let name = rawSpeaker as? String else {
                        problem(field + ".speaker", "is a \(typeName(rawSpeaker)), not a string; give the speaker's name, e.g. \"Ida Mae Carter\", or leave speaker out")
                        continue
                    }
                    speaker = name.isEmpty ? nil : name
                }
                segments.append(TranscriptSegment(start: start, end: end, speaker: speaker, text: text))
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
            if let rawLocation = object["location"], !(rawLocation is NSNull) {
                guard let location = rawLocation as? [String: Any] else {
                    let shape = #"must be an object {"name": ..., "coordinates": [lat, lon]}"#
                    if let name = rawLocation as? String {
                        problem(field + ".location", "is a string, but \(shape); write {\"name\": \"\(name)\"} and add coordinates if you know them")
                    } else {
                        problem(field + ".location", "is a \(typeName(rawLocation)), but \(shape), e.g. {\"name\": \"Greenville, Mississippi\", \"coordinates\": [33.41, -91.06]}")
                    }
                    continue
                }
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
        let nested = FieldReader(fields: object, file: file, line: line, element: element)
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

    mutating func optionalBool(_ key: String, hint: String) -> Bool? {
        guard let value = fields[key], !(value is NSNull) else { return nil }
        // JSONSerialization reads true/false as NSNumber, as it does 1 and 0; only a boolean has
        // the C type "c" (a number in JSON never comes back as a char), and only a boolean counts.
        guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else {
            problem(key, "is a \(typeName(value)), not true or false; \(hint)")
            return nil
        }
        return number.boolValue
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
        problems.append(StoryProblem(file: file, line: line, element: element, artifactID: artifactID, field: field, message: message))
    }

    mutating func warn(_ field: String?, _ message: String) {
        warnings.append(StoryProblem(file: file, line: line, element: element, artifactID: artifactID, field: field, message: message))
    }
}
