import Foundation

/// What the stub server sends for one request: a status, headers, and body steps played in order.
public struct StubReply: Sendable {
    public enum Step: Sendable {
        /// Writes and flushes these bytes as one piece.
        case send([UInt8])
        /// Waits before the next step, so the client reads what came before on its own.
        case pause(seconds: Double)
        /// Closes the connection without ending the response, as a crashed upstream does.
        case closeAbruptly
    }

    public var status: Int
    public var headers: [(String, String)]
    public var steps: [Step]
    /// Seconds before the status line and headers are sent, as a slow or stuck upstream would.
    public var headDelay: Double

    public init(status: Int = 200, headers: [(String, String)] = [("content-type", "text/event-stream")], steps: [Step], headDelay: Double = 0) {
        self.status = status
        self.headers = headers
        self.steps = steps
        self.headDelay = headDelay
    }

    /// A stream of text pieces (one chunk each, `pause` apart), a finish reason, usage and `[DONE]`.
    public static func stream(_ pieces: [String], model: String = "stub-model", pause: Double = 0, usage: (Int, Int)? = nil) -> StubReply {
        var steps: [Step] = [.send(SSE.chunk(role: "assistant", model: model))]
        for piece in pieces {
            if pause > 0 { steps.append(.pause(seconds: pause)) }
            steps.append(.send(SSE.chunk(piece, model: model)))
        }
        steps.append(.send(SSE.finish("stop", model: model)))
        if let usage { steps.append(.send(SSE.usage(prompt: usage.0, completion: usage.1, model: model))) }
        steps.append(.send(SSE.done))
        return StubReply(steps: steps)
    }

    /// An error reply with an OpenAI-style JSON body.
    public static func error(status: Int, message: String, headers: [(String, String)] = []) -> StubReply {
        StubReply(status: status, headers: [("content-type", "application/json")] + headers,
                  steps: [.send(SSE.json(["error": ["message": message, "type": "server_error", "code": NSNull()]]))])
    }
}

/// Builds the bytes of a chat-completions event stream.
public enum SSE {
    public static func json(_ object: Any) -> [UInt8] {
        Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    public static func event(_ object: Any) -> [UInt8] {
        Array("data: ".utf8) + json(object) + Array("\n\n".utf8)
    }

    public static func chunk(_ text: String? = nil, role: String? = nil, model: String = "stub-model") -> [UInt8] {
        var delta: [String: Any] = [:]
        if let role { delta["role"] = role; delta["content"] = "" }
        if let text { delta["content"] = text }
        return event(["id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model,
                      "choices": [["index": 0, "delta": delta, "finish_reason": NSNull()]]])
    }

    public static func finish(_ reason: String, model: String = "stub-model") -> [UInt8] {
        event(["id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model,
               "choices": [["index": 0, "delta": [String: Any](), "finish_reason": reason]]])
    }

    public static func usage(prompt: Int, completion: Int, model: String = "stub-model") -> [UInt8] {
        event(["id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model, "choices": [Any](),
               "usage": ["prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion]])
    }

    public static let done = Array("data: [DONE]\n\n".utf8)
    public static let keepAlive = Array(": keep-alive\n\n".utf8)
}
