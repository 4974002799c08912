import Foundation

/// A model that answers a chat request with a stream of text.
///
/// ```swift
/// for try await event in provider.stream(request) {
///     if case .text(let piece) = event { print(piece, terminator: "") }
/// }
/// ```
/// Cancelling the task that iterates the stream (or dropping the iterator) cancels the upstream
/// request: implementations tie their work to the stream's termination.
public protocol ChatProvider: Sendable {
    /// A short stable name for logs, metrics and the circuit breaker ("openai", "griot-extractive").
    var name: String { get }
    /// The model that a request without its own model setting is answered by; recorded with each turn.
    var defaultModel: String { get }
    /// Whether the reply follows the prose of the system prompt. A model does; the offline
    /// extractive responder reads only the structured grounding, so a prompt's wording cannot
    /// change its answers (a prompt release judged by it is judged on retrieval alone).
    var readsInstructions: Bool { get }
    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ProviderEvent, any Error>
    /// Streams the reply into `deliver`, in the calling task, and returns when the reply is
    /// complete; throws as `stream` would end. Cancelling the calling task stops the request.
    ///
    /// The default iterates `stream(_:)`. A provider that reads its own connection implements it
    /// directly, so that a wrapper such as `ResilientProvider` can read the reply in its own task
    /// instead of behind one more task and stream: each token then crosses one task boundary fewer.
    func generate(_ request: ChatRequest, into deliver: @escaping @Sendable (ProviderEvent) -> Void) async throws
}

extension ChatProvider {
    public var readsInstructions: Bool { true }

    public func generate(_ request: ChatRequest, into deliver: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        for try await event in stream(request) { deliver(event) }
    }
}

/// One message of a chat request, in the sense of OpenAI's chat completions.
public struct ChatMessage: Sendable, Hashable, Codable {
    public enum Role: String, Sendable, Hashable, Codable { case system, user, assistant }
    public var role: Role
    public var content: String
    /// Images shown to a vision model with this message, as URLs (usually
    /// `data:image/jpeg;base64,…`); sent as OpenAI's `image_url` content parts after the text.
    /// Nil or empty: the content is plain text.
    public var images: [String]?

    public init(role: Role, content: String, images: [String]? = nil) {
        self.role = role
        self.content = content
        self.images = images
    }
}

/// The generation settings of a request; nil means the provider's default.
public struct ModelSettings: Sendable, Hashable, Codable {
    public var model: String?
    public var temperature: Double?
    public var maxTokens: Int?
    /// Where the model should stop (OpenAI's `stop`, at most 4). The pipeline also cuts the
    /// reply at the first of them itself, for a provider that ignores them.
    public var stop: [String]?
    /// The end user a service calls for (OpenAI's `user`), passed on to the upstream model.
    public var user: String?

    public init(model: String? = nil, temperature: Double? = nil, maxTokens: Int? = nil, stop: [String]? = nil, user: String? = nil) {
        self.model = model
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.stop = stop
        self.user = user
    }
}

/// A retrieved passage as it was numbered in the prompt ("[3]").
public struct GroundingPassage: Sendable, Hashable, Codable {
    public var number: Int
    public var storyID: String
    public var passageID: String
    public var storyTitle: String
    /// The story's interviewees and the people it names, for answers about a person.
    public var people: [String]
    public var places: [String]
    public var speaker: String?
    public var startSeconds: Double?
    public var text: String
    /// Who tells the story (its interviewees), as distinct from who asks the questions.
    public var interviewees: [String]
    /// Where each speaker's words begin in `text` (Unicode scalar offsets), when the transcript names speakers.
    public var speakerRuns: [SpeakerRun]
    /// The story comes from a public archive (the WPA narratives), not from the asker's family:
    /// an answer speaks of "the stories in the archive", not "the family's stories". Nil in
    /// snapshots written before it existed.
    public var isArchive: Bool?

    public struct SpeakerRun: Sendable, Hashable, Codable {
        public var start: Int
        public var speaker: String

        public init(start: Int, speaker: String) {
            self.start = start
            self.speaker = speaker
        }
    }

    /// The speaker at a scalar offset of `text`, when known.
    public func speaker(at offset: Int) -> String? {
        speakerRuns.last(where: { $0.start <= offset })?.speaker ?? speaker
    }

    public init(number: Int, storyID: String, passageID: String, storyTitle: String, people: [String] = [], places: [String] = [],
                speaker: String? = nil, startSeconds: Double? = nil, text: String, interviewees: [String] = [], speakerRuns: [SpeakerRun] = [],
                isArchive: Bool? = nil) {
        self.isArchive = isArchive
        self.interviewees = interviewees
        self.speakerRuns = speakerRuns
        self.number = number
        self.storyID = storyID
        self.passageID = passageID
        self.storyTitle = storyTitle
        self.people = people
        self.places = places
        self.speaker = speaker
        self.startSeconds = startSeconds
        self.text = text
    }
}

/// What a turn is grounded in, in structured form. A remote model reads the same content from
/// the messages; a local responder that cannot read prose instructions reads it from here.
public struct Grounding: Sendable, Hashable, Codable {
    public var assistant: String
    public var question: String
    public var passages: [GroundingPassage]
    /// The slash command of the turn ("quiz", "summary", "resources"), if any.
    public var command: String?
    /// The language the reply is asked for in (ISO 639-1), when the detector was confident.
    public var language: String?

    public init(assistant: String, question: String, passages: [GroundingPassage] = [], command: String? = nil, language: String? = nil) {
        self.assistant = assistant
        self.question = question
        self.passages = passages
        self.command = command
        self.language = language
    }
}

public struct ChatRequest: Sendable, Hashable {
    public var messages: [ChatMessage]
    public var settings: ModelSettings
    public var grounding: Grounding

    public init(messages: [ChatMessage], settings: ModelSettings = ModelSettings(), grounding: Grounding) {
        self.messages = messages
        self.settings = settings
        self.grounding = grounding
    }
}

public struct TokenUsage: Sendable, Hashable, Codable {
    public var promptTokens: Int
    public var completionTokens: Int

    public init(promptTokens: Int, completionTokens: Int) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
    }
}

public enum ProviderEvent: Sendable, Hashable {
    /// The model that is answering (as the upstream names it), sent once before any text when known.
    case model(String)
    /// A piece of the reply, as it arrived.
    case text(String)
    /// The reply is complete.
    case finished(reason: String?, usage: TokenUsage?)
}

/// Why a provider could not answer. `description` is written for the person who sees it.
public enum ProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The upstream answered with a status other than 2xx.
    case status(code: Int, message: String, retryAfterSeconds: Double?)
    /// The connection failed, or closed before the reply was complete.
    case connection(String)
    /// The upstream sent something that is not a chat-completions stream.
    case malformedStream(String)
    /// The upstream accepted the request (2xx) and then reported an error inside the stream,
    /// as OpenAI does with `data: {"error": {...}}`. `type` is the upstream's error type
    /// ("server_error", "invalid_request_error"), when it gave one.
    case upstream(message: String, type: String?)
    /// The circuit breaker is open: the provider failed repeatedly and is not being called.
    case circuitOpen(provider: String, retryAfterSeconds: Double)
    /// The provider is not set up (no base URL, no model).
    case notConfigured(String)

    /// A 5xx, a 429 or a connection failure, which a retry before the first token may cure.
    public var isRetryable: Bool {
        switch self {
        case .status(let code, _, _): return code >= 500 || code == 429
        case .connection: return true
        case .upstream(_, let type): return type == "server_error"
        case .malformedStream, .circuitOpen, .notConfigured: return false
        }
    }

    /// A failure that says the upstream itself is unwell (5xx, unreachable, a server error in
    /// the stream): what the circuit breaker counts. A 429 or another 4xx says the service is up
    /// and answering, so it does not count.
    public var isServerFailure: Bool {
        switch self {
        case .status(let code, _, _): return code >= 500
        case .connection: return true
        case .upstream(_, let type): return type == "server_error"
        case .malformedStream, .circuitOpen, .notConfigured: return false
        }
    }

    /// How long the upstream asked us to wait (`Retry-After`), or how long the breaker stays open.
    public var retryAfterSeconds: Double? {
        switch self {
        case .status(_, _, let seconds): return seconds
        case .circuitOpen(_, let seconds): return seconds
        case .connection, .malformedStream, .upstream, .notConfigured: return nil
        }
    }

    public var description: String {
        switch self {
        case .status(let code, let message, _):
            return "The AI service answered with HTTP \(code): \(message)\(Self.hint(forStatus: code))"
        case .connection(let detail):
            return "Could not reach the AI service (\(detail)). Check the base URL and that the service is running."
        case .malformedStream(let detail):
            return "The AI service sent a reply that is not a chat-completions stream (\(detail))."
        case .upstream(let message, _):
            return "The AI service stopped with an error: \(message)"
        case .circuitOpen(let provider, let seconds):
            // While a trial request is in flight the breaker has no wait to quote.
            if seconds <= 0 {
                return "AI temporarily unavailable: \(provider) failed repeatedly; a trial request is checking whether it has recovered."
            }
            return "AI temporarily unavailable: \(provider) failed repeatedly; trying again in \(Int(seconds.rounded(.up))) s."
        case .notConfigured(let detail):
            return "The AI provider is not configured: \(detail)"
        }
    }

    /// What to do next for the statuses whose cause is on our side.
    private static func hint(forStatus code: Int) -> String {
        switch code {
        case 401, 403: return " Check the API key (OPENAI_API_KEY or AZURE_OPENAI_API_KEY)."
        case 404: return " Check the base URL, and the model or deployment name."
        case 429: return " The service is limiting requests; try again shortly."
        default: return ""
        }
    }
}
