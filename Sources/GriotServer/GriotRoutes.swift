import Foundation
import GriotAuth
import GriotChat
import GriotSearch
import GriotStore
import Hummingbird

/// Ask the Griot, as the Griot and Grits mobile client calls it:
/// `POST /api/griot/chat`, `POST /api/griot/chat/stream`, `GET /api/griot/sessions`,
/// `GET|DELETE /api/griot/sessions/{id}`.
struct GriotRoutes: AssistantRoutes {
    let engine: ChatEngine
    let turns: TurnRegistry
    let observer: TurnMetricsObserver
    let limiter: RateLimiter

    static let assistant = "griot"
    static let group = "griot"

    static let accessRows: [String: AccessPolicy.Row] = [
        "POST /api/griot/chat": .init(.signedIn, .chat),
        "POST /api/griot/chat/stream": .init(.signedIn, .chat),
        "GET /api/griot/sessions": .init(.signedIn, .read),
        "GET /api/griot/sessions/{id}": .init(.threadOwner(assistant: assistant, field: "session_id", missing: "session_not_found"), .read),
        "DELETE /api/griot/sessions/{id}": .init(.threadOwner(assistant: assistant, field: "session_id", missing: "session_not_found"), .heavy),
    ]

    init(_ services: AssistantRouteServices) {
        engine = services.engine
        turns = services.turns
        observer = services.observer
        limiter = services.limiter
    }

    struct ChatBody: Decodable {
        var sessionID: String?
        var message: String?
        /// The message is a voice transcript; it passes the same moderation as typed text.
        var isVoice: Bool?

        enum CodingKeys: String, CodingKey {
            case sessionID = "session_id"
            case message
            case isVoice = "is_voice"
        }
    }

    struct CitationBody: Encodable {
        var videoID: String
        var title: String
        var interviewee: String
        var relevantExcerpt: String
        var storyID: String
        var passageID: String
        var quoteStart: Int
        var quoteEnd: Int
        var timestampSeconds: Double?
        var sourceType: String
        var number: Int
        /// True when the citing sentence says what the passage does not (the excerpt is then empty).
        var unsupported: Bool?

        /// The excerpt is the citation's quote as the stream sent it: masked as the reply was.
        init(_ citation: Citation) {
            videoID = citation.storyID
            title = citation.title
            interviewee = citation.interviewee ?? ""
            relevantExcerpt = citation.quote
            storyID = citation.storyID
            passageID = citation.passageID
            quoteStart = citation.quoteStart
            quoteEnd = citation.quoteEnd
            timestampSeconds = citation.startSeconds
            sourceType = citation.sourceType
            number = citation.number
            unsupported = citation.unsupported
        }
    }

    struct ChatReply: ResponseEncodable {
        var messageID: String
        var content: String
        var citations: [CitationBody]
        var sessionID: String
        var model: String
        var status: String
        /// The safety stages' flags (crisis, PII masked, low groundedness, ...), as the stream sends them.
        var flags: [SafetyFlag]
        var groundedness: Double?
    }

    func add(to router: RouterGroup<GriotRequestContext>) {
        router.post("chat", use: chat)
        router.post("chat/stream", use: stream)
        router.get("sessions", use: sessions)
        router.get("sessions/:id", use: session)
        router.delete("sessions/:id", use: deleteSession)
    }

    // MARK: Chat

    /// Checks the body and starts the turn; the user's message is stored before this returns.
    private func startTurn(_ request: inout Request, context: GriotRequestContext) async throws -> ChatTurn {
        let caller = try context.requireCaller()
        let body = try await request.decodeJSON(as: ChatBody.self, context: context, shape: #"{"session_id": "…", "message": "…"}"#)
        guard let message = body.message, !message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError.badRequest("empty_message", "The message is empty; send the question in \"message\".")
        }
        if let reason = StorableText.unstorableReason(message, what: "message") { throw APIError.badRequest("invalid_message", reason) }
        let sessionID = try body.sessionID.flatMap { $0.isEmpty ? nil : try ClientIdentifier.check($0, field: "session_id") }
        var threadID: String?
        var newThreadID: String?
        if let id = sessionID {
            if try await engine.chats.thread(id: id) != nil {
                threadID = id
            } else {
                // A client may name a new session itself; an id already used (by anyone) is not reused.
                guard try await !engine.chats.threadExists(id: id) else {
                    throw APIError.notFound("session_not_found", "There is no session \(id) for you; leave session_id out to start one.")
                }
                newThreadID = id
            }
        }
        // The session a client named is made by the engine, after this limit and every check of
        // the message: a refused request leaves no session behind.
        try await limiter.check(caller.userID)
        var turnRequest = TurnRequest(assistant: Self.assistant, message: message, viewer: caller.viewer, threadID: threadID,
                                      voice: body.isVoice ?? false)
        turnRequest.newThreadID = newThreadID
        turnRequest.requestID = context.requestID
        do {
            return try await engine.startTurn(turnRequest)
        } catch let error as ChatError {
            switch error.kind {
            case .notFound: throw APIError.notFound("session_not_found", error.description)
            case .invalid: throw APIError.badRequest("invalid_message", error.description)
            }
        }
    }

    @Sendable func chat(_ request: Request, context: GriotRequestContext) async throws -> ChatReply {
        var request = request
        let turn = try await startTurn(&request, context: context)
        var summary: TurnSummary?
        var failure: TurnFailure?
        var events: [TurnEvent] = []
        for await event in turn.events {
            events.append(event)
            switch event {
            case .done(let done): summary = done
            case .error(let error): failure = error
            default: break
            }
        }
        observer.finished(events)
        guard let summary, summary.status == .complete || summary.status == .stopped else {
            let failure = failure ?? TurnFailure(code: "internal_error", message: "The reply could not be completed; your message is saved, try again.")
            let status: HTTPResponse.Status = switch failure.code {
            case "ai_unavailable": .serviceUnavailable
            case "message_blocked": .unprocessableContent
            // The message does not fit the assistant's budget: the client's to shorten.
            case "message_too_long": .badRequest
            case "internal_error": .internalServerError
            default: .badGateway
            }
            var headers = HTTPFields()
            if failure.code == "ai_unavailable" { headers[.retryAfter] = String(await engine.breakers.retryAfterSeconds()) }
            throw APIError(status, code: failure.code, failure.message, details: ["session_id": turn.threadID, "message_id": turn.replyMessageID, "request_id": context.requestID],
                           headers: headers)
        }
        return ChatReply(messageID: summary.messageID, content: summary.text, citations: summary.citations.map(CitationBody.init),
                         sessionID: turn.threadID, model: summary.model, status: summary.status.rawValue,
                         flags: summary.flags, groundedness: summary.groundedness)
    }

    @Sendable func stream(_ request: Request, context: GriotRequestContext) async throws -> Response {
        try await EventStreamResponse.start(request, context: context, turns: turns, observer: observer) { request in
            try await startTurn(&request, context: context)
        }
    }

    // MARK: Sessions

    struct SessionSummary: Encodable {
        var id: String
        var title: String
        var createdAt: Date
        var updatedAt: Date
        var messageCount: Int
    }

    struct SessionList: ResponseEncodable {
        var sessions: [SessionSummary]
    }

    struct SessionMessage: Encodable {
        var id: String
        var role: String
        var content: String
        var status: String
        var createdAt: Date
    }

    struct SessionDetail: ResponseEncodable {
        var id: String
        var title: String
        var createdAt: Date
        var updatedAt: Date
        var messageCount: Int
        var messages: [SessionMessage]
    }

    @Sendable func sessions(_ request: Request, context: GriotRequestContext) async throws -> SessionList {
        let caller = try context.requireCaller()
        let summaries = try await engine.chats.threadSummaries(userID: caller.userID, assistant: Self.assistant)
        return SessionList(sessions: summaries.map {
            SessionSummary(id: $0.thread.id, title: $0.thread.title, createdAt: $0.thread.createdAt, updatedAt: $0.thread.updatedAt, messageCount: $0.messageCount)
        })
    }

    /// The caller's own session, as `AccessPolicy` admitted it (another user's is 404 there, never revealed).
    private func ownSession(_ context: GriotRequestContext) throws -> ThreadRecord {
        try context.grant.requireThread()
    }

    @Sendable func session(_ request: Request, context: GriotRequestContext) async throws -> SessionDetail {
        let thread = try ownSession(context)
        let messages = try await engine.chats.recentMessages(threadID: thread.id, limit: 1000)
        return SessionDetail(id: thread.id, title: thread.title, createdAt: thread.createdAt, updatedAt: thread.updatedAt, messageCount: messages.count,
                             messages: messages.map { SessionMessage(id: $0.id, role: $0.role.rawValue, content: $0.content, status: $0.status.rawValue, createdAt: $0.createdAt) })
    }

    @Sendable func deleteSession(_ request: Request, context: GriotRequestContext) async throws -> HTTPResponse.Status {
        let thread = try ownSession(context)
        _ = try await engine.chats.deleteThread(id: thread.id)
        return .noContent
    }
}

extension Caller {
    /// Whose stories this caller may see.
    var viewer: Viewer { Viewer(userID: userID, familyGroupIDs: Set(familyGroupIDs)) }
}
