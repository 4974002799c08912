import Foundation
import GriotAuth
import GriotChat
import GriotSafety
import GriotStore
import HTTPTypes
import Hummingbird
import NIOCore

/// OpenAI's wire format, so that any OpenAI client (the SDKs, LangChain, LiteLLM, Open WebUI)
/// talks to Griot without custom code: `GET /v1/models`, `POST /v1/chat/completions` (streamed
/// and not) and `POST /v1/moderations`.
///
/// A model id names an assistant (`griot`, `coach`), optionally with a prompt label or version
/// (`griot@staging`, `griot@2`). A completion runs the whole turn pipeline, as Griot's own
/// routes do: moderation, retrieval under the caller's access, the token budget, the provider or
/// the offline responder, and the output stages; the user's message is stored before the model
/// is called. What OpenAI's format has no field for travels in extensions a plain client
/// ignores: a top-level `citations` array, and a `griot` object (thread, message, status, flags,
/// groundedness, prompt version, token ledger) on the reply or the stream's last chunk.
///
/// ```sh
/// curl -N localhost:8080/v1/chat/completions -H "Authorization: Bearer $TOKEN" \
///   -d '{"model": "griot", "stream": true, "messages": [{"role": "user", "content": "Who was Ida Mae?"}]}'
/// ```
struct V1Routes: Sendable {
    let engine: ChatEngine
    let turns: TurnRegistry
    let observer: TurnMetricsObserver
    let limiter: RateLimiter
    /// When this node started: the `created` of every model it lists.
    let started = Int(Date().timeIntervalSince1970)

    func add(to router: RouterGroup<GriotRequestContext>) {
        router.get("models", use: models)
        router.post("chat/completions", use: completions)
        router.post("moderations", use: moderations)
    }

    /// What `AccessPolicy` reads of a completion's body before the handler runs.
    struct Target: Decodable {
        var model: String?
        var threadID: String?
        var courseID: String?
        /// The assistant the model id names (`griot` of `griot@staging`).
        var assistant: String? { model.map { String($0.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)[0]) } }
        enum CodingKeys: String, CodingKey {
            case model
            case threadID = "thread_id"
            case courseID = "course_id"
        }
    }

    // MARK: Models

    struct ModelList: ResponseEncodable {
        struct Model: Encodable {
            var id: String
            var object = "model"
            var created: Int
            var ownedBy = "griot"
            enum CodingKeys: String, CodingKey {
                case id, object, created
                case ownedBy = "owned_by"
            }
        }
        var object = "list"
        var data: [Model]
    }

    /// Every chat assistant, then each with each of its labels (releases.yaml's and the ones a
    /// promotion moved in the database) and `latest`.
    @Sendable func models(_ request: Request, context: GriotRequestContext) async throws -> ModelList {
        var ids: [String] = []
        for assistant in engine.prompts.chatAssistants {
            ids.append(assistant)
            ids += try await engine.promptLabelNames(of: assistant).map { "\(assistant)@\($0)" }
        }
        return ModelList(data: ids.map { ModelList.Model(id: $0, created: started) })
    }

    // MARK: Chat completions

    @Sendable func completions(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        var request = request
        let body = try await V1Completion.decode(&request, context: context)
        let completion = try await V1Completion.check(body, engine: engine)
        if completion.assistant == AccessPolicy.coach, completion.courseID == nil, context.grant.thread == nil {
            throw APIError(.badRequest, code: "missing_course",
                           "The coach answers within a course: send \"course_id\" (a course your token names) beside \"model\", or a \"thread_id\".",
                           param: "course_id")
        }
        try await limiter.check(caller.userID)
        var turnRequest = TurnRequest(assistant: completion.assistant, message: completion.message, viewer: caller.viewer,
                                      threadID: context.grant.thread?.id, courseID: context.grant.thread?.courseID ?? completion.courseID,
                                      role: completion.assistant == AccessPolicy.coach ? (caller.role == .coach ? "coach" : "client") : nil,
                                      promptLabel: completion.label)
        // A continued thread's history is its own; otherwise the client's messages are the history.
        turnRequest.history = context.grant.thread == nil ? completion.history : nil
        turnRequest.clientInstructions = completion.instructions
        turnRequest.temperature = completion.temperature
        turnRequest.maxReplyTokens = completion.maxTokens
        turnRequest.stop = completion.stop
        turnRequest.endUser = completion.user
        turnRequest.requestID = context.requestID
        if let user = completion.user { context.logger.info("completion for an end user", metadata: ["end_user": .string(user)]) }
        let turn: ChatTurn
        do {
            turn = try await engine.startTurn(turnRequest)
        } catch let error as ChatError {
            switch error.kind {
            case .notFound: throw APIError(.notFound, code: "thread_not_found", error.description, param: "thread_id")
            case .invalid: throw APIError(.badRequest, code: "invalid_message", error.description, param: "messages")
            }
        }
        let reply = V1Reply(id: "chatcmpl-\(turn.id)", model: completion.model, created: Int(Date().timeIntervalSince1970),
                            threadID: turn.threadID, turnID: turn.id, requestID: context.requestID)
        if completion.stream {
            return try await stream(turn, reply: reply, includeUsage: completion.includeUsage, caller: caller, context: context)
        }
        var events: [TurnEvent] = []
        for await event in turn.events { events.append(event) }
        observer.finished(events)
        var outcome = V1Outcome()
        for event in events { outcome.take(event) }
        if let failure = try await refusal(outcome, reply: reply) { throw failure }
        return try outcome.completion(reply, counters: engine.counters).response(from: request, context: context)
    }

    /// The error a client gets for a turn that ended before any reply text: the same statuses as
    /// Griot's own routes, in OpenAI's error shape. Nil when the turn gave a reply.
    private func refusal(_ outcome: V1Outcome, reply: V1Reply) async throws -> APIError? {
        guard let failure = outcome.failure, outcome.text.isEmpty,
              outcome.summary.map({ $0.status != .complete && $0.status != .stopped }) ?? true else { return nil }
        let status: HTTPResponse.Status = switch failure.code {
        case "ai_unavailable": .serviceUnavailable
        // OpenAI refuses input against its policies with 400; so does this facade.
        case "message_blocked", "message_too_long": .badRequest
        case "internal_error": .internalServerError
        default: .badGateway
        }
        var headers = HTTPFields()
        if failure.code == "ai_unavailable" { headers[.retryAfter] = String(await engine.breakers.retryAfterSeconds()) }
        return APIError(status, code: failure.code == "message_too_long" ? "context_length_exceeded" : failure.code, failure.message,
                        details: ["thread_id": reply.threadID, "turn_id": reply.turnID, "request_id": reply.requestID],
                        headers: headers, param: status == .badRequest ? "messages" : nil)
    }

    /// The turn as `chat.completion.chunk`s. The response starts once the reply's first text (or
    /// its end) is known, so a turn refused before any text (blocked, provider down) is an HTTP
    /// error the SDK raises as its own exception, not a 200 stream holding an error. A client
    /// that hangs up stops the turn at once (no resume in OpenAI's protocol): the upstream
    /// request is cancelled and the partial reply stored as `stopped`.
    private func stream(_ turn: ChatTurn, reply: V1Reply, includeUsage: Bool, caller: Caller, context: GriotRequestContext) async throws -> Response {
        await turns.register(turn, owner: caller.userID, finished: observer.finished)
        guard let subscribed = await turns.subscribe(turnID: turn.id, owner: caller.userID, after: 0) else {
            throw APIError(.internalServerError, code: "internal_error", "The turn could not be followed; try again.")
        }
        let events = V1EventReader(subscribed)
        var outcome = V1Outcome()
        var head: [TurnEvent] = []
        // Up to the first text, the end, or an error.
        while let event = await events.next() {
            head.append(event)
            outcome.take(event)
            if case .delta = event { break }
            if case .done = event { break }
        }
        if let failure = try await refusal(outcome, reply: reply) {
            // Drain the rest (the turn's `done`) so the registry records how it ended.
            while await events.next() != nil {}
            throw failure
        }
        let closed = context.connectionClosed
        let turnID = turn.id
        let first = head
        return Response(status: .ok, headers: TurnEventStream.headers, body: .init { [turns, engine] writer in
            context.closeConnectionAfterResponse()
            let hangUp = Task {
                try? await closed.get()
                await turns.stop(turnIDs: [turnID])
            }
            defer { hangUp.cancel() }
            var outcome = V1Outcome()
            var chunks = V1Chunks(reply: reply, includeUsage: includeUsage, counters: engine.counters)
            do {
                for event in first {
                    outcome.take(event)
                    for frame in chunks.frames(for: event, outcome: outcome) { try await writer.write(ByteBuffer(bytes: frame)) }
                }
                while let event = await events.next() {
                    outcome.take(event)
                    for frame in chunks.frames(for: event, outcome: outcome) { try await writer.write(ByteBuffer(bytes: frame)) }
                }
                // The events end early only when this task was cancelled (the server gave up
                // on the connection): the turn has not ended, so it is stopped.
                if outcome.summary == nil { await turns.stop(turnIDs: [turnID]) }
                try await writer.finish(nil)
            } catch {
                // A write failed: the client has gone, whether or not the connection's close
                // has been noticed yet. The turn stops now rather than writing on to nobody.
                await turns.stop(turnIDs: [turnID])
                throw error
            }
        })
    }

    // MARK: Moderations

    struct ModerationBody: Decodable {
        var input: ModerationInput?
        var model: String?
    }

    enum ModerationInput: Decodable {
        case one(String)
        case many([String])
        /// OpenAI's multi-modal form: `[{"type": "text", "text": "…"}]`.
        case parts([V1Completion.Part])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) { self = .one(text) }
            else if let texts = try? container.decode([String].self) { self = .many(texts) }
            else { self = .parts(try container.decode([V1Completion.Part].self)) }
        }
    }

    /// Griot's own moderation (the one every message passes), in OpenAI's format: one result per
    /// input, with OpenAI's 13 categories. Griot scores five (harassment, hate, sexual, violence,
    /// self-harm); a subcategory it does not tell apart scores 0 (see `V1Moderation`).
    @Sendable func moderations(_ request: Request, context: GriotRequestContext) async throws -> Response {
        var request = request
        let body: ModerationBody
        do {
            let buffer = try await request.collectBody(upTo: context.maxUploadSize)
            body = try JSONDecoder().decode(ModerationBody.self, from: Data(buffer: buffer))
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError.bodyTooLarge(limit: context.maxUploadSize)
        } catch {
            throw APIError(.badRequest, code: "invalid_body", #"The body must be JSON: {"input": "text"} or {"input": ["text", …]}."#, param: "input")
        }
        let texts: [String]
        switch body.input {
        case .one(let text): texts = [text]
        case .many(let many): texts = many
        case .parts(let parts):
            guard parts.allSatisfy({ $0.type == "text" }) else {
                throw APIError(.badRequest, code: "unsupported_content", "Griot's moderation reads text only; send the text parts alone.", param: "input")
            }
            texts = parts.compactMap(\.text)
        case nil:
            throw APIError(.badRequest, code: "missing_input", #"Send the text to check in "input": a string or an array of strings."#, param: "input")
        }
        guard !texts.isEmpty, texts.count <= V1Moderation.maximumInputs else {
            throw APIError(.badRequest, code: "invalid_input", "Send 1 to \(V1Moderation.maximumInputs) texts in \"input\".", param: "input")
        }
        for (index, text) in texts.enumerated() {
            if let reason = StorableText.unstorableReason(text, what: "input") {
                throw APIError(.badRequest, code: "invalid_input", reason, param: texts.count == 1 ? "input" : "input[\(index)]")
            }
            guard text.count <= ChatEngine.maximumMessageCharacters else {
                throw APIError(.badRequest, code: "input_too_long",
                               "input\(texts.count == 1 ? "" : "[\(index)]") is over \(ChatEngine.maximumMessageCharacters) characters; split it.",
                               param: texts.count == 1 ? "input" : "input[\(index)]")
            }
        }
        var results: [V1Moderation.Result] = []
        for text in texts { results.append(V1Moderation.Result(await engine.safety.moderator.moderate(text))) }
        let reply = V1Moderation.Reply(id: "modr-\(UUID().uuidString.lowercased())", model: V1Moderation.model, results: results)
        return try reply.response(from: request, context: context)
    }
}

/// Reads a subscription's events back as `TurnEvent`s (the registry keeps them as sent: an SSE
/// name and JSON data). One reader at a time: the handler, then the response body.
final class V1EventReader: @unchecked Sendable {
    private var iterator: AsyncStream<TurnRegistry.StreamedEvent>.AsyncIterator
    private let decoder: JSONDecoder

    init(_ stream: AsyncStream<TurnRegistry.StreamedEvent>) {
        iterator = stream.makeAsyncIterator()
        decoder = .turnEvents()
    }

    func next() async -> TurnEvent? {
        while let streamed = await iterator.next() {
            if let event = TurnEvent.decode(streamed.content, decoder: decoder) { return event }
        }
        return nil
    }
}
