import Foundation
import GriotProviders

/// What makes an assistant of this service, declared in one value: the prompt folder it answers
/// from (`prompts/<id>/`), its display name, where its passages come from, what it answers with
/// when no model is configured or the breaker is open, how its model's raw reply becomes the
/// text a user reads, and the check that replaces groundedness for it.
///
/// The turn pipeline reads these and names no assistant itself; a new assistant is a new
/// declaration (plus its routes and prompt folder), with no edit to `TurnPipeline`.
///
/// ```swift
/// let storyteller = AssistantDeclaration(id: "storyteller", displayName: "the Storyteller",
///                                        retrieval: .source(DrawingPassages(store: store)),
///                                        offline: TemplateStoryteller(), replyFormat: StoryReplyFormat(),
///                                        replyCheck: PlacementCheck())
/// let engine = ChatEngine(..., assistants: AssistantCatalog.builtIn.adding(storyteller))
/// ```
public struct AssistantDeclaration: Sendable {
    /// The prompt folder's name and the id turns, threads and snapshots record.
    public var id: String
    /// `{{assistant_name}}` in its prompts ("the Griot", "the SelfFull coach").
    public var displayName: String
    public var retrieval: AssistantRetrieval
    /// What answers when no model is configured (or the breaker is open and a fallback is wanted).
    public var offline: (any OfflineComposer)?
    /// Turns the model's raw reply into the text a user reads (nil: the reply is the text).
    public var replyFormat: (any ReplyFormat)?
    /// Replaces the groundedness stage for this assistant (nil: groundedness, when its prompt asks for it).
    public var replyCheck: (any ReplyCheck)?
    /// When the model is down (its breaker open, or retries spent before any text), the offline
    /// composer answers instead of the turn failing (the storyteller's sample stories).
    public var fallsBackWhenDown: Bool
    /// A stricter screen of the reply's sentences than output moderation's, applied with it (the
    /// storyteller's: nothing frightening for the child's age); nil: output moderation alone.
    public var sentenceScreen: (any SentenceScreen)?
    /// The assistant's own model, when it is not the engine's (the storyteller's vision model, or
    /// the offline responder when none is configured); nil: the engine's provider.
    public var provider: (any ChatProvider)?

    public init(id: String, displayName: String, retrieval: AssistantRetrieval = .none, offline: (any OfflineComposer)? = nil,
                replyFormat: (any ReplyFormat)? = nil, replyCheck: (any ReplyCheck)? = nil, fallsBackWhenDown: Bool = false) {
        self.fallsBackWhenDown = fallsBackWhenDown
        self.id = id
        self.displayName = displayName
        self.retrieval = retrieval
        self.offline = offline
        self.replyFormat = replyFormat
        self.replyCheck = replyCheck
    }
}

/// Where an assistant's passages come from.
public enum AssistantRetrieval: Sendable {
    /// Nothing is retrieved (the coach: its material is the course and the thread).
    case none
    /// The story archive, filtered by the viewer's access before fusion (Ask the Griot).
    case stories
    /// The assistant's own passages (a child's drawings and earlier chapters, saved links, cider logs).
    case source(any PassageSource)
}

/// An assistant's own retrieval: the passages (and images) one turn is grounded in.
public protocol PassageSource: Sendable {
    /// The passages for a turn, numbered from 1 in the order given, and any images the model is
    /// shown with the user's message. Throws `ChatError`-like errors with what to do next.
    func passages(for request: TurnRequest) async throws -> SourcedContext
}

/// What a `PassageSource` found for one turn.
public struct SourcedContext: Sendable {
    public var passages: [GroundingPassage]
    /// Image URLs (usually `data:image/jpeg;base64,…`) sent as `image_url` parts of the user's message.
    public var images: [String]
    /// The retrieval's one-line description recorded in the snapshot ("drawings=3 chapters=1").
    public var description: String

    public init(passages: [GroundingPassage], images: [String] = [], description: String) {
        self.passages = passages
        self.images = images
        self.description = description
    }
}

/// An assistant's answer without a model, from the structured grounding (and the thread).
public protocol OfflineComposer: Sendable {
    /// The model name its replies carry (`griot-extractive-1`, `griot-template-storyteller-1`).
    var modelName: String { get }
    /// The whole reply for a request; `request.grounding` holds the question and the passages.
    func compose(_ request: ChatRequest) -> String
    /// The reply as the offline responder asks for it, lending the sentence embedder it scores
    /// with (the archive's MiniLM, or none): a composer that ranks sentences by meaning ranks them
    /// as the responder was configured to. By default the embedder is not used.
    func compose(_ request: ChatRequest, embedding embed: (@Sendable ([String]) -> [[Float]])?) -> String
}

extension OfflineComposer {
    public func compose(_ request: ChatRequest, embedding embed: (@Sendable ([String]) -> [[Float]])?) -> String { compose(request) }
}

/// How a model's raw reply becomes what a user reads: a JSON reply validated against a schema,
/// for instance. An invalid reply is retried once with `ReplyFormatError.message` given back to
/// the model, then the turn fails with that message.
public protocol ReplyFormat: Sendable {
    /// The user-visible text of a whole raw reply, or the error to give back to the model.
    func render(_ raw: String, grounding: Grounding) throws(ReplyFormatError) -> String
}

public struct ReplyFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Said to the model on the retry, and to the user when the retry fails too.
    public var message: String
    public var description: String { message }

    public init(_ message: String) { self.message = message }
}

/// An assistant's own check of a finished reply, in place of groundedness (the storyteller's:
/// every drawing placed and mentioned). A problem is raised as a flag on the turn.
public protocol ReplyCheck: Sendable {
    /// nil when the reply passes; otherwise the flag's message, said to the user.
    func problem(in reply: String, grounding: Grounding) -> String?
}

/// An assistant's own screen of a reply's sentences, on top of output moderation: a sentence it
/// blocks is left out and the turn flagged, as output moderation does.
public protocol SentenceScreen: Sendable {
    /// Whether `sentence` must be left out of the reply to `request`.
    func blocks(_ sentence: String, in request: TurnRequest) -> Bool
}

