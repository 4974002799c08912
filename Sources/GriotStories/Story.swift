/// Who may see a story.
///
/// A story without a privacy value is private: access fails closed.
///
/// ```swift
/// let privacy = Privacy(rawValue: "family_only")   // .familyOnly
/// ```
public enum Privacy: String, Sendable, Hashable, Codable, CaseIterable {
    case `public` = "public"
    case familyOnly = "family_only"
    case `private` = "private"
}

/// A point on the map, in degrees; encoded as `[lat, lon]` like the Griot and Grits platform.
public struct GeoPoint: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        latitude = try container.decode(Double.self)
        longitude = try container.decode(Double.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(latitude)
        try container.encode(longitude)
    }
}

/// A named place, with coordinates when the source gives them.
public struct Place: Sendable, Hashable, Codable {
    public var name: String
    public var coordinates: GeoPoint?

    public init(name: String, coordinates: GeoPoint? = nil) {
        self.name = name
        self.coordinates = coordinates
    }
}

/// When and where a story happens (`historical_context` in the ingest format).
public struct HistoricalContext: Sendable, Hashable, Codable {
    public var year: Int?
    public var location: Place?

    public init(year: Int? = nil, location: Place? = nil) {
        self.year = year
        self.location = location
    }
}

/// Metadata that the platform's tagging step attached to a story (`ai_metadata`).
public struct StoryTags: Sendable, Hashable, Codable {
    public var topics: [String]
    public var people: [String]
    public var places: [String]
    public var keywords: [String]
    public var summary: String?

    public init(topics: [String] = [], people: [String] = [], places: [String] = [], keywords: [String] = [], summary: String? = nil) {
        self.topics = topics
        self.people = people
        self.places = places
        self.keywords = keywords
        self.summary = summary
    }
}

/// One timed stretch of a recording.
public struct TranscriptSegment: Sendable, Hashable, Codable {
    public var start: Double
    public var end: Double
    public var speaker: String?
    public var text: String

    public init(start: Double, end: Double, speaker: String? = nil, text: String) {
        self.start = start
        self.end = end
        self.speaker = speaker
        self.text = text
    }
}

/// What was said. With segments, `text` is the segments' texts joined by newlines, so that
/// character offsets into `text` can be mapped back to a segment and its time.
public struct Transcript: Sendable, Hashable, Codable {
    public private(set) var text: String
    public private(set) var segments: [TranscriptSegment]

    public init(text: String) {
        self.text = text
        self.segments = []
    }

    public init(segments: [TranscriptSegment]) {
        self.segments = segments
        self.text = segments.map(\.text).joined(separator: "\n")
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let segments = try container.decodeIfPresent([TranscriptSegment].self, forKey: .segments) ?? []
        if segments.isEmpty {
            self.init(text: try container.decode(String.self, forKey: .text))
        } else {
            self.init(segments: segments)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        if !segments.isEmpty { try container.encode(segments, forKey: .segments) }
    }

    private enum CodingKeys: String, CodingKey { case text, segments }
}

/// A recorded story: the unit a family uploads, and the unit of access control.
///
/// ```swift
/// let story = Story(artifactID: "carter-1927-flood", title: "The Water Came Up",
///                   privacy: .public, transcript: Transcript(text: "Well, baby..."))
/// ```
public struct Story: Sendable, Hashable, Codable {
    public var artifactID: String
    public var title: String
    public var description: String?
    public var creator: String?
    /// Free text as families write it: "circa 1960s", "summer 2009".
    public var creationDate: String?
    public var interviewees: [String]
    public var people: [String]
    public var tags: [String]
    public var subject: [String]
    public var language: [String]
    public var aiMetadata: StoryTags
    public var historicalContext: [HistoricalContext]
    public var privacy: Privacy
    public var ownerUserID: String?
    public var familyGroupIDs: [String]
    public var transcript: Transcript
    public var videoURL: String?
    public var thumbnailURL: String?
    public var durationSeconds: Double?
    public var updatedAt: String?
    /// Where the story came from when it was not uploaded by a family, e.g. "wpa:missouri.txt".
    public var source: String?
    /// The text is in the public domain (the WPA narratives, a federal work), so quoting it at
    /// length is no copying to review. Missing means false: a family's story is theirs.
    public var publicDomain: Bool {
        get { publicDomainMark ?? false }
        set { publicDomainMark = newValue ? true : nil }
    }
    /// Stored only when true, so the JSON (and the content hash) of every other story is unchanged.
    private var publicDomainMark: Bool?

    public init(
        artifactID: String,
        title: String,
        description: String? = nil,
        creator: String? = nil,
        creationDate: String? = nil,
        interviewees: [String] = [],
        people: [String] = [],
        tags: [String] = [],
        subject: [String] = [],
        language: [String] = [],
        aiMetadata: StoryTags = StoryTags(),
        historicalContext: [HistoricalContext] = [],
        privacy: Privacy = .private,
        ownerUserID: String? = nil,
        familyGroupIDs: [String] = [],
        transcript: Transcript,
        videoURL: String? = nil,
        thumbnailURL: String? = nil,
        durationSeconds: Double? = nil,
        updatedAt: String? = nil,
        source: String? = nil,
        publicDomain: Bool = false
    ) {
        self.artifactID = artifactID
        self.title = title
        self.description = description
        self.creator = creator
        self.creationDate = creationDate
        self.interviewees = interviewees
        self.people = people
        self.tags = tags
        self.subject = subject
        self.language = language
        self.aiMetadata = aiMetadata
        self.historicalContext = historicalContext
        self.privacy = privacy
        self.ownerUserID = ownerUserID
        self.familyGroupIDs = familyGroupIDs
        self.transcript = transcript
        self.videoURL = videoURL
        self.thumbnailURL = thumbnailURL
        self.durationSeconds = durationSeconds
        self.updatedAt = updatedAt
        self.source = source
        self.publicDomain = publicDomain
    }

    enum CodingKeys: String, CodingKey {
        case artifactID = "artifact_id"
        case title, description, creator
        case creationDate = "creation_date"
        case interviewees, people, tags, subject, language
        case aiMetadata = "ai_metadata"
        case historicalContext = "historical_context"
        case privacy
        case ownerUserID = "owner_user_id"
        case familyGroupIDs = "family_group_ids"
        case transcript
        case videoURL = "video_url"
        case thumbnailURL = "thumbnail_url"
        case durationSeconds = "duration_seconds"
        case updatedAt = "updated_at"
        case source
        case publicDomainMark = "public_domain"
    }
}

extension Story {
    /// Everyone the story names: interviewees, people and the tagged people, without repeats.
    public var allPeople: [String] { uniqued(interviewees + people + aiMetadata.people) }

    /// Every place the story names, from its tags and its historical context.
    public var allPlaces: [String] {
        uniqued(aiMetadata.places + historicalContext.compactMap { $0.location?.name })
    }

    /// Topics in the wide sense: topics, keywords, subjects and tags.
    public var allTopics: [String] { uniqued(aiMetadata.topics + aiMetadata.keywords + subject + tags) }

    /// The years the story is about, from its historical context.
    public var years: [Int] { historicalContext.compactMap(\.year).sorted() }
}

func uniqued(_ values: [String]) -> [String] {
    var seen = Set<String>()
    return values.filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }
}
