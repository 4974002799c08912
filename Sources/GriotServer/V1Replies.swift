import Foundation
import GriotChat
import GriotSafety
import Hummingbird
import NIOCore

/// What every reply of one completion shares.
struct V1Reply: Sendable {
    var id: String
    /// The model id the client asked for (`griot@staging`), echoed as OpenAI echoes its own.
    var model: String
    var created: Int
    var threadID: String
    var turnID: String
    var requestID: String
}

/// A citation as the facade's `citations` extension carries it: the story, the quoted span of
/// its transcript (Unicode scalar offsets) and where its recording plays that span.
struct V1Citation: Encodable, Sendable {
    var number: Int
    var title: String
    var interviewee: String?
    var storyID: String
    var passageID: String
    var quote: String
    var quoteStart: Int
    var quoteEnd: Int
    var timestampSeconds: Double?
    var sourceType: String
    var unsupported: Bool?

    init(_ citation: Citation) {
        number = citation.number
        title = citation.title
        interviewee = citation.interviewee
        storyID = citation.storyID
        passageID = citation.passageID
        quote = citation.quote
        quoteStart = citation.quoteStart
        quoteEnd = citation.quoteEnd
        timestampSeconds = citation.startSeconds
        sourceType = citation.sourceType
        unsupported = citation.unsupported
    }
}

/// The `griot` extension: what Griot knows of the turn that OpenAI's format has no field for.
struct V1Metadata: Encodable, Sendable {
    var threadID: String
    var turnID: String
    var messageID: String?
    var userMessageID: String?
    /// complete, stopped, failed, blocked or interrupted, as the reply is stored.
    var status: String
    /// The model that answered (`griot-extractive-1` for the offline responder).
    var model: String?
    var provider: String?
    var promptVersion: Int?
    var promptHash: String?
    var flags: [SafetyFlag]
    var groundedness: Double?
    var tokenLedger: TokenLedger?
    var requestID: String
}

struct V1Usage: Encodable, Sendable {
    var promptTokens: Int
    var completionTokens: Int
    var totalTokens: Int
}

/// A turn's events gathered: everything a completion or its last chunk says.
struct V1Outcome: Sendable {
    var meta: TurnMeta?
    var text = ""
    var citations: [Citation] = []
    var flags: [SafetyFlag] = []
    var ledger: TokenLedger?
    var failure: TurnFailure?
    var summary: TurnSummary?

    mutating func take(_ event: TurnEvent) {
        switch event {
        case .meta(let meta): self.meta = meta
        case .delta(let piece): text += piece
        case .citation(let citation): citations.append(citation)
        case .flag(let flag): flags.append(flag)
        case .budget(let ledger): self.ledger = ledger
        case .error(let failure): self.failure = failure
        case .done(let summary): self.summary = summary
        case .chips: break
        }
    }

    /// OpenAI's reasons: `length` for a reply cut at its token limit, `content_filter` when an
    /// output stage removed a sentence, `stop` otherwise.
    var finishReason: String {
        let kinds = Set((summary?.flags ?? flags).map(\.kind))
        if kinds.contains(.truncated) { return "length" }
        if kinds.contains(.outputModeration) { return "content_filter" }
        return "stop"
    }

    func metadata(_ reply: V1Reply) -> V1Metadata {
        V1Metadata(threadID: reply.threadID, turnID: reply.turnID, messageID: summary?.messageID ?? meta?.assistantMessageID,
                   userMessageID: meta?.userMessageID, status: summary?.status.rawValue ?? "failed", model: summary?.model ?? meta?.model,
                   provider: meta?.provider, promptVersion: meta?.promptVersion, promptHash: meta?.promptHash,
                   flags: summary?.flags ?? flags, groundedness: summary?.groundedness, tokenLedger: ledger, requestID: reply.requestID)
    }

    /// Prompt tokens as the ledger counted them; the reply's by the same encoding.
    func usage(counters: TokenCounters) -> V1Usage {
        let prompt = ledger?.promptTokens ?? 0
        let reply = summary?.text ?? text
        let completion = (try? counters.counter(for: ledger?.encoding))?.count(reply) ?? 0
        return V1Usage(promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion)
    }

    func completion(_ reply: V1Reply, counters: TokenCounters) -> V1ChatCompletion {
        V1ChatCompletion(
            id: reply.id, created: reply.created, model: reply.model, systemFingerprint: meta.map { "prompt-v\($0.promptVersion)-\($0.promptHash.suffix(12))" },
            choices: [.init(message: .init(content: summary?.text ?? text), finishReason: finishReason)],
            usage: usage(counters: counters), citations: (summary?.citations ?? citations).map(V1Citation.init), griot: metadata(reply))
    }
}

/// A non-streamed reply: `chat.completion`, with the `citations` and `griot` extensions.
struct V1ChatCompletion: ResponseEncodable, Sendable {
    struct Choice: Encodable, Sendable {
        struct Message: Encodable, Sendable {
            var role = "assistant"
            var content: String
        }
        var index = 0
        var message: Message
        var finishReason: String
    }
    var id: String
    var object = "chat.completion"
    var created: Int
    var model: String
    var systemFingerprint: String?
    var choices: [Choice]
    var usage: V1Usage
    var citations: [V1Citation]
    var griot: V1Metadata
}

/// A turn's events as `chat.completion.chunk` frames: the role first (on `meta`), a chunk per
/// delta, and on `done` the last chunk (its `finish_reason`, `citations` and `griot`), the
/// usage chunk when asked for, and `[DONE]`. A turn that fails after text was sent ends with
/// OpenAI's in-stream error (`data: {"error": …}`, which the SDKs raise) before `[DONE]`.
struct V1Chunks: Sendable {
    let reply: V1Reply
    let includeUsage: Bool
    let counters: TokenCounters
    private var sentRole = false

    init(reply: V1Reply, includeUsage: Bool, counters: TokenCounters) {
        self.reply = reply
        self.includeUsage = includeUsage
        self.counters = counters
    }

    struct Chunk: Encodable {
        struct Choice: Encodable {
            struct Delta: Encodable {
                var role: String?
                var content: String?
            }
            var index = 0
            var delta: Delta
            var finishReason: String?
        }
        var id: String
        var object = "chat.completion.chunk"
        var created: Int
        var model: String
        var choices: [Choice]
        var usage: V1Usage?
        var citations: [V1Citation]?
        var griot: V1Metadata?
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    private func chunk(_ choices: [Chunk.Choice]) -> Chunk {
        Chunk(id: reply.id, created: reply.created, model: reply.model, choices: choices)
    }

    private static func frame(_ value: some Encodable) -> [UInt8] {
        Array("data: ".utf8) + ((try? encoder.encode(value)).map(Array.init) ?? Array("{}".utf8)) + Array("\n\n".utf8)
    }

    mutating func frames(for event: TurnEvent, outcome: V1Outcome) -> [[UInt8]] {
        switch event {
        case .meta:
            sentRole = true
            return [Self.frame(chunk([.init(delta: .init(role: "assistant", content: ""))]))]
        case .delta(let text):
            defer { sentRole = true }
            return [Self.frame(chunk([.init(delta: .init(role: sentRole ? nil : "assistant", content: text))]))]
        case .done(let summary):
            var frames: [[UInt8]] = []
            if summary.status != .complete && summary.status != .stopped {
                let failure = outcome.failure ?? TurnFailure(code: "internal_error", message: "The reply could not be completed; your message is saved, try again.")
                struct ErrorFrame: Encodable {
                    struct Inner: Encodable {
                        var message: String
                        var type: String
                        var code: String
                        var param: String?
                    }
                    var error: Inner
                }
                frames.append(Self.frame(ErrorFrame(error: .init(message: failure.message, type: failure.code == "ai_unavailable" ? "service_unavailable" : "server_error",
                                                                  code: failure.code))))
            } else {
                var last = chunk([.init(delta: .init(), finishReason: outcome.finishReason)])
                last.citations = summary.citations.map(V1Citation.init)
                last.griot = outcome.metadata(reply)
                frames.append(Self.frame(last))
                if includeUsage {
                    var usage = chunk([])
                    usage.usage = outcome.usage(counters: counters)
                    frames.append(Self.frame(usage))
                }
            }
            frames.append(Array("data: [DONE]\n\n".utf8))
            return frames
        case .citation, .flag, .budget, .error, .chips:
            return []
        }
    }
}

/// Griot's moderation in OpenAI's `/v1/moderations` format.
///
/// Griot scores five categories; OpenAI names thirteen. Each of OpenAI's gets the score of the
/// Griot category it belongs to (`hate/threatening`, `harassment/threatening` the lower of that
/// category and violence: a threat is both), and the ones Griot does not tell apart
/// (`sexual/minors`, `violence/graphic`, `self-harm/instructions`, `illicit`, `illicit/violent`)
/// score 0 and are never flagged. A category is flagged where Griot's own stage would act on
/// it: a toxic category over the block threshold, self-harm at the crisis threshold. Griot's
/// remote moderation reads exactly this format back (`RemoteModerator`).
enum V1Moderation {
    static let model = "griot-moderation-1"
    static let maximumInputs = 32

    static let categories = [
        "harassment", "harassment/threatening", "hate", "hate/threatening", "illicit", "illicit/violent", "self-harm",
        "self-harm/intent", "self-harm/instructions", "sexual", "sexual/minors", "violence", "violence/graphic",
    ]

    struct Result: Encodable, Sendable {
        var flagged: Bool
        var categories: [String: Bool]
        var categoryScores: [String: Double]
        var categoryAppliedInputTypes: [String: [String]]

        enum CodingKeys: String, CodingKey {
            case flagged, categories
            case categoryScores = "category_scores"
            case categoryAppliedInputTypes = "category_applied_input_types"
        }

        init(_ result: ModerationResult) {
            let scores: [String: Double] = [
                "harassment": result.harassment, "harassment/threatening": min(result.harassment, result.violence),
                "hate": result.hate, "hate/threatening": min(result.hate, result.violence),
                "illicit": 0, "illicit/violent": 0,
                "self-harm": result.selfHarm, "self-harm/intent": result.selfHarm, "self-harm/instructions": 0,
                "sexual": result.sexual, "sexual/minors": 0,
                "violence": result.violence, "violence/graphic": 0,
            ]
            let raised = Set(result.flagged ?? [])
            var flags: [String: Bool] = [:]
            for name in V1Moderation.categories {
                let score = scores[name] ?? 0
                let category: ModerationCategory? = switch name {
                case "harassment", "harassment/threatening": .harassment
                case "hate", "hate/threatening": .hate
                case "sexual": .sexual
                case "violence": .violence
                case "self-harm", "self-harm/intent": .selfHarm
                default: nil
                }
                guard let category, score > 0 || raised.contains(category) else {
                    flags[name] = false
                    continue
                }
                let threshold = category == .selfHarm ? ModerationResult.crisisThreshold : ModerationResult.blockThreshold
                let over = category == .selfHarm ? score >= threshold : score > threshold
                // A subcategory is flagged only on its own score; its parent also on a remote flag.
                flags[name] = over || (raised.contains(category) && !name.contains("/"))
            }
            categories = flags
            categoryScores = scores
            flagged = flags.values.contains(true)
            categoryAppliedInputTypes = Dictionary(uniqueKeysWithValues: V1Moderation.categories.map { ($0, flags[$0] == true ? ["text"] : []) })
        }
    }

    struct Reply: Encodable, Sendable {
        var id: String
        var model: String
        var results: [Result]
    }
}

extension V1Moderation.Reply: ResponseGenerator {
    /// Written without the service's snake-case key conversion, so that OpenAI's category names
    /// ("self-harm/intent") stay exactly as its clients read them.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: try encoder.encode(self))))
    }
}
