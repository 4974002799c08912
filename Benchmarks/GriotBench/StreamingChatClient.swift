import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Opens one HTTP/1.1 connection per chat, sends one POST and reads the reply's server-sent
/// events as they arrive, timing them on the event loop that reads them (no hop to a task
/// between the socket and the clock).
///
/// ```swift
/// let client = StreamingChatClient(group: group, host: "127.0.0.1", port: 8080)
/// let outcome = try await client.send(chat, at: .now()).get()
/// print(outcome.firstTextAt, outcome.sawDone)
/// ```
struct StreamingChatClient: Sendable {
    /// Which event stream the reply is.
    enum Dialect: Sendable {
        /// Griot's: `event: meta|delta|citation|chips|budget|error|done` with JSON data.
        case griot
        /// OpenAI's chat completions: `data: {chunk}` … `data: [DONE]`, read for speed: only the
        /// first content chunk is decoded (the stub's peer sends a hundred thousand a second).
        case openAI
        /// OpenAI's chat completions read as a client reads them, every chunk decoded: text is a
        /// chunk whose `choices[0].delta.content` is not empty, `{"error": …}` an error event, the
        /// `griot.status` of the last chunk (Griot's facade) the done status, `[DONE]` the end.
        case openAIChunks
        /// Not a stream: only the status is kept.
        case plain
    }

    struct Chat: Sendable {
        var marker: String
        var method: HTTPMethod = .POST
        var path: String
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        var dialect: Dialect
        /// Keep the reply's text in the outcome (the PII benchmark aligns it with its labels).
        var keepsText = false
    }

    /// What one chat saw. Times are `NIODeadline` nanoseconds; nil when it did not happen.
    struct Outcome: Sendable {
        var marker: String
        var scheduledAt: UInt64
        var sentAt: UInt64?
        var status: Int?
        var headAt: UInt64?
        /// When the first byte of the first event carrying reply text arrived.
        var firstTextAt: UInt64?
        var firstText: String?
        var textBytes = 0
        var textEvents = 0
        /// The reply's text as received, delta by delta (kept when the chat asks for it).
        var text = ""
        var errorEvents: [String] = []
        var sawDone = false
        /// When the first byte of the end event arrived (griot's `done`, OpenAI's `data: [DONE]`).
        var doneAt: UInt64?
        /// The `status` of griot's `done` event (complete, stopped, failed).
        var doneStatus: String?
        var endedAt: UInt64?
        /// A connection error, a timeout, or the connection closing before the response ended.
        var failure: String?

        init(marker: String, scheduledAt: UInt64) {
            self.marker = marker
            self.scheduledAt = scheduledAt
        }
    }

    let group: any EventLoopGroup
    let host: String
    let port: Int
    /// Seconds a chat may take from its start to the end of the reply.
    var timeout: Double = 120

    /// Starts the chat at `deadline` and completes when its reply has ended (never fails: what
    /// went wrong is in the outcome).
    func send(_ chat: Chat, at deadline: NIODeadline) -> EventLoopFuture<Outcome> {
        let loop = group.next()
        let promise = loop.makePromise(of: Outcome.self)
        let client = self
        loop.scheduleTask(deadline: deadline) {
            client.connect(chat, on: loop, scheduledAt: deadline, promise: promise)
        }
        return promise.futureResult
    }

    private func connect(_ chat: Chat, on loop: any EventLoop, scheduledAt: NIODeadline, promise: EventLoopPromise<Outcome>) {
        let outcome = Outcome(marker: chat.marker, scheduledAt: scheduledAt.uptimeNanoseconds)
        let host = host
        let timeout = timeout
        ClientBootstrap(group: loop)
            .connectTimeout(.seconds(30))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        ChatStreamHandler(chat: chat, host: host, outcome: outcome, timeout: timeout, promise: promise))
                }
            }
            .connect(host: self.host, port: port)
            .whenFailure { error in
                var failed = outcome
                failed.failure = "connect: \(error)"
                failed.endedAt = NIODeadline.now().uptimeNanoseconds
                promise.succeed(failed)
            }
    }
}

/// Sends one request on a fresh connection and reads its reply as events.
private final class ChatStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let chat: StreamingChatClient.Chat
    private let host: String
    private let timeout: Double
    private let promise: EventLoopPromise<StreamingChatClient.Outcome>
    private var outcome: StreamingChatClient.Outcome
    private var events = EventSplitter()
    private var reported = false
    private var deadline: Scheduled<Void>?

    init(chat: StreamingChatClient.Chat, host: String, outcome: StreamingChatClient.Outcome, timeout: Double,
         promise: EventLoopPromise<StreamingChatClient.Outcome>) {
        self.chat = chat
        self.host = host
        self.outcome = outcome
        self.timeout = timeout
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        var headers = HTTPHeaders([("host", host), ("content-length", String(chat.body.count)), ("connection", "close")])
        for (name, value) in chat.headers { headers.add(name: name, value: value) }
        outcome.sentAt = NIODeadline.now().uptimeNanoseconds
        context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: chat.method, uri: chat.path, headers: headers))), promise: nil)
        if !chat.body.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: chat.body)))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        let scheduled = NIODeadline.uptimeNanoseconds(outcome.scheduledAt)
        deadline = context.eventLoop.assumeIsolated().scheduleTask(deadline: scheduled + .nanoseconds(Int64(timeout * 1e9))) {
            self.report(failure: "timed out after \(Int(self.timeout)) s", context: context)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = NIODeadline.now().uptimeNanoseconds
        switch unwrapInboundIn(data) {
        case .head(let head):
            outcome.status = Int(head.status.code)
            outcome.headAt = now
        case .body(let buffer):
            guard chat.dialect != .plain else {
                // A plain reply's body is kept only when asked for (the service's /metrics).
                if chat.keepsText { outcome.text += String(buffer: buffer) }
                return
            }
            events.feed(buffer, at: now) { block, startedAt in read(block, startedAt: startedAt) }
        case .end:
            report(failure: nil, context: context)
        }
    }

    /// One event block. The peer's stub sends a hundred thousand token chunks a second at full
    /// load, so this works on the socket's bytes in place and decodes JSON only where it must.
    private func read(_ block: UnsafeBufferPointer<UInt8>, startedAt: UInt64) {
        var name: UnsafeBufferPointer<UInt8>?
        var data = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        var lineStart = 0
        for index in 0...block.count where index == block.count || block[index] == UInt8(ascii: "\n") {
            let line = UnsafeBufferPointer(rebasing: block[lineStart..<index])
            if Bytes.hasPrefix(line, Self.eventField) {
                name = UnsafeBufferPointer(rebasing: line[Self.eventField.count...])
            } else if Bytes.hasPrefix(line, Self.dataField) {
                data = UnsafeBufferPointer(rebasing: line[Self.dataField.count...])
            }
            lineStart = index + 1
        }
        switch chat.dialect {
        case .griot:
            guard let name else { return }
            if Bytes.equal(name, Self.deltaName) {
                received(text: (Self.json(data)?["text"] as? String) ?? "", startedAt: startedAt)
            } else if Bytes.equal(name, Self.errorName) {
                outcome.errorEvents.append((Self.json(data)?["code"] as? String) ?? "error")
            } else if Bytes.equal(name, Self.doneName) {
                outcome.sawDone = true
                if outcome.doneAt == nil { outcome.doneAt = startedAt }
                outcome.doneStatus = Self.json(data)?["status"] as? String
            }
        case .openAI:
            if Bytes.equal(data, Self.doneData) {
                outcome.sawDone = true
                if outcome.doneAt == nil { outcome.doneAt = startedAt }
            } else if !Bytes.contains(data, Self.roleKey), Bytes.contains(data, Self.contentKey) {
                // Every chunk after the opening one carries one token; only the first is decoded.
                if outcome.firstTextAt == nil {
                    let choices = Self.json(data)?["choices"] as? [[String: Any]]
                    received(text: (choices?.first?["delta"] as? [String: Any])?["content"] as? String ?? "", startedAt: startedAt)
                } else {
                    outcome.textEvents += 1
                }
            }
        case .openAIChunks:
            guard data.count > 0 else { return }
            if Bytes.equal(data, Self.doneData) {
                outcome.sawDone = true
                if outcome.doneAt == nil { outcome.doneAt = startedAt }
                return
            }
            guard let chunk = Self.json(data) else {
                outcome.errorEvents.append("unreadable chunk")
                return
            }
            if let error = chunk["error"] as? [String: Any] {
                outcome.errorEvents.append((error["code"] as? String) ?? (error["type"] as? String) ?? "error")
                return
            }
            if let status = (chunk["griot"] as? [String: Any])?["status"] as? String { outcome.doneStatus = status }
            let choice = (chunk["choices"] as? [[String: Any]])?.first
            if let content = (choice?["delta"] as? [String: Any])?["content"] as? String, !content.isEmpty {
                received(text: content, startedAt: startedAt)
            }
        case .plain:
            break
        }
    }

    private func received(text: String, startedAt: UInt64) {
        outcome.textEvents += 1
        outcome.textBytes += text.utf8.count
        if chat.keepsText { outcome.text += text }
        if outcome.firstTextAt == nil {
            outcome.firstTextAt = startedAt
            outcome.firstText = text
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        report(failure: "the connection closed before the response ended", context: context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        report(failure: "\(error)", context: context)
    }

    private func report(failure: String?, context: ChannelHandlerContext) {
        guard !reported else { return }
        reported = true
        deadline?.cancel()
        outcome.failure = failure
        outcome.endedAt = NIODeadline.now().uptimeNanoseconds
        promise.succeed(outcome)
        context.close(promise: nil)
    }

    private static let eventField = Array("event: ".utf8)
    private static let deltaName = Array("delta".utf8)
    private static let errorName = Array("error".utf8)
    private static let doneName = Array("done".utf8)
    private static let dataField = Array("data: ".utf8)
    private static let doneData = Array("[DONE]".utf8)
    private static let roleKey = Array("\"role\"".utf8)
    private static let contentKey = Array("\"content\"".utf8)

    private static func json(_ bytes: UnsafeBufferPointer<UInt8>) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(buffer: bytes))) as? [String: Any]
    }
}

/// Cuts a byte stream into server-sent event blocks (separated by a blank line), each with the
/// arrival time of its first byte.
struct EventSplitter {
    private var pending: [UInt8] = []
    private var pendingSince: UInt64 = 0
    /// Where the search for the next blank line resumes.
    private var scanned = 1

    /// Calls `block` with each event completed by these bytes (valid only during the call).
    mutating func feed(_ buffer: ByteBuffer, at time: UInt64, _ block: (UnsafeBufferPointer<UInt8>, UInt64) -> Void) {
        if pending.isEmpty { pendingSince = time }
        buffer.withUnsafeReadableBytes { pending.append(contentsOf: $0) }
        var since = pendingSince
        var consumed = 0
        var index = scanned
        pending.withUnsafeBufferPointer { bytes in
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "\n"), bytes[index - 1] == UInt8(ascii: "\n") {
                    if index - 1 > consumed { block(UnsafeBufferPointer(rebasing: bytes[consumed..<(index - 1)]), since) }
                    consumed = index + 1
                    // What follows the blank line came in this read.
                    since = time
                    index = consumed + 1
                } else {
                    index += 1
                }
            }
        }
        if consumed > 0 { pending.removeFirst(min(consumed, pending.count)) }
        pendingSince = since
        scanned = max(pending.count, 1)
    }
}

/// Byte comparisons on buffers, written out so they stay specialised and allocation-free.
enum Bytes {
    static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: [UInt8]) -> Bool {
        guard bytes.count >= prefix.count else { return false }
        for index in 0..<prefix.count where bytes[index] != prefix[index] { return false }
        return true
    }

    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ other: [UInt8]) -> Bool {
        bytes.count == other.count && hasPrefix(bytes, other)
    }

    static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, bytes.count >= needle.count else { return false }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == first, hasPrefix(UnsafeBufferPointer(rebasing: bytes[index...]), needle) { return true }
            index += 1
        }
        return false
    }
}
