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
    public var fingerprint: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(self)) ?? Data()
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

    public init(requestHash: String, provider: String, events: [ProviderEvent] = [], complete: Bool = false) {
        self.requestHash = requestHash
        self.provider = provider
        self.events = events
        self.complete = complete
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
    private let live: (any ChatProvider)?
    private let counts = Mutex((played: 0, missed: 0))

    /// With a `live` provider, only its own recordings play: a reply another provider wrote is
    /// not passed off as this one's (a replay with the offline responder asks it, not the tape).
    public init(recordings: [RecordedReply], live: (any ChatProvider)?, name: String? = nil, defaultModel: String? = nil) {
        var byHash: [String: RecordedReply] = [:]
        for recording in recordings where recording.complete && (live == nil || recording.provider == live?.name) {
            byHash[recording.requestHash] = recording
        }
        self.recordings = byHash
        self.live = live
        self.name = name ?? live?.name ?? recordings.first?.provider ?? "cassette"
        self.defaultModel = defaultModel ?? live?.defaultModel ?? ""
    }

    public var readsInstructions: Bool { live?.readsInstructions ?? true }

    /// How many requests were answered from the cassette, and how many went live (or failed).
    public var played: Int { counts.withLock { $0.played } }
    public var missed: Int { counts.withLock { $0.missed } }

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
        counts.withLock { $0.missed += 1 }
        guard let live else {
            throw ProviderError.notConfigured("the cassette has no recording of this request (the prompt, the passages or the settings differ) and no live provider was given")
        }
        try await live.generate(request, into: deliver)
    }
}
