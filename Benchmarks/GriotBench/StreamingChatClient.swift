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
        /// OpenAI's chat completions: `data: {chunk}` … `data: [DONE]`.
        case openAI
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
        var errorEvents: [String] = []
        var sawDone = false
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
            guard chat.dialect != .plain else { return }
            for (block, startedAt) in events.feed(buffer, at: now) { read(block, startedAt: startedAt) }
        case .end:
            report(failure: nil, context: context)
        }
    }

    private func read(_ block: ArraySlice<UInt8>, startedAt: UInt64) {
        var name = "message"
        var data: ArraySlice<UInt8> = []
        for line in block.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if line.starts(with: Self.eventField) {
                name = String(decoding: line.dropFirst(Self.eventField.count), as: UTF8.self)
            } else if line.starts(with: Self.dataField) {
                data = line.dropFirst(Self.dataField.count)
            }
        }
        switch chat.dialect {
        case .griot:
            switch name {
            case "delta":
                received(text: (Self.json(data)?["text"] as? String) ?? "", startedAt: startedAt)
            case "error":
                outcome.errorEvents.append((Self.json(data)?["code"] as? String) ?? "error")
            case "done":
                outcome.sawDone = true
                outcome.doneStatus = Self.json(data)?["status"] as? String
            default:
                break
            }
        case .openAI:
            if data.elementsEqual(Self.doneData) {
                outcome.sawDone = true
            } else if data.firstRange(of: Self.roleKey) == nil, data.firstRange(of: Self.contentKey) != nil {
                // Every chunk after the opening one carries one token; only the first is decoded.
                if outcome.firstTextAt == nil {
                    let choices = Self.json(data)?["choices"] as? [[String: Any]]
                    let text = (choices?.first?["delta"] as? [String: Any])?["content"] as? String ?? ""
                    received(text: text, startedAt: startedAt)
                } else {
                    outcome.textEvents += 1
                }
            }
        case .plain:
            break
        }
    }

    private func received(text: String, startedAt: UInt64) {
        outcome.textEvents += 1
        outcome.textBytes += text.utf8.count
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
    private static let dataField = Array("data: ".utf8)
    private static let doneData = Array("[DONE]".utf8)
    private static let roleKey = Array("\"role\"".utf8)
    private static let contentKey = Array("\"content\"".utf8)

    private static func json(_ bytes: ArraySlice<UInt8>) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }
}

/// Cuts a byte stream into server-sent event blocks (separated by a blank line), each with the
/// arrival time of its first byte.
struct EventSplitter {
    private var pending: [UInt8] = []
    private var pendingSince: UInt64 = 0
    private var scanned = 0

    mutating func feed(_ buffer: ByteBuffer, at time: UInt64) -> [(ArraySlice<UInt8>, UInt64)] {
        if pending.isEmpty { pendingSince = time }
        pending.append(contentsOf: buffer.readableBytesView)
        var blocks: [(ArraySlice<UInt8>, UInt64)] = []
        var start = 0
        var index = max(scanned, 1)
        while index < pending.count {
            if pending[index] == UInt8(ascii: "\n"), pending[index - 1] == UInt8(ascii: "\n") {
                blocks.append((pending[start..<(index - 1)], pendingSince))
                start = index + 1
                // What follows the blank line came in this read.
                pendingSince = time
                index = start + 1
            } else {
                index += 1
            }
        }
        // The blocks are slices of the old storage, so removing the consumed bytes keeps them intact.
        if start > 0 { pending.removeFirst(start) }
        scanned = max(pending.count - 1, 0)
        return blocks.filter { !$0.0.isEmpty }
    }
}
