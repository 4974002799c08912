import Foundation

/// Reads the events of a chat-completions stream into provider events: text pieces in order,
/// the model once, and the finish reason and token usage when the stream is complete.
///
/// ```swift
/// var reader = ChatCompletionStreamReader()
/// for event in sseEvents { for output in try reader.read(event) { continuation.yield(output) } }
/// for output in try reader.endOfStream() { continuation.yield(output) }
/// ```
struct ChatCompletionStreamReader {
    private(set) var isComplete = false
    private var modelSent = false
    private var finishReason: String?
    private var usage: TokenUsage?
    private let decoder = JSONDecoder()

    /// The provider events that one server-sent event carries.
    /// - Throws: `ProviderError.upstream` for an error object in the stream,
    ///   `.malformedStream` for data that is not a chunk.
    mutating func read(_ event: ServerSentEvent) throws -> [ProviderEvent] {
        guard !isComplete else { return [] }
        let data = Self.trimmed(event.data)
        if event.type == "error" {
            throw Self.failure(fromErrorData: data, decoder: decoder)
        }
        // Other named events are extensions this reader does not know; the chunks come unnamed.
        guard event.type == nil || event.type == "message" else { return [] }
        if data == "[DONE]" {
            isComplete = true
            return [.finished(reason: finishReason, usage: usage)]
        }
        if data.isEmpty { return [] }
        let chunk: ChatCompletionChunk
        do {
            chunk = try ChatCompletionChunk.parsedWithJSONC(data) ?? decoder.decode(ChatCompletionChunk.self, from: Data(data.utf8))
        } catch {
            throw ProviderError.malformedStream("a data line is not a chat-completion chunk: \(data.prefix(120))")
        }
        if let failure = chunk.error {
            throw ProviderError.upstream(message: failure.message, type: failure.type)
        }
        var outputs: [ProviderEvent] = []
        if !modelSent, let model = chunk.model, !model.isEmpty {
            modelSent = true
            outputs.append(.model(model))
        }
        if let choice = chunk.choices?.first(where: { ($0.index ?? 0) == 0 }) {
            // A NUL in the model's text has no meaning, and SQLite text would end at it: the
            // reply stored would be cut short of the reply sent. It is dropped here, once, so
            // what is sent, stored and recorded for replays is the same text.
            if var piece = choice.delta?.content, !piece.isEmpty {
                if piece.utf8.contains(0) { piece.unicodeScalars.removeAll { $0 == "\u{0}" } }
                if !piece.isEmpty { outputs.append(.text(piece)) }
            }
            if let reason = choice.finishReason { finishReason = reason }
        }
        if let counts = chunk.usage {
            usage = TokenUsage(promptTokens: counts.promptTokens, completionTokens: counts.completionTokens)
        }
        return outputs
    }

    /// The stream's bytes ended. A stream with a finish reason but no `[DONE]` is complete
    /// (some servers stop there); one with neither was cut off.
    mutating func endOfStream() throws -> [ProviderEvent] {
        if isComplete { return [] }
        guard let finishReason else { throw ProviderError.connection("stream ended early") }
        isComplete = true
        return [.finished(reason: finishReason, usage: usage)]
    }

    /// `data` without the whitespace around it. Foundation's `trimmingCharacters` goes through
    /// NSString and took 4% of the service's CPU under load (`griot-bench serve-load`), for data
    /// that almost never has any: a chunk that starts and ends with neither an ASCII space or tab
    /// nor a non-ASCII byte (where a Unicode space would begin) is returned as it is.
    static func trimmed(_ data: String) -> String {
        func mayBeWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte >= 0x80 }
        guard let first = data.utf8.first, let last = data.utf8.last, !mayBeWhitespace(first), !mayBeWhitespace(last) else {
            return data.trimmingCharacters(in: .whitespaces)
        }
        return data
    }

    private static func failure(fromErrorData data: String, decoder: JSONDecoder) -> ProviderError {
        if let chunk = try? decoder.decode(ChatCompletionChunk.self, from: Data(data.utf8)), let failure = chunk.error {
            return .upstream(message: failure.message, type: failure.type)
        }
        return .upstream(message: data.isEmpty ? "no message given" : String(data.prefix(500)), type: nil)
    }
}
