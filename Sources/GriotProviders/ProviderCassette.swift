import Crypto
import Foundation
import Synchronization

extension ChatRequest: Codable {
    enum CodingKeys: String, CodingKey { case messages, settings, grounding }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(messages: try container.decode([ChatMessage].self, forKey: .messages),
                  settings: try container.decode(ModelSettings.self, forKey: .settings),
                  grounding: try container.decode(Grounding.self, forKey: .grounding))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(messages, forKey: .messages)
        try container.encode(settings, forKey: .settings)
        try container.encode(grounding, forKey: .grounding)
    }

    /// A hash of everything the provider is given (messages, settings, grounding), so that a
    /// recorded reply is played back only for the very request it answered.
    public var fingerprint: String { fingerprints().whole }

    /// A hash of each part of the request a replay can change, named as an operator reads it:
    /// the instructions (system messages), the earlier turns, the question (the last message),
    /// the settings and the passages. A recording keeps them, so that a cassette that cannot
    /// play says which part differs.
    public var partFingerprints: [String: String] { fingerprints().parts }

    /// Both fingerprints, with each image read once. An image is hashed as its URL's SHA-256
    /// (`sha256:<hex>` in place of the URL), not through `JSONEncoder`: ten 2 MB drawings cost the
    /// encoder's escaping scan twice per recording otherwise. A request without images hashes
    /// exactly as before images existed, so older recordings still play.
    func fingerprints() -> (whole: String, parts: [String: String]) {
        var request = self
        for index in request.messages.indices {
            guard let images = request.messages[index].images, !images.isEmpty else { continue }
            request.messages[index].images = images.map { "sha256:" + SHA256.hash(data: Data($0.utf8)).map { String(format: "%02x", $0) }.joined() }
        }
        let system = request.messages.filter { $0.role == .system }
        let conversation = request.messages.filter { $0.role != .system }
        return (Self.hash(request), [
            "instructions": Self.hash(system),
            "earlier turns": Self.hash(Array(conversation.dropLast())),
            "question": Self.hash(conversation.last.map { [$0] } ?? []),
            "settings": Self.hash(settings),
            "passages": Self.hash(grounding),
        ])
    }

    private static func hash(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data()
        return "sha256:" + SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}

/// A provider event as stored in a recording: `{"type": "text", "text": "…"}`,
/// `{"type": "model", "model": "…"}`, `{"type": "finished", "reason": …, "usage": …}`.
extension ProviderEvent: Codable {
    enum CodingKeys: String, CodingKey { case type, text, model, reason, usage }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "text": self = .text(try container.decode(String.self, forKey: .text))
        case "model": self = .model(try container.decode(String.self, forKey: .model))
        case "finished": self = .finished(reason: try container.decodeIfPresent(String.self, forKey: .reason),
                                          usage: try container.decodeIfPresent(TokenUsage.self, forKey: .usage))
        case let other: throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown event type \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .text(let text):
            try container.encode("text", forKey: .type)
            try container.encode(text, forKey: .text)
        case .model(let model):
            try container.encode("model", forKey: .type)
            try container.encode(model, forKey: .model)
        case .finished(let reason, let usage):
            try container.encode("finished", forKey: .type)
            try container.encodeIfPresent(reason, forKey: .reason)
            try container.encodeIfPresent(usage, forKey: .usage)
        }
    }
}

/// One provider reply as it arrived, event by event, with the request it answered.
public struct RecordedReply: Codable, Sendable, Hashable {
    public var requestHash: String
    public var provider: String
    public var events: [ProviderEvent]
    /// False when the reply was cut short (stopped, failed): such a recording is not played back.
    public var complete: Bool
    /// The hash of each part of the request (`ChatRequest.partFingerprints`); nil in recordings
    /// made before they were kept.
    public var requestParts: [String: String]?

    public init(requestHash: String, provider: String, events: [ProviderEvent] = [], complete: Bool = false,
                requestParts: [String: String]? = nil) {
        self.requestHash = requestHash
        self.provider = provider
        self.events = events
        self.complete = complete
        self.requestParts = requestParts
    }

    /// A recording of `request` by `provider`, its events still to come.
    public init(recording request: ChatRequest, provider: String) {
        let fingerprints = request.fingerprints()
        self.init(requestHash: fingerprints.whole, provider: provider, requestParts: fingerprints.parts)
    }
}

/// A provider that plays back recorded replies (a cassette): a request whose fingerprint matches
/// a complete recording gets exactly the recorded events, so a replay with the same settings
/// reproduces the stored text byte for byte. Any other request goes to `live`, or fails when
/// there is none.
///
/// ```swift
/// let cassette = CassetteProvider(recordings: [turn.recording], live: provider)
/// try await cassette.generate(request) { event in … }   // the recorded events, in order
/// ```
public final class CassetteProvider: ChatProvider {
    public let name: String
    public let defaultModel: String
    private let recordings: [String: RecordedReply]
    /// Every recording given, those that cannot play included: they say why a request missed.
    private let given: [RecordedReply]
    private let live: (any ChatProvider)?
    private let counts = Mutex((played: 0, missed: 0, why: [String]()))

    /// With a `live` provider, only its own recordings play: a reply another provider wrote is
    /// not passed off as this one's (a replay with the offline responder asks it, not the tape).
    public init(recordings: [RecordedReply], live: (any ChatProvider)?, name: String? = nil, defaultModel: String? = nil) {
        var byHash: [String: RecordedReply] = [:]
        for recording in recordings where recording.complete && (live == nil || recording.provider == live?.name) {
            byHash[recording.requestHash] = recording
        }
        self.recordings = byHash
        given = recordings
        self.live = live
        self.name = name ?? live?.name ?? recordings.first?.provider ?? "cassette"
        self.defaultModel = defaultModel ?? live?.defaultModel ?? ""
    }

    public var readsInstructions: Bool { live?.readsInstructions ?? true }

    /// How many requests were answered from the cassette, and how many went live (or failed).
    public var played: Int { counts.withLock { $0.played } }
    public var missed: Int { counts.withLock { $0.missed } }
    /// Why each request that went live (or failed) was not answered from the cassette, in order.
    public var missReasons: [String] { counts.withLock { $0.why } }

    /// Why `request` finds no recording to play: none kept, cut short, another provider's, or
    /// which parts of the request differ from the one recorded.
    func missReason(_ request: ChatRequest) -> String {
        guard !given.isEmpty else { return "the turn kept no recording of the model's reply (no model was called, or it predates recordings)" }
        let parts = request.partFingerprints
        var reasons: [String] = []
        for recording in given {
            if recording.requestHash == request.fingerprint {
                if !recording.complete { reasons.append("the recorded reply was cut short (stopped or failed), and only a whole reply is played") }
                if let live, recording.provider != live.name {
                    reasons.append("the reply was recorded from \(recording.provider), and the replay asks \(live.name)")
                }
                continue
            }
            guard let recorded = recording.requestParts else {
                reasons.append("the request differs from the recorded one (the recording predates the record of its parts)")
                continue
            }
            let changed = parts.keys.sorted().filter { recorded[$0] != parts[$0] }
            reasons.append("the request differs from the recorded one in " + (changed.isEmpty ? "its encoding" : changed.joined(separator: ", ")))
        }
        return reasons.joined(separator: "; ")
    }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ProviderEvent, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await self.generate(request) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func generate(_ request: ChatRequest, into deliver: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        if let recording = recordings[request.fingerprint] {
            counts.withLock { $0.played += 1 }
            for event in recording.events {
                try Task.checkCancellation()
                deliver(event)
            }
            return
        }
        let why = missReason(request)
        counts.withLock { counts in
            counts.missed += 1
            counts.why.append(why)
        }
        guard let live else {
            throw ProviderError.notConfigured("the cassette has no recording of this request (the prompt, the passages or the settings differ) and no live provider was given")
        }
        try await live.generate(request, into: deliver)
    }
}
