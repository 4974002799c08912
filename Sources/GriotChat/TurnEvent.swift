import Foundation
import GriotSafety
import GriotStore

/// What a turn tells its client, in order: `meta` first, then `delta`s with `citation`s as their
/// markers appear, then `chips` and `budget`, and `done` last (after an `error` when it failed).
public enum TurnEvent: Sendable, Hashable {
    case meta(TurnMeta)
    /// About 20 tokens of reply text; the first delta is sent as soon as the model's first text arrives.
    case delta(String)
    case citation(Citation)
    /// A safety stage's finding the client should show: crisis, PII masked, a citation dropped or unsupported,
    /// low groundedness ("AI may be inaccurate"), copyright review, a sentence removed.
    case flag(SafetyFlag)
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
        case .flag: "flag"
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
        case .flag(let flag): data = try? encoder.encode(flag)
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
    /// A short verbatim excerpt of the passage: the reply's own quote, or the sentence that best
    /// supports the cited claim; empty when the claim is unsupported. Personal data is masked in
    /// it as in the reply (values the user shared, and values of a public story, stay).
    public var quote: String
    /// Unicode scalar offsets of the quote in the story's transcript.
    public var quoteStart: Int
    public var quoteEnd: Int
    /// Where the video should start to play the quote, when the story has timings.
    public var startSeconds: Double?
    public var sourceType: String
    /// True when the sentence that cites the passage says what the passage does not (a name,
    /// number, date, place or kinship word it lacks, or its negation); the quote is then empty.
    /// Left out when the claim is supported.
    public var unsupported: Bool? = nil
}

/// Quick replies the client may show: the assistant's slash commands, and the one in use.
public struct Chips: Sendable, Hashable, Codable {
    public var active: String?
    public var available: [String]
}

/// What a safety stage wants the client (or a coach) to know about this turn.
public struct SafetyFlag: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The message is about self-harm: the reply is the crisis template; a coaching UI should offer a coach.
        case crisis
        case piiMasked = "pii_masked"
        /// A citation whose quote is not in the cited passage was left out.
        case citationDropped = "citation_dropped"
        /// The reply cites a number that was not among the passages given.
        case citationOutOfRange = "citation_out_of_range"
        /// A sentence says what the passage it cites does not: its citation carries no quote.
        case citationUnsupported = "citation_unsupported"
        /// "AI may be inaccurate": the answer's groundedness is below 0.4.
        case lowGroundedness = "low_groundedness"
        /// A long run of the reply copies a source passage almost word for word.
        case copyrightReview = "copyright_review"
        /// A sentence of the reply broke the content policy and was removed.
        case outputModeration = "output_moderation"
        /// The model's reply ran past the token limit of the request; the rest was not read.
        case truncated
        /// Lines of the reply that recited the assistant's instructions or copied its sources
        /// block (a passage's text, header or fence) instead of answering were left out.
        case promptEcho = "prompt_echo"
        /// The assistant's own check of the reply (`ReplyCheck`, in place of groundedness) found a problem.
        case replyCheck = "reply_check"
    }

    /// The kinds' names, for messages: "crisis, pii_masked, ...".
    public static var kindNames: String { Kind.allCases.map(\.rawValue).joined(separator: ", ") }

    public var kind: Kind
    /// What to show, in words.
    public var message: String
    public var score: Double?
    /// True when a coaching UI should surface escalation to a human coach.
    public var escalate: Bool

    public init(kind: Kind, message: String, score: Double? = nil, escalate: Bool = false) {
        self.kind = kind
        self.message = message
        self.score = score
        self.escalate = escalate
    }
}

public struct TurnFailure: Sendable, Hashable, Codable {
    /// A stable code for clients: `ai_unavailable`, `provider_error`, `message_too_long`,
    /// `message_blocked` (input moderation), `stopped`.
    public var code: String
    /// What the client reads: our own words, never an upstream's or an internal error's text.
    public var message: String
    /// What went wrong inside (the model server's answer, with credentials redacted), for the
    /// service's log and the terminal of `griot ask`. Not encoded: never sent, never stored.
    public var detail: String?

    public init(code: String, message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    enum CodingKeys: String, CodingKey {
        case code, message
    }
}

public struct TurnSummary: Sendable, Hashable, Codable {
    public var turnID: String
    public var messageID: String
    public var status: MessageStatus
    public var text: String
    public var citations: [Citation]
    /// The safety stages' flags, as they were sent.
    public var flags: [SafetyFlag]
    /// The answer's groundedness in [0, 1], when the stage ran.
    public var groundedness: Double?
    /// Every safety stage's verdict on this turn (score, decision, reason), as stored with it.
    public var verdicts: [SafetyVerdict]
    /// The input moderation's leading category, when moderation ran (for the service's counters).
    public var moderationCategory: String?
    public var model: String
    public var elapsedSeconds: Double
    public var firstTokenSeconds: Double?
}

extension TurnEvent {
    /// The event as a stream sends and journals it: its SSE name and JSON data.
    public var content: StreamEventContent {
        StreamEventContent(name: name, data: String(decoding: jsonData(), as: UTF8.self))
    }

    /// The end of a stream whose node stopped before it finished, as another node sends it:
    /// an `error` (`interrupted`) and a `done` whose summary holds what the stored events held
    /// (the text of their deltas, their citations and flags, the model of `meta`).
    public static func interruptedEnding(turnID: String, replyMessageID: String, after stored: [StreamEventContent],
                                         startedAt: Date, now: Date = Date()) -> [TurnEvent] {
        let decoder = JSONDecoder.swiftSnakeCase()
        decoder.dateDecodingStrategy = .iso8601
        struct Delta: Decodable { var text: String }
        struct Meta: Decodable { var model: String }
        var text = ""
        var citations: [Citation] = []
        var flags: [SafetyFlag] = []
        var model = ""
        for event in stored {
            let data = Data(event.data.utf8)
            switch event.name {
            case "delta": text += (try? decoder.decode(Delta.self, from: data))?.text ?? ""
            case "citation": if let citation = try? decoder.decode(Citation.self, from: data) { citations.append(citation) }
            case "flag": if let flag = try? decoder.decode(SafetyFlag.self, from: data) { flags.append(flag) }
            case "meta": model = (try? decoder.decode(Meta.self, from: data))?.model ?? ""
            default: break
            }
        }
        let failure = TurnFailure(code: "interrupted",
                                  message: "The node writing this reply stopped. What was written is kept, marked interrupted; send your message again for a whole answer.")
        let summary = TurnSummary(turnID: turnID, messageID: replyMessageID, status: .interrupted, text: text, citations: citations, flags: flags,
                                  groundedness: nil, verdicts: [], moderationCategory: nil, model: model,
                                  elapsedSeconds: now.timeIntervalSince(startedAt), firstTokenSeconds: nil)
        return [.error(failure), .done(summary)]
    }
}

