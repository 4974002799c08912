import Foundation
import GriotAuth
import GriotChat
import GriotStore
import GriotStoryteller
import Hummingbird

/// Bedtime stories: told from 1 to 10 of a child's drawings, continued chapter by chapter as new
/// drawings arrive. A chapter is a turn of the storyteller assistant in the story's own thread
/// (the story's id is the thread's), so it goes through the one pipeline: the parent's request is
/// stored first, then moderation, the budget, the model behind its retries and breaker (or the
/// sample storyteller), the output stages, and the stored reply; the chapter's record (its text,
/// where each drawing goes, whether it is a sample) is written when the turn ends.
extension StorytellerRoutes {
    func addStories(to router: RouterGroup<GriotRequestContext>) {
        router.post("stories", use: tellStory)
        router.get("stories", use: stories)
        router.get("stories/:id", use: story)
        router.post("stories/:id/chapters", use: continueStory)
    }

    struct StoryBody: Decodable {
        var childID: String?
        var drawingIDs: [String]?
        var theme: String?
        enum CodingKeys: String, CodingKey { case childID = "child_id", drawingIDs = "drawing_ids", theme }
    }

    static let storyShape = #"{"child_id": "…", "drawing_ids": ["…"], "theme": "…"}"#
    static let chapterShape = #"{"drawing_ids": ["…"], "theme": "…"}"#

    /// One chapter, or (from `GET /stories/{id}`) the whole story with its chapters.
    struct StoryAnswer: ResponseEncodable {
        var id: String
        var childID: String
        var theme: String?
        var chapter: Int?
        var storyText: String
        var imagePlacements: [StoryPlacement]
        var sample: Bool
        var model: String?
        var chapters: [ChapterItem]?
    }

    struct ChapterItem: Encodable {
        var number: Int
        var storyText: String
        var imagePlacements: [StoryPlacement]
        var drawingIDs: [String]
        var sample: Bool
        var model: String
        var promptVersion: Int
        var createdAt: Date
    }

    struct StoryListItem: Encodable {
        var id: String
        var childID: String
        var theme: String?
        var createdAt: Date
        var updatedAt: Date
    }

    struct StoryList: ResponseEncodable {
        var stories: [StoryListItem]
    }

    // MARK: Telling

    @Sendable func tellStory(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let body = try await request.decodeJSON(as: StoryBody.self, context: context, shape: Self.storyShape)
        guard let childID = body.childID, !childID.isEmpty else {
            throw APIError.badRequest("missing_child", "Name the child the story is for in \"child_id\" (GET /api/storyteller/children lists them).")
        }
        let child = try await ownChild(childID, caller: caller)
        let drawings = try await chosenDrawings(body.drawingIDs, child: child, caller: caller)
        let theme = try Self.checkedText(body.theme, field: "theme", limit: 200)
        try await limiter.check(caller.userID)
        guard let story = try await store.createStory(BedtimeStoryRecord(parentID: caller.userID, childID: child.id, theme: theme)) else {
            throw APIError.notFound("child_not_found", "There is no child \(child.id) of yours; GET /api/storyteller/children lists them.")
        }
        return try await tell(request, context: context, story: story, child: child, drawings: drawings, theme: theme, chapter: 1)
    }

    @Sendable func continueStory(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let story = try await ownStory(context, caller: caller)
        let body = try await request.decodeJSON(as: StoryBody.self, context: context, shape: Self.chapterShape)
        let child = try await ownChild(story.childID, caller: caller)
        let drawings = try await chosenDrawings(body.drawingIDs, child: child, caller: caller)
        let theme = try Self.checkedText(body.theme, field: "theme", limit: 200) ?? story.theme
        try await limiter.check(caller.userID)
        let next = try await store.chapters(storyID: story.id, parentID: caller.userID).count + 1
        return try await tell(request, context: context, story: story, child: child, drawings: drawings, theme: theme, chapter: next)
    }

    /// The drawings a story is told from: 1 to 10 of this child's, each named once.
    func chosenDrawings(_ ids: [String]?, child: ChildRecord, caller: Caller) async throws -> [DrawingRecord] {
        let ids = ids ?? []
        guard limits.drawingsPerStory.contains(ids.count) else {
            throw APIError.badRequest("invalid_drawings", "Send \(limits.drawingsPerStory.lowerBound) to \(limits.drawingsPerStory.upperBound) drawing ids in \"drawing_ids\" (you sent \(ids.count)); POST /api/storyteller/drawings adds drawings.")
        }
        guard Set(ids).count == ids.count else {
            throw APIError.badRequest("invalid_drawings", "\"drawing_ids\" names a drawing twice; name each once.")
        }
        let found = try await store.drawings(ids: ids, parentID: caller.userID)
        let byID = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for id in ids where byID[id] == nil {
            throw APIError.notFound("drawing_not_found", "There is no drawing \(id) of yours; GET /api/storyteller/drawings?child_id=\(child.id) lists them.")
        }
        for drawing in found where drawing.childID != child.id {
            throw APIError.badRequest("invalid_drawings", "Drawing \(drawing.id) is another child's; a story is told from one child's drawings.")
        }
        return ids.compactMap { byID[$0] }
    }

    /// Starts the chapter's turn and answers with its stream (`Accept: text/event-stream`) or,
    /// once it ends, with the chapter as JSON.
    func tell(_ request: Request, context: GriotRequestContext, story: BedtimeStoryRecord, child: ChildRecord, drawings: [DrawingRecord],
              theme: String?, chapter: Int) async throws -> Response {
        let caller = try context.requireCaller()
        let recorder = ChapterRecorder()
        let start: (inout Request) async throws -> ChatTurn = { _ in
            var turnRequest = TurnRequest(assistant: Self.assistant, message: Self.requestText(chapter: chapter, drawings: drawings.count, theme: theme),
                                          viewer: caller.viewer, threadID: chapter == 1 ? nil : story.id)
            if chapter == 1 { turnRequest.newThreadID = story.id }
            turnRequest.requestID = context.requestID
            // The prompt's {{user_name}}: the child's first name only, or "the child" when names are
            // not sent (never nil, which would let the parent's display name fill it).
            turnRequest.userName = limits.sendsChildName ? (StoryPassages.firstName(of: child.name) ?? "the child") : "the child"
            turnRequest.assistantInput = StorytellerInput(storyID: story.id, childID: child.id, drawingIDs: drawings.map(\.id), theme: theme,
                                                          childName: limits.sendsChildName ? StoryPassages.firstName(of: child.name) : nil,
                                                          childAge: child.age).fields
            let turn: ChatTurn
            do {
                turn = try await engine.startTurn(turnRequest)
            } catch let error as ChatError {
                switch error.kind {
                case .notFound: throw APIError.notFound("story_not_found", error.description)
                case .invalid: throw APIError.badRequest("invalid_story", error.description)
                }
            }
            // The chapter is recorded when the turn ends, whoever reads the stream.
            let store = try store
            let chats = engine.chats
            await recorder.start(Task {
                await turn.finished()
                return try await Self.recordChapter(turn: turn, story: story, drawings: drawings, chats: chats, store: store)
            })
            return turn
        }
        if (request.headers[.accept] ?? "").contains("text/event-stream") {
            return try await EventStreamResponse.start(request, context: context, turns: turns, observer: observer, newTurn: start)
        }
        var request = request
        let turn = try await start(&request)
        var failure: TurnFailure?
        var events: [TurnEvent] = []
        for await event in turn.events {
            events.append(event)
            if case .error(let error) = event { failure = error }
        }
        observer.finished(events)
        guard let recorded = try await recorder.value() else {
            let failure = failure ?? TurnFailure(code: "internal_error", message: "The story could not be told; your request is saved, try again.")
            let status: HTTPResponse.Status = switch failure.code {
            case "ai_unavailable": .serviceUnavailable
            case "message_blocked": .unprocessableContent
            case "internal_error": .internalServerError
            default: .badGateway
            }
            throw APIError(status, code: failure.code, failure.message, details: ["story_id": story.id, "request_id": context.requestID])
        }
        let answer = StoryAnswer(id: story.id, childID: story.childID, theme: theme, chapter: recorded.number, storyText: recorded.text,
                                 imagePlacements: recorded.placements,
                                 sample: recorded.sample, model: recorded.model, chapters: nil)
        return try answer.response(from: request, context: context)
    }

    /// What the parent's request says, stored as the user's message of the chapter's turn: no
    /// name and no caption (those reach the model through the storyteller's sources only).
    static func requestText(chapter: Int, drawings: Int, theme: String?) -> String {
        let what = chapter == 1 ? "Tell a bedtime story" : "Continue the story with chapter \(chapter)"
        let from = drawings == 1 ? "from 1 new drawing" : "from \(drawings) new drawings"
        return "\(what) \(from)" + (theme.map { ", about: \($0)" } ?? "") + "."
    }

    /// Reads the finished turn and stores its chapter; nil when the turn did not complete.
    static func recordChapter(turn: ChatTurn, story: BedtimeStoryRecord, drawings: [DrawingRecord], chats: any ChatStore,
                              store: any StorytellerStore) async throws -> ChapterRecord? {
        guard let record = try await chats.turn(id: turn.id, includingDeleted: false), record.status == .complete,
              let message = try await chats.message(id: turn.replyMessageID, includingDeleted: false) else { return nil }
        let sample = record.model == TemplateStoryteller.modelName
        // A sample's notice is the page's and the answer's `sample` flag, not a paragraph of the story.
        let told = sample ? TemplateStoryteller.removingSampleNotice(StoryText.parse(message.content)) : StoryText.parse(message.content)
        let draft = ChapterDraft(storyID: story.id, text: told.storyText,
                                 placements: told.placements,
                                 drawingIDs: drawings.map(\.id), sample: sample, model: record.model,
                                 promptVersion: record.promptVersion, turnID: turn.id)
        return try await store.appendChapter(draft, parentID: story.parentID)
    }

    // MARK: Reading

    func ownStory(_ context: GriotRequestContext, caller: Caller) async throws -> BedtimeStoryRecord {
        let id = try context.parameters.require("id")
        guard let story = try await store.story(id: id, parentID: caller.userID) else {
            throw APIError.notFound("story_not_found", "There is no story \(id) of yours; GET /api/storyteller/stories?child_id=… lists them.")
        }
        return story
    }

    @Sendable func stories(_ request: Request, context: GriotRequestContext) async throws -> StoryList {
        let caller = try context.requireCaller()
        guard let childID = request.uri.queryParameters.get("child_id"), !childID.isEmpty else {
            throw APIError.badRequest("missing_child", "Name the child: GET /api/storyteller/stories?child_id=….")
        }
        _ = try await ownChild(childID, caller: caller)
        let stories = try await store.stories(childID: childID, parentID: caller.userID)
        return StoryList(stories: stories.map { StoryListItem(id: $0.id, childID: $0.childID, theme: $0.theme, createdAt: $0.created, updatedAt: $0.updated) })
    }

    @Sendable func story(_ request: Request, context: GriotRequestContext) async throws -> StoryAnswer {
        let caller = try context.requireCaller()
        let story = try await ownStory(context, caller: caller)
        let chapters = try await store.chapters(storyID: story.id, parentID: caller.userID)
        return Self.whole(story, chapters: chapters)
    }

    /// The whole story: its chapters' text one after the other, each drawing's place counted in
    /// paragraphs of the whole.
    static func whole(_ story: BedtimeStoryRecord, chapters: [ChapterRecord]) -> StoryAnswer {
        var text: [String] = []
        var placements: [StoryPlacement] = []
        var paragraphs = 0
        for chapter in chapters {
            placements += chapter.placements.map { StoryPlacement(drawingID: $0.drawingID, afterParagraph: $0.afterParagraph + paragraphs) }
            paragraphs += StoryText.paragraphs(of: chapter.text).count
            text.append(chapter.text)
        }
        let items = chapters.map {
            ChapterItem(number: $0.number, storyText: $0.text, imagePlacements: $0.placements,
                        drawingIDs: $0.drawingIDs, sample: $0.sample, model: $0.model, promptVersion: $0.promptVersion, createdAt: $0.created)
        }
        return StoryAnswer(id: story.id, childID: story.childID, theme: story.theme, chapter: nil, storyText: text.joined(separator: "\n\n"),
                           imagePlacements: placements, sample: chapters.contains(where: \.sample), model: nil, chapters: items)
    }
}

/// The task that records a chapter once its turn ends, for the JSON answer to wait on.
actor ChapterRecorder {
    private var task: Task<ChapterRecord?, any Error>?

    func start(_ task: Task<ChapterRecord?, any Error>) { self.task = task }

    func value() async throws -> ChapterRecord? { try await task?.value }
}
