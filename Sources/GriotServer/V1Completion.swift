import Foundation
import GriotChat
import GriotProviders
import GriotStore
import Hummingbird
import NIOCore

/// A chat completion request in OpenAI's format, read and checked: what is honoured (model,
/// messages, stream, `stream_options.include_usage`, `max_tokens`/`max_completion_tokens`,
/// `temperature`, `stop`, `user`, `n` = 1) and, with a 400 in OpenAI's error shape naming the
/// field, what would change the meaning of a reply this service cannot give (tools and function
/// calls, `n` > 1, images or audio to an assistant that takes none, JSON output formats, log
/// probabilities). Sampling fields that change no meaning (`top_p`, `seed`, the penalties) are
/// accepted and passed over; unknown fields are ignored, as OpenAI's own clients send extras.
struct V1Completion: Sendable {
    var model: String
    var assistant: String
    var label: String
    /// The new user message: the text of the last message.
    var message: String
    /// The user and assistant messages before it, oldest first.
    var history: [ChatMessage]
    /// The client's system and developer messages, joined.
    var instructions: String?
    var temperature: Double?
    var maxTokens: Int?
    var stop: [String]
    var user: String?
    var stream: Bool
    var includeUsage: Bool
    var courseID: String?

    /// Most messages a request may hold (older history beyond the budget is dropped anyway).
    static let maximumMessages = 500

    // MARK: The body as sent

    /// Any JSON value, where only its presence matters.
    struct Present: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    /// One part of a message's content: `{"type": "text", "text": "…"}`, or an image, audio or file part.
    struct Part: Decodable {
        var type: String
        var text: String?
    }

    enum Content: Decodable {
        case text(String)
        case parts([Part])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) { self = .text(text) } else { self = .parts(try container.decode([Part].self)) }
        }
    }

    struct Message: Decodable {
        var role: String?
        var content: Content?
        var toolCalls: Present?
        var functionCall: Present?
        enum CodingKeys: String, CodingKey {
            case role, content
            case toolCalls = "tool_calls"
            case functionCall = "function_call"
        }
    }

    enum Stop: Decodable {
        case one(String)
        case many([String])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) { self = .one(one) } else { self = .many(try container.decode([String].self)) }
        }

        var all: [String] {
            switch self {
            case .one(let one): [one]
            case .many(let many): many
            }
        }
    }

    /// `tool_choice`/`function_call`: "none", "auto", "required" or an object naming a function.
    enum Choice: Decodable {
        case word(String)
        case named

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let word = try? container.decode(String.self) { self = .word(word) } else { _ = try container.decode(Present.self); self = .named }
        }

        /// Whether the choice asks for no call (or leaves it to a model given no tools).
        var callsNothing: Bool {
            if case .word(let word) = self { return word == "none" || word == "auto" }
            return false
        }
    }

    struct Body: Decodable {
        struct StreamOptions: Decodable {
            var includeUsage: Bool?
            enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
        }

        struct ResponseFormat: Decodable {
            var type: String?
        }

        var model: String?
        var messages: [Message]?
        var stream: Bool?
        var streamOptions: StreamOptions?
        var maxTokens: Int?
        var maxCompletionTokens: Int?
        var temperature: Double?
        var stop: Stop?
        var user: String?
        var n: Int?
        var tools: [Present]?
        var toolChoice: Choice?
        var functions: [Present]?
        var functionCall: Choice?
        var responseFormat: ResponseFormat?
        var logprobs: Bool?
        var topLogprobs: Int?
        var modalities: [String]?
        var audio: Present?
        var prediction: Present?
        var threadID: String?
        var courseID: String?

        enum CodingKeys: String, CodingKey {
            case model, messages, stream, temperature, stop, user, n, tools, functions, logprobs, modalities, audio, prediction
            case streamOptions = "stream_options"
            case maxTokens = "max_tokens"
            case maxCompletionTokens = "max_completion_tokens"
            case toolChoice = "tool_choice"
            case functionCall = "function_call"
            case responseFormat = "response_format"
            case topLogprobs = "top_logprobs"
            case threadID = "thread_id"
            case courseID = "course_id"
        }
    }

    /// The body, or a 400 naming the field that could not be read.
    static func decode(_ request: inout Request, context: GriotRequestContext) async throws -> Body {
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: context.maxUploadSize)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError.bodyTooLarge(limit: context.maxUploadSize)
        }
        do {
            return try JSONDecoder().decode(Body.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            let (param, why) = Self.describe(error)
            throw APIError(.badRequest, code: "invalid_body",
                           param.map { "\($0) \(why); see OpenAI's chat completions reference for its form." }
                               ?? #"The body must be a JSON object: {"model": "griot", "messages": [{"role": "user", "content": "…"}]}."#,
                           param: param)
        }
    }

    /// The field a decoding error is about ("messages[0].content") and what was wrong with it.
    static func describe(_ error: DecodingError) -> (param: String?, why: String) {
        func path(_ keys: [any CodingKey]) -> String? {
            var text = ""
            for key in keys {
                if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
            }
            return text.isEmpty ? nil : text
        }
        switch error {
        case .typeMismatch(let type, let context): return (path(context.codingPath), "is not of the right type (expected \(type))")
        case .valueNotFound(_, let context): return (path(context.codingPath), "is null")
        case .keyNotFound(let key, let context): return (path(context.codingPath + [key]), "is missing")
        case .dataCorrupted(let context): return (path(context.codingPath), "cannot be read")
        @unknown default: return (nil, "cannot be read")
        }
    }

    // MARK: Checks

    static func check(_ body: Body, engine: ChatEngine) async throws -> V1Completion {
        func refuse(_ param: String, _ code: String, _ message: String) -> APIError {
            APIError(.badRequest, code: code, message, param: param)
        }
        guard let model = body.model, !model.isEmpty else {
            throw refuse("model", "missing_model", "Send \"model\": an assistant, such as griot or coach (GET /v1/models lists them).")
        }
        let pieces = model.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let assistant = pieces[0]
        let label = pieces.count > 1 ? pieces[1] : "production"
        let assistants = engine.prompts.chatAssistants
        guard assistants.contains(assistant), !label.isEmpty else {
            throw APIError(.notFound, code: "model_not_found",
                           "The model \(model) does not exist here: a model is an assistant (\(assistants.joined(separator: ", "))), optionally with a prompt label such as @production; GET /v1/models lists them.",
                           param: "model")
        }
        do {
            _ = try await engine.promptVersion(of: assistant, label: label)
        } catch {
            throw APIError(.notFound, code: "model_not_found",
                           "The \(assistant) assistant has no prompt labelled \(label); GET /v1/models lists the labels (\(error)).", param: "model")
        }

        // What would change the reply's meaning is refused, never ignored.
        if let n = body.n, n != 1 { throw refuse("n", "unsupported_n", "n must be 1: Griot gives one answer a request (its citations and checks are per answer).") }
        if let tools = body.tools, !tools.isEmpty {
            throw refuse("tools", "unsupported_tools", "Griot's assistants call no tools; send the request without \"tools\".")
        }
        if let functions = body.functions, !functions.isEmpty {
            throw refuse("functions", "unsupported_tools", "Griot's assistants call no functions; send the request without \"functions\".")
        }
        if let choice = body.toolChoice, !choice.callsNothing {
            throw refuse("tool_choice", "unsupported_tools", "Griot's assistants call no tools; leave \"tool_choice\" out or send \"none\".")
        }
        if let choice = body.functionCall, !choice.callsNothing {
            throw refuse("function_call", "unsupported_tools", "Griot's assistants call no functions; leave \"function_call\" out or send \"none\".")
        }
        if let format = body.responseFormat?.type, format != "text" {
            throw refuse("response_format", "unsupported_response_format",
                         "Griot answers in prose with citations; response_format \(format) is not offered. Leave it out or send {\"type\": \"text\"}.")
        }
        if body.logprobs == true || (body.topLogprobs ?? 0) > 0 {
            throw refuse(body.logprobs == true ? "logprobs" : "top_logprobs", "unsupported_logprobs",
                         "Griot's replies pass safety stages that may change their text, so token log probabilities are not offered; leave logprobs out.")
        }
        if let modalities = body.modalities, modalities != ["text"] {
            throw refuse("modalities", "unsupported_modalities", "Griot answers in text only; send modalities [\"text\"] or leave it out.")
        }
        if body.audio != nil { throw refuse("audio", "unsupported_modalities", "Griot answers in text only; leave \"audio\" out.") }
        if body.prediction != nil { throw refuse("prediction", "unsupported_prediction", "Predicted outputs are not offered; leave \"prediction\" out.") }
        if body.streamOptions != nil, body.stream != true {
            throw refuse("stream_options", "invalid_stream_options", "stream_options is for streamed requests: send \"stream\": true, or leave stream_options out.")
        }
        if let temperature = body.temperature, !(0...2).contains(temperature) {
            throw refuse("temperature", "invalid_temperature", "temperature must be between 0 and 2.")
        }
        let maxTokens = body.maxCompletionTokens ?? body.maxTokens
        if let maxTokens, maxTokens < 1 {
            throw refuse(body.maxCompletionTokens != nil ? "max_completion_tokens" : "max_tokens", "invalid_max_tokens",
                         "The reply's token limit must be at least 1.")
        }
        let stop = body.stop?.all ?? []
        guard stop.count <= 4, stop.allSatisfy({ $0.count <= 200 }) else {
            throw refuse("stop", "invalid_stop", "stop takes at most 4 sequences of at most 200 characters each.")
        }
        if let user = body.user, user.count > 256 { throw refuse("user", "invalid_user", "user is an end user's id: at most 256 characters.") }
        var courseID: String?
        if let course = body.courseID, !course.isEmpty {
            guard assistant == AccessPolicy.coach else {
                throw refuse("course_id", "unexpected_course", "course_id is for the coach; the \(assistant) assistant has no courses.")
            }
            courseID = try CoachRoutes.checkCourseID(course)
        }

        // The messages: system and developer ones are the client's instructions, the rest the conversation.
        guard let messages = body.messages, !messages.isEmpty else {
            throw refuse("messages", "missing_messages", "Send \"messages\": the conversation so far, ending with the user's question.")
        }
        guard messages.count <= Self.maximumMessages else {
            throw refuse("messages", "too_many_messages", "Send at most \(Self.maximumMessages) messages; older ones would not fit the assistant's budget anyway.")
        }
        var instructions: [String] = []
        var conversation: [ChatMessage] = []
        for (index, message) in messages.enumerated() {
            let param = "messages[\(index)]"
            if message.toolCalls != nil || message.functionCall != nil {
                throw refuse("\(param).tool_calls", "unsupported_tools", "Griot's assistants call no tools, so a conversation holds no tool calls; send text messages.")
            }
            let text: String
            switch message.content {
            case .text(let value): text = value
            case .parts(let parts):
                if let other = parts.first(where: { $0.type != "text" }) {
                    throw refuse("\(param).content", "unsupported_content",
                                 "The \(assistant) assistant takes no \(other.type) parts (images, audio or files); send text parts only.")
                }
                text = parts.compactMap(\.text).joined(separator: "\n")
            case nil: text = ""
            }
            if let reason = StorableText.unstorableReason(text, what: "\(param).content") { throw refuse("\(param).content", "invalid_message", reason) }
            switch message.role {
            case "system", "developer": instructions.append(text)
            case "user": conversation.append(ChatMessage(role: .user, content: text))
            case "assistant": conversation.append(ChatMessage(role: .assistant, content: text))
            case "tool", "function":
                throw refuse("\(param).role", "unsupported_tools", "Griot's assistants call no tools, so a conversation holds no \(message.role!) messages.")
            default:
                throw refuse("\(param).role", "invalid_role", "role must be system, developer, user or assistant.")
            }
        }
        guard let last = conversation.last, last.role == .user, messages.last?.role == "user" else {
            throw refuse("messages", "missing_question", "The last message must be the user's, with the question to answer.")
        }
        guard !last.content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw refuse("messages[\(messages.count - 1)].content", "empty_message", "The last message is empty; send the question in its content.")
        }
        let joined = instructions.filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }.joined(separator: "\n\n")
        return V1Completion(
            model: model, assistant: assistant, label: label, message: last.content,
            history: conversation.dropLast().filter { !$0.content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty },
            instructions: joined.isEmpty ? nil : joined, temperature: body.temperature, maxTokens: maxTokens, stop: stop,
            user: body.user.flatMap { $0.isEmpty ? nil : $0 }, stream: body.stream ?? false,
            includeUsage: body.streamOptions?.includeUsage ?? false, courseID: courseID)
    }
}
