import Foundation
import GriotArchive
import GriotPrompts
import GriotProviders
import GriotSearch
import GriotStore

/// One question to an assistant, from one person.
public struct TurnRequest: Sendable, Hashable {
    public var assistant: String
    public var message: String
    /// Who asks: whose stories they may see, and whose threads are theirs.
    public var viewer: Viewer
    /// Continue this thread; nil starts one (or, for a course, finds the course's thread).
    public var threadID: String?
    /// Start a new thread under this id (a session id the client chose), made only once every
    /// check of the turn has passed, so a refused request leaves no empty session behind.
    public var newThreadID: String?
    public var courseID: String?
    /// The message is a voice transcript (it passes the same moderation as typed text).
    public var voice: Bool
    /// The asker's role, for assistants with role variants (the coach: client or coach).
    public var role: String?
    public var userName: String?
    /// The prompt version: a label (`production`, `latest`) or a version number.
    public var promptLabel: String
    /// A model in place of the prompt's (a replay with another model).
    public var model: String?
    /// Passages to use instead of searching, in this order (a replay on the index snapshot).
    public var pinnedPassages: [TurnSnapshot.RetrievedPassage]?
    /// The HTTP request's id, quoted in a failure's message so support can find the log line.
    public var requestID: String?
    /// The conversation so far as the client holds it (OpenAI's stateless `messages`), in place
    /// of the stored thread's: user and assistant messages, oldest first. Not stored; only the
    /// new message and the reply are.
    public var history: [ChatMessage]?
    /// The client's own system messages (OpenAI's `system` or `developer` role), offered to the
    /// model beside the course's custom instructions, under the same budget. The assistant's
    /// versioned system prompt stays first and whole.
    public var clientInstructions: String?
    /// The client's sampling temperature, in place of the prompt's.
    public var temperature: Double?
    /// At most this many tokens of reply (OpenAI's `max_tokens`): the reply is cut there, exactly,
    /// and ends as `truncated`. Within the prompt's reply reserve.
    public var maxReplyTokens: Int?
    /// The reply ends before the first of these (OpenAI's `stop`).
    public var stop: [String] = []
    /// The end user a service calls for (OpenAI's `user`): logged, and passed to the upstream model.
    public var endUser: String?
    /// What an assistant's own routes pass to its turns, by name, for its `PassageSource` to read
    /// (the storyteller's `child_id` and `drawing_ids`). Not stored; the snapshot keeps what was retrieved.
    public var assistantInput: [String: String] = [:]

    public init(assistant: String = "griot", message: String, viewer: Viewer, threadID: String? = nil, courseID: String? = nil,
                role: String? = nil, userName: String? = nil, promptLabel: String = "production", voice: Bool = false) {
        self.assistant = assistant
        self.voice = voice
        self.message = message
        self.viewer = viewer
        self.threadID = threadID
        self.courseID = courseID
        self.role = role
        self.userName = userName
        self.promptLabel = promptLabel
    }
}

/// A request the engine refuses before anything is stored or sent, with what to do instead.
public struct ChatError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable { case invalid, notFound }
    public var kind: Kind
    public var description: String

    /// `description` says what to do instead; an assistant's `PassageSource` throws these too.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// The chat engine: threads, prompts, retrieval and a provider, put together per turn by the
/// pipeline (`TurnPipeline`). The HTTP service and the command line both go through it.
///
/// ```swift
/// let engine = ChatEngine(archive: archive, chats: chats, prompts: registry, provider: provider, counters: counters)
/// let turn = try engine.startTurn(TurnRequest(message: "Who was Ida Mae?", viewer: viewer))
/// for await event in turn.events { ... }
/// ```
public final class ChatEngine: Sendable {
    public let archive: StoryArchive
    public let chats: any ChatStore
    public let prompts: PromptRegistry
    public let provider: any ChatProvider
    public let counters: TokenCounters
    /// The circuit breakers of the remote providers, for health checks and metrics.
    public let breakers: CircuitBreakerRegistry
    /// Where turns embed the question, retrieve and assemble the prompt: off the threads that relay replies.
    public let preparation: PreparationLane
    /// The safety stages' scorers: moderation, PII, groundedness, copyright.
    public let safety: SafetyTools
    /// Where streaming replies' text so far is written, off the threads that relay them.
    public let checkpoints: ReplyCheckpoints
    /// Embeds the questions of turns waiting for the lane together; nil without the model.
    let queryEmbeddings: QueryEmbeddingBatcher?
    /// What each assistant declares (display name, retrieval, offline answer, reply format and check).
    public let assistants: AssistantCatalog
    /// The prompt labels promotions moved in the database, which win over releases.yaml.
    public let labels = PromptLabels()
    let detector = LanguageDetector()
    let now: @Sendable () -> Date

    /// The detector's confidence at which the reply is asked for in the question's language.
    public static let languageConfidence = 0.8
    /// Messages longer than this are refused before they are stored (about 10,000 tokens).
    public static let maximumMessageCharacters = 40_000

    public init(archive: StoryArchive, chats: any ChatStore, prompts: PromptRegistry, provider: any ChatProvider, counters: TokenCounters,
                breakers: CircuitBreakerRegistry = CircuitBreakerRegistry(), preparation: PreparationLane = .shared,
                safety: SafetyTools? = nil, assistants: AssistantCatalog = .builtIn, now: @escaping @Sendable () -> Date = Date.init) {
        self.safety = safety ?? SafetyTools(embed: SafetyTools.embedding(archive.embedder))
        self.assistants = assistants
        self.breakers = breakers
        self.preparation = preparation
        self.archive = archive
        queryEmbeddings = archive.embedder.map { QueryEmbeddingBatcher(embedder: $0, lane: preparation) }
        self.chats = chats
        checkpoints = ReplyCheckpoints(chats: chats)
        self.prompts = prompts
        self.provider = provider
        self.counters = counters
        self.now = now
    }

    /// Checks the request, stores the user's message (before any model is called) and a reply
    /// marked `streaming`, and starts the turn. Throws only for requests that cannot start.
    public func startTurn(_ request: TurnRequest) async throws -> ChatTurn {
        // The same gate an edit passes (`MessageGate`); its moderation runs as the turn's stage 0.
        if let reason = MessageGate.refusal(request.message) { throw ChatError(.invalid, reason) }
        let message = request.message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard prompts.assistants[request.assistant]?.isChatAssistant == true else {
            throw ChatError(.invalid, "There is no assistant \(request.assistant); the assistants are \(prompts.chatAssistants.joined(separator: ", ")).")
        }
        let template: PromptTemplate
        do {
            template = try await self.template(for: request.assistant, label: request.promptLabel)
        } catch {
            throw ChatError(.invalid, "\(error)")
        }
        var role = request.role
        if !template.roles.isEmpty {
            role = role ?? template.sections.defaultRole
            guard let role, template.roles.contains(role) else {
                throw ChatError(.invalid, "The \(request.assistant) assistant has no role \(request.role ?? ""); use one of \(template.roles.joined(separator: ", ")).")
            }
        }
        let userID = request.viewer.userID ?? "anonymous"

        let thread: ThreadRecord
        if let threadID = request.threadID {
            // Another user's thread is reported as missing, never as forbidden.
            guard let found = try await chats.thread(id: threadID), found.userID == userID, found.assistant == request.assistant else {
                throw ChatError(.notFound, "There is no \(request.assistant) thread \(threadID) for you; leave the thread out to start a new one.")
            }
            thread = found
        } else if let id = request.newThreadID {
            thread = try await chats.createThread(assistant: request.assistant, userID: userID, id: id)
        } else if let courseID = request.courseID {
            thread = try await chats.courseThread(assistant: request.assistant, userID: userID, courseID: courseID)
        } else {
            thread = try await chats.createThread(assistant: request.assistant, userID: userID)
        }

        // A stateless client's own history stands in for the stored thread's (see `TurnRequest.history`).
        let history = request.history != nil ? [] : try await chats.recentMessages(threadID: thread.id, limit: template.budget.historyMessages * 2)
        let parsed = SlashCommand.parse(message)
        let command = parsed.flatMap { template.commands.contains($0.command.rawValue) ? $0.command : nil }
        let guess = detector.detect(command != nil ? parsed!.rest : message)
        let language = guess.confidence >= Self.languageConfidence ? guess.language : nil

        let turnID = UUID().uuidString.lowercased()
        let question = try await chats.appendMessage(threadID: thread.id, role: .user, content: message, turnID: turnID, now: now(),
                                               inputMode: request.voice ? "voice" : nil)
        let reply = try await chats.appendMessage(threadID: thread.id, role: .assistant, content: "", status: .streaming, turnID: turnID, now: now())

        let assistant = assistants.declaration(for: request.assistant)
        // The assistant's own model (the storyteller's vision model), else the engine's.
        let provider = assistant.provider ?? self.provider
        let plan = TurnPlan(
            turnID: turnID, thread: thread, userMessage: question, replyMessage: reply, request: request, role: role,
            template: template, assistant: assistant, provider: provider,
            // A provider that reads no instructions (the offline responder) answers with the assistant's composer.
            composer: provider.readsInstructions ? nil : assistant.offline, command: command, question: command != nil ? parsed!.rest : message,
            language: language, languageGuess: guess, history: history.filter { $0.id != question.id && $0.id != reply.id })
        return ChatTurn(plan: plan, pipeline: TurnPipeline(engine: self))
    }
}

/// Everything decided before the turn runs.
struct TurnPlan: Sendable {
    var turnID: String
    var thread: ThreadRecord
    var userMessage: MessageRecord
    var replyMessage: MessageRecord
    var request: TurnRequest
    var role: String?
    var template: PromptTemplate
    /// What the assistant declares; the pipeline reads its particulars here, never by its id.
    var assistant: AssistantDeclaration
    /// The model the turn calls: the assistant's own, else the engine's.
    var provider: any ChatProvider
    /// Writes the reply in place of the provider's own answer: the assistant's offline composer,
    /// when the provider is the offline responder.
    var composer: (any OfflineComposer)?
    var command: SlashCommand?
    /// The question without its slash command.
    var question: String
    var language: String?
    var languageGuess: LanguageDetector.Guess
    /// Earlier messages of the thread, oldest first.
    var history: [MessageRecord]
}

/// A running turn: its events, and a way to stop it.
public final class ChatTurn: Sendable {
    public let id: String
    public let threadID: String
    public let userMessageID: String
    public let replyMessageID: String
    public let events: AsyncStream<TurnEvent>
    private let task: Task<Void, Never>

    init(plan: TurnPlan, pipeline: TurnPipeline) {
        id = plan.turnID
        threadID = plan.thread.id
        userMessageID = plan.userMessage.id
        replyMessageID = plan.replyMessage.id
        let (stream, continuation) = AsyncStream.makeStream(of: TurnEvent.self, bufferingPolicy: .unbounded)
        events = stream
        let emitter = TurnEmitter(continuation)
        let task = Task { await pipeline.run(plan, emit: emitter) }
        self.task = task
        // A client that stops listening stops the turn; the pipeline stores the partial reply.
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
    }

    /// Stops generation now: the upstream request is cancelled and the reply so far is stored
    /// marked `stopped`. The events end with `done`.
    public func stop() { task.cancel() }

    /// Waits until the turn has stored its outcome.
    public func finished() async { await task.value }
}
