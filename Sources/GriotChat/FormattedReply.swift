import Foundation
import GriotProviders
import Synchronization

/// An assistant's reply in the form it requires (`ReplyFormat`, a JSON story for instance): the
/// model's whole reply is read before anything is shown, then rendered. A reply not in that form
/// is asked for once more, with the model's own reply and what was wrong with it; a second one
/// fails the turn with the format's message. Only rendered text reaches the turn, and through it
/// the output stages, in word-sized pieces as a model streams, so nothing invalid is ever shown.
///
/// ```swift
/// let recording = try await FormattedReply(format: StoryReplyFormat(), provider: provider)
///     .generate(request, model: model, into: regrouping.receive)
/// ```
struct FormattedReply: Sendable {
    let format: any ReplyFormat
    let provider: any ChatProvider

    /// The failure's code when the second reply is not in the form either.
    static let failureCode = "reply_invalid"

    /// Delivers the rendered reply, and returns the recording of the model's raw reply that was
    /// accepted, for the request it answered (a cassette then plays it through the same render).
    func generate(_ request: ChatRequest, model: String, into deliver: @escaping @Sendable (ProviderEvent) -> Void,
                  countedUsage: @escaping @Sendable () -> TokenUsage? = { nil }) async throws -> RecordedReply {
        var asked = request
        var raw = try await read(asked, model: model, countedUsage: countedUsage)
        let rendered: String
        do {
            rendered = try format.render(raw.text, grounding: request.grounding)
        } catch {
            asked = Self.retry(request, raw: raw.text, error: error)
            raw = try await read(asked, model: model, countedUsage: countedUsage)
            do {
                rendered = try format.render(raw.text, grounding: request.grounding)
            } catch {
                throw TurnStageFailure(code: Self.failureCode, message: Self.failureMessage(error))
            }
        }
        if let upstream = raw.model { deliver(.model(upstream)) }
        for piece in Self.pieces(rendered) {
            try Task.checkCancellation()
            deliver(.text(piece))
        }
        deliver(.finished(reason: raw.reason, usage: raw.usage))
        var recording = RecordedReply(recording: asked, provider: provider.name)
        recording.events = raw.events
        recording.complete = true
        return recording
    }

    /// The request again, with the model's reply and a user message saying what was wrong.
    static func retry(_ request: ChatRequest, raw: String, error: ReplyFormatError) -> ChatRequest {
        var retry = request
        retry.messages += [
            ChatMessage(role: .assistant, content: raw),
            ChatMessage(role: .user, content: "Your reply is not in the required form: \(error.message) Answer again, in the required form only."),
        ]
        return retry
    }

    static func failureMessage(_ error: ReplyFormatError) -> String {
        "The model's reply was not in the form this assistant needs, even when asked again: \(error.message) Nothing of it was shown; try again."
    }

    /// The text in pieces that each end after a space or a line break, as a model streams words.
    static func pieces(_ text: String) -> [String] {
        var pieces: [String] = []
        var piece = ""
        for character in text {
            piece.append(character)
            if character == " " || character == "\n" {
                pieces.append(piece)
                piece = ""
            }
        }
        if !piece.isEmpty { pieces.append(piece) }
        return pieces
    }

    /// A whole reply of the model, as it arrived.
    struct RawReply: Sendable {
        var events: [ProviderEvent] = []
        var text = ""
        var model: String?
        var reason: String?
        var usage: TokenUsage?

        mutating func take(_ event: ProviderEvent) {
            events.append(event)
            switch event {
            case .text(let piece): text += piece
            case .model(let name): model = name
            case .finished(let finish, let counted):
                reason = finish
                usage = counted
            }
        }
    }

    private func read(_ request: ChatRequest, model: String, countedUsage: @escaping @Sendable () -> TokenUsage?) async throws -> RawReply {
        let reply = Mutex(RawReply())
        try await provider.generateTraced(request, model: model, into: { event in reply.withLock { $0.take(event) } }, countedUsage: countedUsage)
        return reply.withLock { $0 }
    }
}
