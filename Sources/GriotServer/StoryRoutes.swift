import Foundation
import GriotArchive
import GriotAuth
import GriotSearch
import GriotStories
import Hummingbird

/// Stories: `POST /api/stories` (admins: the ingest format), `DELETE /api/stories/{id}`,
/// `GET /api/stories/search`, `GET /api/stories/near`; every read filtered by the caller's access.
struct StoryRoutes: Sendable {
    let archive: StoryArchive

    func add(to router: RouterGroup<GriotRequestContext>) {
        router.post("", use: ingest)
        router.delete(":id", use: delete)
        router.get("search", use: search)
        router.get("near", use: near)
    }

    struct IngestReply: ResponseEncodable {
        var added: Int
        var updated: Int
        var unchanged: Int
        var storyIDs: [String]
        // Spelled out: the snake_case encoder would write "story_i_ds".
        enum CodingKeys: String, CodingKey {
            case added, updated, unchanged
            case storyIDs = "storyIds"
        }
    }

    @Sendable func ingest(_ request: Request, context: GriotRequestContext) async throws -> EditedResponse<IngestReply> {
        let data = Data(buffer: try await request.body.collect(upTo: context.maxUploadSize))
        let decoded = StoryDecoder().decode(data, fileName: "request body")
        if !decoded.problems.isEmpty {
            throw APIError(.unprocessableContent, code: "invalid_story", decoded.problems.map(\.description).joined(separator: "\n"),
                           details: ["rejected": String(decoded.rejectedCount)])
        }
        guard !decoded.stories.isEmpty else {
            throw APIError.badRequest("empty_body", "Send one story (a JSON object) or several (a JSON array) in the ingest format.")
        }
        let summary = try await archive.ingest(decoded.stories)
        return EditedResponse(status: summary.added > 0 ? .created : .ok, response: IngestReply(
            added: summary.added, updated: summary.updated, unchanged: summary.unchanged, storyIDs: decoded.stories.map(\.artifactID)))
    }

    @Sendable func delete(_ request: Request, context: GriotRequestContext) async throws -> HTTPResponse.Status {
        let id = try context.parameters.require("id")
        guard try await archive.delete(storyID: id) else {
            throw APIError.notFound("story_not_found", "There is no story \(id).")
        }
        return .noContent
    }

    struct SearchHit: Encodable {
        var storyID: String
        var passageID: String
        var title: String
        var score: Float
        var snippet: String
        /// The snippet with matched words between ** marks.
        var highlighted: String
        var speaker: String?
        var startSeconds: Double?
    }

    struct SearchReply: ResponseEncodable {
        var query: String
        var results: [SearchHit]
    }

    @Sendable func search(_ request: Request, context: GriotRequestContext) async throws -> SearchReply {
        let caller = try context.requireCaller()
        let query = request.uri.queryParameters
        guard let q = query["q"].map(String.init), !q.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw APIError.badRequest("missing_query", "Say what to look for: /api/stories/search?q=flood")
        }
        let list = { (name: String) -> [String] in
            guard let value = query[Substring(name)] else { return [] }
            return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let k = query["k"].flatMap { Int($0) } ?? 10
        guard (1...100).contains(k) else { throw APIError.badRequest("invalid_k", "k must be between 1 and 100.") }
        let filter = SearchFilter(viewer: caller.viewer, people: list("people"), places: list("places"), topics: list("topics"))
        let outcome = try await archive.search(q, filter: filter, k: k)
        return SearchReply(query: q, results: outcome.results.map {
            SearchHit(storyID: $0.passage.storyID, passageID: $0.passage.id, title: $0.storyTitle, score: $0.score,
                      snippet: $0.snippet.text, highlighted: $0.snippet.marked(), speaker: $0.passage.speaker, startSeconds: $0.passage.startSeconds)
        })
    }

    struct NearbyStory: Encodable {
        var storyID: String
        var title: String
        var place: String
        var latitude: Double
        var longitude: Double
        var distanceKm: Double
        var year: Int?
    }

    struct NearReply: ResponseEncodable {
        var stories: [NearbyStory]
    }

    /// Stories with a place within `radius_km` of a point, nearest first (one row per story, at its nearest place).
    @Sendable func near(_ request: Request, context: GriotRequestContext) async throws -> NearReply {
        let caller = try context.requireCaller()
        let query = request.uri.queryParameters
        guard let lat = query["lat"].flatMap({ Double($0) }), (-90...90).contains(lat),
              let lon = query["lon"].flatMap({ Double($0) }), (-180...180).contains(lon) else {
            throw APIError.badRequest("invalid_point", "Give lat (-90…90) and lon (-180…180), e.g. /api/stories/near?lat=33.5&lon=-86.8&radius_km=25")
        }
        let radius = query["radius_km"].flatMap { Double($0) } ?? 25
        guard radius > 0, radius <= 20_000 else { throw APIError.badRequest("invalid_radius", "radius_km must be above 0 and at most 20000.") }
        var found: [NearbyStory] = []
        for story in try await archive.store.allStories()
        where caller.viewer.maySee(story.privacy, owner: story.ownerUserID, families: story.familyGroupIDs) {
            let places = story.historicalContext.compactMap { context -> (HistoricalContext, GeoPoint)? in
                context.location?.coordinates.map { (context, $0) }
            }
            let nearest = places.map { ($0.0, $0.1, Self.distanceKm(lat, lon, $0.1.latitude, $0.1.longitude)) }.min { $0.2 < $1.2 }
            if let (context, point, distance) = nearest, distance <= radius {
                found.append(NearbyStory(storyID: story.artifactID, title: story.title, place: context.location?.name ?? "",
                                         latitude: point.latitude, longitude: point.longitude, distanceKm: (distance * 10).rounded() / 10,
                                         year: context.year))
            }
        }
        return NearReply(stories: found.sorted { $0.distanceKm < $1.distanceKm })
    }

    /// Great-circle distance (haversine, mean Earth radius).
    static func distanceKm(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians, dLon = (lon2 - lon1) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 6371.0 * 2 * atan2(sqrt(a), sqrt(1 - a))
    }
}
