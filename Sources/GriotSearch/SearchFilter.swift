import GriotStories
import GriotText

/// What a search is limited to, besides the viewer's access. Values within one list are
/// alternatives (any may match); different lists must all match.
///
/// A name or place matches when its words appear whole in one of the story's names or places,
/// ignoring case and accents: "carter" matches "Ida Mae Carter", "chicago" matches
/// "Bronzeville, Chicago".
///
/// ```swift
/// var filter = SearchFilter(viewer: viewer)
/// filter.places = ["Chicago"]
/// filter.years = 1920...1939
/// ```
public struct SearchFilter: Sendable, Hashable {
    public var viewer: Viewer
    public var people: [String] = []
    public var places: [String] = []
    public var topics: [String] = []
    public var tags: [String] = []
    /// Stories whose historical context has a year in this range.
    public var years: ClosedRange<Int>?
    /// Only these stories (for "search within this story").
    public var storyIDs: Set<String>?

    public init(viewer: Viewer, people: [String] = [], places: [String] = [], topics: [String] = [],
                tags: [String] = [], years: ClosedRange<Int>? = nil, storyIDs: Set<String>? = nil) {
        self.viewer = viewer
        self.people = people
        self.places = places
        self.topics = topics
        self.tags = tags
        self.years = years
        self.storyIDs = storyIDs
    }

    /// True when the filter limits nothing but access.
    var isAccessOnly: Bool {
        people.isEmpty && places.isEmpty && topics.isEmpty && tags.isEmpty && years == nil && storyIDs == nil
    }

    /// True when the viewer may see the story and it meets the filter's limits.
    public func admits(_ story: Story) -> Bool { admits(StoryFacets(story: story)) }

    func admits(_ story: StoryFacets) -> Bool {
        guard viewer.maySee(story.privacy, owner: story.ownerUserID, families: story.familyGroupIDs) else { return false }
        if isAccessOnly { return true }
        if let storyIDs, !storyIDs.contains(story.storyID) { return false }
        if !Self.matches(people, story.people) { return false }
        if !Self.matches(places, story.places) { return false }
        if !Self.matches(topics, story.topics) { return false }
        if !Self.matches(tags, story.tags) { return false }
        if let years, !story.years.contains(where: years.contains) { return false }
        return true
    }

    private static func matches(_ wanted: [String], _ values: [String]) -> Bool {
        if wanted.isEmpty { return true }
        for value in wanted {
            let needle = FacetText.normalize(value)
            if needle.count <= 2 { continue }
            if values.contains(where: { $0.contains(needle) }) { return true }
        }
        return false
    }
}

/// The access and facet values of one story, normalised once when the story is indexed.
public struct StoryFacets: Sendable, Hashable {
    public var storyID: String
    public var privacy: Privacy
    public var ownerUserID: String?
    public var familyGroupIDs: [String]
    public var people: [String]
    public var places: [String]
    public var topics: [String]
    public var tags: [String]
    public var years: [Int]

    public init(story: Story) {
        self.init(storyID: story.artifactID, privacy: story.privacy, ownerUserID: story.ownerUserID,
                  familyGroupIDs: story.familyGroupIDs, people: story.allPeople, places: story.allPlaces,
                  topics: story.allTopics,
                  tags: story.tags, years: story.years)
    }

    public init(storyID: String, privacy: Privacy, ownerUserID: String? = nil, familyGroupIDs: [String] = [],
                people: [String] = [], places: [String] = [], topics: [String] = [], tags: [String] = [], years: [Int] = []) {
        self.storyID = storyID
        self.privacy = privacy
        self.ownerUserID = ownerUserID
        self.familyGroupIDs = familyGroupIDs
        self.people = people.map(FacetText.normalize)
        self.places = places.map(FacetText.normalize)
        self.topics = topics.map(FacetText.normalize)
        self.tags = tags.map(FacetText.normalize)
        self.years = years
    }
}

/// Facet values as " word word " (folded, single-spaced, padded) so that containment of a
/// padded needle is whole-word containment.
enum FacetText {
    static func normalize(_ value: String) -> String {
        let scalars = Array(value.unicodeScalars)
        var words: [String] = []
        WordTokenizer.forEachSpan(in: scalars) { span in
            words.append(TermNormalizer.normalize(scalars[span.start..<span.end]))
        }
        return " " + words.joined(separator: " ") + " "
    }
}
