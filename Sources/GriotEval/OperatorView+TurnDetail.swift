import Foundation
import GriotChat
import GriotProviders
import GriotSafety
import GriotStore

/// One stored turn as an operator reads it (`GET /api/ops/turns/{id}`): what was asked and
/// answered, the passages with their rank in each retrieval arm, the token ledger, the events,
/// every stage's verdict and the citations, under `OperatorView`'s rules.
public struct TurnDetail: Encodable, Sendable {
    /// A retrieved passage: its story, its text as the operator may read it, and its ranks.
    public struct Passage: Encodable, Sendable {
        public var storyID: String
        public var passageID: String
        public var title: String
        public var text: String
        public var score: Double
        public var ranks: Ranks
    }

    /// Where a passage stood in the keyword (BM25) arm, the vector arm and after fusion (the
    /// order the model was given). An arm that did not find it, or did not run, is null.
    public struct Ranks: Encodable, Sendable {
        public var bm25: Int?
        public var vector: Int?
        public var fused: Int

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(bm25, forKey: .bm25)
            try container.encode(vector, forKey: .vector)
            try container.encode(fused, forKey: .fused)
        }

        enum CodingKeys: String, CodingKey { case bm25, vector, fused }
    }

    public struct Verdict: Encodable, Sendable {
        public var stage: String
        public var decision: String
        public var reason: String
        public var score: Double
    }

    public var turnID: String
    public var threadID: String
    public var assistant: String
    public var status: String
    public var startedAt: Date
    public var finishedAt: Date?
    public var promptVersion: Int
    public var promptHash: String
    public var promptLabel: String?
    public var provider: String
    public var model: String
    public var upstreamModel: String?
    public var retrieval: String?
    public var indexVersion: String?
    public var question: String?
    public var answer: String?
    public var groundedness: Double?
    public var flags: [String]
    public var passages: [Passage]
    public var ledger: TokenLedger?
    public var usage: TokenUsage?
    public var firstTokenSeconds: Double?
    public var events: [EventView]
    public var verdicts: [Verdict]
    public var citations: [Citation]
}

/// A recorded event without the texts it carried: its type and the rest of its fields, with
/// personal details masked. Operators read the answer and the citations as `OperatorView`
/// shows them; the events' own copies (deltas, quotes, titles) would show them unmasked.
public struct EventView: Encodable, Sendable {
    public var type: String
    public var fields: [String: JSONValue]

    /// The fields an event carries text or names of a story in: left out.
    static let texts: Set<String> = ["text", "quote", "title", "interviewee", "citations", "content"]

    init(_ event: TurnSnapshot.SentEvent, masked: (String) -> String) {
        type = event.event
        var fields: [String: JSONValue] = [:]
        if case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8)) {
            for (key, value) in object where !Self.texts.contains(key) { fields[key] = value.mapStrings(masked) }
            if case .string(let text)? = object["text"], event.event == "delta" { fields["chars"] = .number(Double(text.count)) }
        }
        self.fields = fields
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONValue.Key.self)
        try container.encode(type, forKey: JSONValue.Key("type"))
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) where key != "type" { try container.encode(value, forKey: JSONValue.Key(key)) }
    }
}

/// Any JSON value, to carry an event's fields through without knowing their shape.
public enum JSONValue: Codable, Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let object):
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in object.sorted(by: { $0.key < $1.key }) { try container.encode(value, forKey: Key(key)) }
        default:
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .array(let value): try container.encode(value)
            case .object: break
            }
        }
    }

    func mapStrings(_ transform: (String) -> String) -> JSONValue {
        switch self {
        case .string(let value): .string(transform(value))
        case .array(let values): .array(values.map { $0.mapStrings(transform) })
        case .object(let object): .object(object.mapValues { $0.mapStrings(transform) })
        default: self
        }
    }
}

extension OperatorView {
    /// A stored turn as an operator may read it. Each private or family-only story it shows
    /// (a passage or a citation) leaves a `story.read` audit entry on its owner.
    public func turn(_ record: TurnRecord) async throws -> TurnDetail {
        let snapshot = try TurnSnapshot.decode(record.snapshot)
        let storyIDs = Set(snapshot.passages.map(\.storyID) + snapshot.citations.map(\.storyID))
        let access = try await self.access(storyIDs)
        try await recordReads(access) { _ in (record.id, record.threadID) }
        var passageTexts: [String: String] = [:]
        for passage in snapshot.passages where passageTexts[passage.passageID] == nil {
            passageTexts[passage.passageID] = try await engine.archive.store.passage(id: passage.passageID)?.text
        }
        var titles: [String: String] = [:]
        for id in storyIDs { titles[id] = try await engine.archive.store.story(id: id)?.title }
        let shown = view(snapshot, access, passageTexts: passageTexts)
        let passages = snapshot.passages.map { retrieved in
            var title = titles[retrieved.storyID] ?? "[story removed]"
            var text = passageTexts[retrieved.passageID] ?? "[story removed]"
            switch access[retrieved.storyID] ?? .removed {
            case .open, .granted:
                text = masked(text)
            case .masked(let people, _):
                title = Self.names(title, people: people)
                text = excerpt(text, people: people)
            case .removed:
                title = "[story removed]"
                text = "[story removed]"
            }
            return TurnDetail.Passage(storyID: retrieved.storyID, passageID: retrieved.passageID, title: title, text: text, score: retrieved.score,
                                      ranks: .init(bm25: retrieved.lexicalRank, vector: retrieved.denseRank, fused: retrieved.number))
        }
        // A reply its author deleted had its text taken out of the snapshot: nothing to show.
        let answer = snapshot.redactedReply == nil && !(snapshot.text.isEmpty && snapshot.citations.isEmpty) ? shown.text : nil
        return TurnDetail(
            turnID: record.id, threadID: record.threadID, assistant: record.assistant, status: record.status.rawValue,
            startedAt: record.startedAt, finishedAt: record.finishedAt, promptVersion: record.promptVersion, promptHash: record.promptHash,
            promptLabel: snapshot.promptLabel, provider: record.provider, model: record.model, upstreamModel: snapshot.upstreamModel,
            retrieval: snapshot.retrieval, indexVersion: snapshot.indexVersion,
            question: snapshot.redactedQuestion == nil ? shown.question : nil, answer: answer, groundedness: snapshot.groundedness,
            flags: snapshot.flags.map(\.kind.rawValue), passages: passages, ledger: snapshot.ledger, usage: snapshot.usage,
            firstTokenSeconds: snapshot.firstTokenSeconds,
            events: (snapshot.events ?? []).map { EventView($0, masked: masked) },
            verdicts: snapshot.safety.map { .init(stage: $0.stage, decision: $0.decision.rawValue, reason: masked($0.reason), score: $0.score) },
            citations: shown.citations)
    }
}
