import Foundation
import GriotStore
import GriotStoryteller
import Hummingbird

/// A story's read-only links: made and revoked by the parent; anyone holding one sees the story
/// with its drawings in place (a page, no sign-in), until it is revoked. The token is 128 bits
/// of randomness, so a link cannot be guessed; a revoked or unknown one is 404 alike.
extension StorytellerRoutes {
    func addShares(to router: RouterGroup<GriotRequestContext>) {
        router.post("stories/:id/shares", use: createShare)
        router.get("stories/:id/shares", use: shares)
        router.delete("shares/:token", use: revokeShare)
        router.get("shared/:token", use: sharedPage)
        router.get("shared/:token/drawings/:id", use: sharedDrawing)
    }

    struct ShareItem: ResponseEncodable {
        var token: String
        var storyID: String
        var url: String
        var createdAt: Date
        var revokedAt: Date?

        init(_ share: StoryShareRecord) {
            token = share.token
            storyID = share.storyID
            url = "/api/storyteller/shared/\(share.token)"
            createdAt = share.created
            revokedAt = share.revoked
        }
    }

    struct ShareList: ResponseEncodable {
        var shares: [ShareItem]
    }

    @Sendable func createShare(_ request: Request, context: GriotRequestContext) async throws -> EditedResponse<ShareItem> {
        let caller = try context.requireCaller()
        let story = try await ownStory(context, caller: caller)
        guard let share = try await store.createShare(StoryShareRecord(storyID: story.id, parentID: caller.userID)) else {
            throw APIError.notFound("story_not_found", "There is no story \(story.id) of yours; GET /api/storyteller/stories?child_id=… lists them.")
        }
        return EditedResponse(status: .created, response: ShareItem(share))
    }

    @Sendable func shares(_ request: Request, context: GriotRequestContext) async throws -> ShareList {
        let caller = try context.requireCaller()
        let story = try await ownStory(context, caller: caller)
        return ShareList(shares: try await store.shares(storyID: story.id, parentID: caller.userID).map(ShareItem.init))
    }

    @Sendable func revokeShare(_ request: Request, context: GriotRequestContext) async throws -> ShareItem {
        let caller = try context.requireCaller()
        let token = try context.parameters.require("token")
        guard let share = try await store.revokeShare(token: token, parentID: caller.userID) else {
            throw APIError.notFound("share_not_found", "There is no link \(token.prefix(8))… of yours; GET /api/storyteller/stories/{id}/shares lists a story's links.")
        }
        return ShareItem(share)
    }

    /// The story and its chapters behind a live link; 404 for a revoked or unknown token.
    func sharedStory(_ context: GriotRequestContext) async throws -> (StoryShareRecord, BedtimeStoryRecord, [ChapterRecord]) {
        let token = try context.parameters.require("token")
        let missing = APIError.notFound("share_not_found", "This link does not lead to a story: it was revoked, or it was never made. Ask whoever sent it for a new one.")
        guard let share = try await store.share(token: token), let story = try await store.story(id: share.storyID, parentID: share.parentID) else { throw missing }
        return (share, story, try await store.chapters(storyID: story.id, parentID: share.parentID))
    }

    @Sendable func sharedPage(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let (share, story, chapters) = try await sharedStory(context)
        let drawings = try await store.drawings(ids: chapters.flatMap(\.drawingIDs), parentID: share.parentID)
        let html = SharedStoryPage(token: share.token, story: story, chapters: chapters,
                                   captions: Dictionary(drawings.map { ($0.id, StoryDrawing(id: $0.id, caption: $0.caption, filename: $0.filename).label) },
                                                                        uniquingKeysWith: { first, _ in first })).html
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'none'; img-src 'self'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// A drawing of a shared story: only one the story places, only while the link lives.
    @Sendable func sharedDrawing(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let (share, _, chapters) = try await sharedStory(context)
        let id = try context.parameters.require("id")
        guard chapters.contains(where: { $0.drawingIDs.contains(id) }), let drawing = try await store.drawing(id: id, parentID: share.parentID),
              let data = blobs.data(drawing.contentHash) else {
            throw APIError.notFound("drawing_not_found", "This story has no drawing \(id).")
        }
        var response = Self.imageResponse(data, mediaType: drawing.mediaType)
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

/// The page of a shared story: its chapters' paragraphs with each drawing after the paragraph the
/// story placed it after. Every text is escaped; the page runs no script.
struct SharedStoryPage {
    var token: String
    var story: BedtimeStoryRecord
    var chapters: [ChapterRecord]
    var captions: [String: String]

    var html: String {
        var body = ""
        let title = story.theme.map { "A bedtime story: \($0)" } ?? "A bedtime story"
        for chapter in chapters {
            if chapters.count > 1 { body += "<h2>Chapter \(chapter.number)</h2>\n" }
            if chapter.sample { body += "<p class=\"sample\">A sample story, written without the storytelling model.</p>\n" }
            let paragraphs = StoryText.paragraphs(of: chapter.text)
            let placed = Dictionary(grouping: chapter.placements, by: \.afterParagraph)
            for (index, paragraph) in paragraphs.enumerated() {
                body += "<p>\(Self.escape(paragraph))</p>\n"
                for placement in placed[index + 1] ?? [] {
                    let caption = Self.escape(captions[placement.drawingID] ?? "A drawing")
                    body += "<figure><img src=\"/api/storyteller/shared/\(Self.escape(token))/drawings/\(Self.escape(placement.drawingID))\" alt=\"\(caption)\"><figcaption>\(caption)</figcaption></figure>\n"
                }
            }
        }
        return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex"><title>\(Self.escape(title))</title><link rel="stylesheet" href="/assets/story.css"></head>
        <body><main class="story"><h1>\(Self.escape(title))</h1>
        \(body)</main></body></html>
        """
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
