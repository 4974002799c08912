import Foundation
import GriotStore

/// What a turn tells its client, in order: `meta` first, then `delta`s with `citation`s as their
/// markers appear, then `chips` and `budget`, and `done` last (after an `error` when it failed).
public enum TurnEvent: Sendable, Hashable {
    case meta(TurnMeta)
    /// About 20 tokens of reply text; the first delta is sent as soon as the model's first text arrives.
    case delta(String)
    case citation(Citation)
    case chips(Chips)
    case budget(TokenLedger)
    case error(TurnFailure)
    case done(TurnSummary)

    /// The SSE event name.
    public var name: String {
        switch self {
        case .meta: "meta"
        case .delta: "delta"
        case .citation: "citation"
        case .chips: "chips"
        case .budget: "budget"
        case .error: "error"
        case .done: "done"
        }
    }

    /// The event's data as JSON (one object per event, as the SSE stream and `--json` send it).
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        let data: Data?
        switch self {
        case .meta(let meta): data = try? encoder.encode(meta)
        case .delta(let text): data = try? encoder.encode(["text": text])
        case .citation(let citation): data = try? encoder.encode(citation)
        case .chips(let chips): data = try? encoder.encode(chips)
        case .budget(let ledger): data = try? encoder.encode(ledger)
        case .error(let failure): data = try? encoder.encode(failure)
        case .done(let summary): data = try? encoder.encode(summary)
        }
        return data ?? Data("{}".utf8)
    }
}

public struct TurnMeta: Sendable, Hashable, Codable {
    public var turnID: String
    public var threadID: String
    public var userMessageID: String
    public var assistantMessageID: String
    public var assistant: String
    public var promptVersion: Int
    public var promptHash: String
    public var provider: String
    /// The model answering; `griot-extractive-1` when no language model is involved.
    public var model: String
    public var command: String?
    /// The detected language of the question, when the detector was confident.
    public var language: String?
}

/// A source the reply cites, with where to open it.
public struct Citation: Sendable, Hashable, Codable {
    /// The number the reply uses ("[2]").
    public var number: Int
    public var storyID: String
    public var passageID: String
    public var title: String
    public var interviewee: String?
    /// A short verbatim excerpt of the passage: the sentence that best matches the cited claim.
    public var quote: String
    /// Unicode scalar offsets of the quote in the story's transcript.
    public var quoteStart: Int
    public var quoteEnd: Int
    /// Where the video should start to play the quote, when the story has timings.
    public var startSeconds: Double?
    public var sourceType: String
}

/// Quick replies the client may show: the assistant's slash commands, and the one in use.
public struct Chips: Sendable, Hashable, Codable {
    public var active: String?
    public var available: [String]
}

public struct TurnFailure: Sendable, Hashable, Codable {
    /// A stable code for clients: `ai_unavailable`, `provider_error`, `message_too_long`, `stopped`.
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

public struct TurnSummary: Sendable, Hashable, Codable {
    public var turnID: String
    public var messageID: String
    public var status: MessageStatus
    public var text: String
    public var citations: [Citation]
    public var model: String
    public var elapsedSeconds: Double
    public var firstTokenSeconds: Double?
}
