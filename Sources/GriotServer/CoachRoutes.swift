import Foundation
import GriotAuth
import GriotChat
import GriotStore
import Hummingbird

/// The SelfFull coaching chat: one thread per user per course, scrollback, streamed replies,
/// stop, and the coach's custom instructions for a course.
struct CoachRoutes: AssistantRoutes {
    let engine: ChatEngine
    let turns: TurnRegistry
    let observer: TurnMetricsObserver
    let limiter: RateLimiter

    static let assistant = "coach"
    static let group = "coach"

    static let accessRows: [String: AccessPolicy.Row] = [
        "POST /api/coach/threads": .init(.courseMember, .read),
        "GET /api/coach/threads/{id}/messages": .init(.threadOwner(assistant: assistant, field: "thread_id", missing: "thread_not_found"), .read),
        "POST /api/coach/threads/{id}/messages": .init(.threadOwner(assistant: assistant, field: "thread_id", missing: "thread_not_found"), .chat),
        "POST /api/coach/threads/{id}/stop": .init(.threadOwner(assistant: assistant, field: "thread_id", missing: "thread_not_found"), .read),
        "PUT /api/coach/courses/{id}/instructions": .init(.courseCoach, .read),
        "GET /api/coach/threads/{id}/export": .init(.threadCourseCoach, .heavy),
        "PATCH /api/coach/messages/{id}": .init(.messageAuthor, .heavy),
        "DELETE /api/coach/messages/{id}": .init(.messageOwnerOrAdmin, .heavy),
    ]

    init(_ services: AssistantRouteServices) {
        engine = services.engine
        turns = services.turns
        observer = services.observer
        limiter = services.limiter
    }

    func add(to router: RouterGroup<GriotRequestContext>) {
        router.post("threads", use: openThread)
        router.get("threads/:id/messages", use: messages)
        router.post("threads/:id/messages", use: send)
        router.post("threads/:id/stop", use: stop)
        router.put("courses/:id/instructions", use: setInstructions)
        router.get("threads/:id/export", use: export)
        router.patch("messages/:id", use: editMessage)
        router.delete("messages/:id", use: deleteMessage)
    }

    // MARK: Threads

    struct ThreadBody: Decodable {
        var courseID: String?
        enum CodingKeys: String, CodingKey { case courseID = "course_id" }
    }

    struct ThreadReply: ResponseEncodable {
        var id: String
        var courseID: String?
        var title: String
        var createdAt: Date
        var updatedAt: Date
    }

    @Sendable func openThread(_ request: Request, context: GriotRequestContext) async throws -> ThreadReply {
        let caller = try context.requireCaller()
        let body = try await request.decodeJSON(as: ThreadBody.self, context: context, shape: #"{"course_id": "…"}"#)
        guard let courseID = body.courseID, !courseID.isEmpty else {
            throw APIError.badRequest("missing_course", "Send {\"course_id\": \"…\"}: a coaching thread belongs to one course.")
        }
        try Self.checkCourseID(courseID)
        let thread = try await engine.chats.courseThread(assistant: Self.assistant, userID: caller.userID, courseID: courseID)
        return ThreadReply(id: thread.id, courseID: thread.courseID, title: thread.title, createdAt: thread.createdAt, updatedAt: thread.updatedAt)
    }

    /// The caller's own coaching thread, as `AccessPolicy` admitted it (others' are 404 there).
    func ownThread(_ context: GriotRequestContext) throws -> ThreadRecord {
        try context.grant.requireThread()
    }

    // MARK: Messages

    struct MessageItem: ResponseEncodable {
        var id: String
        var role: String
        var content: String
        var status: String
        var sequence: Int
        var createdAt: Date
        var updatedAt: Date
        /// Send it back in `If-Match` to edit or delete this message.
        var etag: String

        init(_ message: MessageRecord) {
            id = message.id
            role = message.role.rawValue
            content = message.content
            status = message.status.rawValue
            sequence = message.sequence
            createdAt = message.createdAt
            updatedAt = message.updatedAt
            etag = message.etag
        }
    }

    struct MessagePage: ResponseEncodable {
        var messages: [MessageItem]
        /// Replies after the thread's read marker, counted before this page moved it.
        var unreadCount: Int
        var hasMore: Bool
    }

    /// Scrollback: up to `limit` (default 20) messages before the message `before`, newest last.
    /// `unread_count` is how many replies came after the thread's read marker; a page that
    /// reaches the newest message moves the marker to it (the client has now shown it).
    @Sendable func messages(_ request: Request, context: GriotRequestContext) async throws -> MessagePage {
        let thread = try ownThread(context)
        let query = request.uri.queryParameters
        let limit = query["limit"].map { Int($0) } ?? 20
        guard let limit, (1...100).contains(limit) else { throw APIError.badRequest("invalid_limit", "limit must be between 1 and 100.") }
        var beforeSequence: Int?
        if let before = query["before"].map(String.init) {
            // The cursor is the message's place in the thread: a message deleted since the
            // client saw it still marks where the client's page began.
            guard let sequence = try await engine.chats.sequence(ofMessage: before, inThread: thread.id) else {
                throw APIError.badRequest("invalid_before", "before must be the id of a message in this thread (the oldest one you have); "
                                          + "a message deleted over 30 days ago is gone: load the newest page again.")
            }
            beforeSequence = sequence
        }
        let page = try await engine.chats.messages(threadID: thread.id, before: beforeSequence, limit: limit)
        let unread = try await engine.chats.unreadCount(threadID: thread.id)
        if beforeSequence == nil, let newest = page.messages.last {
            try await engine.chats.markRead(threadID: thread.id, messageID: newest.id)
        }
        return MessagePage(messages: page.messages.map(MessageItem.init), unreadCount: unread, hasMore: page.earlier != nil)
    }

    struct SendBody: Decodable {
        var content: String?
        var isVoice: Bool?
        enum CodingKeys: String, CodingKey {
            case content
            case isVoice = "is_voice"
        }
    }

    /// Sends the caller's message and streams the coach's reply (SSE); `Last-Event-ID` resumes.
    @Sendable func send(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let thread = try ownThread(context)
        return try await EventStreamResponse.start(request, context: context, turns: turns, observer: observer) { request in
            let body = try await request.decodeJSON(as: SendBody.self, context: context, shape: #"{"content": "…"}"#)
            guard let content = body.content, !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw APIError.badRequest("empty_message", "The message is empty; send it in \"content\".")
            }
            try await limiter.check(caller.userID)
            let role = caller.role == .coach ? "coach" : "client"
            var turnRequest = TurnRequest(assistant: Self.assistant, message: content, viewer: caller.viewer, threadID: thread.id,
                                          courseID: thread.courseID, role: role, voice: body.isVoice ?? false)
            turnRequest.requestID = context.requestID
            do {
                return try await engine.startTurn(turnRequest)
            } catch let error as ChatError {
                throw APIError.badRequest("invalid_message", error.description)
            }
        }
    }

    struct StopReply: ResponseEncodable {
        var stopped: Bool
    }

    /// Stops the thread's running reply; what was written so far is stored marked stopped.
    @Sendable func stop(_ request: Request, context: GriotRequestContext) async throws -> StopReply {
        let thread = try ownThread(context)
        if let turn = await turns.runningTurn(threadID: thread.id) {
            turn.stop()
            await turn.finished()
            return StopReply(stopped: true)
        }
        // Running on another node of the fleet: that node stops it within a heartbeat.
        guard let fleet = turns.fleet, let caller = context.caller,
              try await fleet.journal.requestStreamStop(threadID: thread.id, userID: caller.userID, at: Date()) else {
            return StopReply(stopped: false)
        }
        // As on this node, answer once the reply is stored as stopped (or after a few heartbeats).
        let deadline = Date().addingTimeInterval(fleet.deadAfter)
        while Date() < deadline, try await fleet.journal.requestStreamStop(threadID: thread.id, userID: caller.userID, at: Date()) {
            try await Task.sleep(for: .milliseconds(100))
        }
        return StopReply(stopped: true)
    }

    // MARK: Courses

    /// A course id is compared with the ids in tokens' `course_ids`, so it follows the same rule
    /// (`ClaimIdentifier`): an id no token could name is refused with 400 before it is stored.
    @discardableResult
    static func checkCourseID(_ id: String) throws -> String {
        guard ClaimIdentifier.isValid(id) else {
            throw APIError(.badRequest, code: "invalid_course_id",
                           "course_id is not a valid id: use \(ClaimIdentifier.rule), as the course_ids in your tokens are.",
                           details: ["field": "course_id"])
        }
        return id
    }

    struct InstructionsBody: Decodable {
        var instructions: String?
        var title: String?
        var summary: String?
    }

    struct CourseReply: ResponseEncodable {
        var id: String
        var title: String
        var summary: String
        var instructions: String
        var updatedAt: Date
    }

    /// The coach's custom instructions ("AI Bot Instructions") for a course: coaches of the course and admins.
    @Sendable func setInstructions(_ request: Request, context: GriotRequestContext) async throws -> CourseReply {
        let id = try Self.checkCourseID(try context.parameters.require("id"))
        let body = try await request.decodeJSON(as: InstructionsBody.self, context: context, shape: #"{"instructions": "…", "title": "…"}"#)
        guard let instructions = body.instructions else {
            throw APIError.badRequest("missing_instructions", "Send the instructions in \"instructions\" (an empty string clears them).")
        }
        guard instructions.count <= 20_000 else {
            throw APIError.badRequest("instructions_too_long", "Instructions are limited to 20,000 characters; they are shortened to 15% of the token budget anyway.")
        }
        var course = try await engine.chats.course(id: id) ?? CourseRecord(id: id, title: body.title ?? id)
        course.customInstructions = instructions
        if let title = body.title { course.title = title }
        if let summary = body.summary { course.summary = summary }
        course.updatedAt = Date()
        try await APIError.mapping { try await engine.chats.saveCourse(course) }
        return CourseReply(id: course.id, title: course.title, summary: course.summary, instructions: course.customInstructions, updatedAt: course.updatedAt)
    }
}
