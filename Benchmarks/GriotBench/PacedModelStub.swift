import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// An OpenAI-compatible chat-completions server on 127.0.0.1 that answers every request with the
/// same reply, one token every `pace` seconds, and records when it sent each token.
///
/// Leaner than the tests' `StubChatServer` on purpose: the reply's chunks are encoded once, the
/// pace is kept against absolute deadlines (a late tick does not push back the ones after it),
/// and each connection keeps its timestamps to itself until its reply ends, so a thousand
/// streams do not contend on one lock per token.
///
/// ```swift
/// let stub = try await PacedModelStub.start(pieces: words, pace: 0.010, group: group)
/// … send requests whose body contains "griotload-<id>" to stub.baseURL …
/// let record = stub.record(marker: "griotload-7")   // arrival and per-token send times
/// ```
final class PacedModelStub: Sendable {
    /// One reply as the stub sent it. Times are `NIODeadline` nanoseconds (the monotonic clock
    /// the load client uses too).
    struct Record: Sendable {
        var marker: String
        /// When the request's last byte was read.
        var arrived: UInt64
        /// When each content token was handed to the socket, in order.
        var sent: [UInt64]
        var completed: Bool
    }

    /// Request bodies are searched for this prefix followed by `[A-Za-z0-9-]+`, the chat's marker.
    static let markerPrefix = "griotload-"

    /// A request whose marker starts with this is held: its arrival is recorded at once, and
    /// its reply's tokens (one sentence, without pauses) wait for `releaseHeld()`. The admission
    /// benchmark reads the service's CPU while nothing but admitting runs.
    static let heldPrefix = markerPrefix + "hold-"

    let port: Int
    let pieces: [String]
    let pace: Double
    private let listener: any Channel
    private let journal: Journal

    var baseURL: String { "http://127.0.0.1:\(port)/v1" }

    private init(listener: any Channel, journal: Journal, pieces: [String], pace: Double) {
        self.listener = listener
        self.journal = journal
        self.pieces = pieces
        self.pace = pace
        self.port = listener.localAddress?.port ?? 0
    }

    /// `replies` gives some markers their own reply (the PII benchmark streams each labelled text
    /// to the chat that asked for it); every other request gets `pieces`.
    static func start(pieces: [String], pace: Double, model: String = "stub-model", replies: [String: [String]] = [:],
                      group: any EventLoopGroup) async throws -> PacedModelStub {
        let journal = Journal()
        let script = Script(pieces: pieces, pace: pace, model: model)
        var scripts = replies.mapValues { Script(pieces: $0, pace: pace, model: model) }
        // A held request's reply: the first sentence, all at once, so releasing costs little.
        let sentence = pieces.firstIndex { $0.hasSuffix(".") }.map { pieces[...$0] } ?? pieces[...]
        scripts[heldPrefix] = Script(pieces: Array(sentence), pace: 0.0001, model: model)
        let listener = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 4096)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(PacedReplyHandler(script: script, scripts: scripts, journal: journal))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return PacedModelStub(listener: listener, journal: journal, pieces: pieces, pace: pace)
    }

    func stop() async throws {
        try await listener.close()
    }

    func record(marker: String) -> Record? { journal.record(marker) }

    /// The most replies that were being sent at one time since the last `resetPeak()`.
    var peakActiveReplies: Int { journal.peakActive }

    func resetPeak() { journal.resetPeak() }

    /// How many held requests have arrived since the stub started.
    var heldArrivals: Int { journal.heldArrivals }

    /// Sends the reply of every held request, and of any held request that arrives later.
    func releaseHeld() { journal.releaseHeld() }

    /// Everything a reply sends, encoded once.
    struct Script: Sendable {
        let pace: Double
        let opening: ByteBuffer
        let tokens: [ByteBuffer]
        let closing: ByteBuffer

        init(pieces: [String], pace: Double, model: String) {
            func event(_ object: [String: Any]) -> ByteBuffer {
                let json = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                return ByteBuffer(bytes: Array("data: ".utf8) + json + Array("\n\n".utf8))
            }
            func chunk(_ delta: [String: Any], finish: String? = nil) -> [String: Any] {
                ["id": "chatcmpl-load", "object": "chat.completion.chunk", "model": model,
                 "choices": [["index": 0, "delta": delta, "finish_reason": finish ?? NSNull()] as [String: Any]]]
            }
            self.pace = pace
            opening = event(chunk(["role": "assistant", "content": ""]))
            tokens = pieces.map { event(chunk(["content": $0])) }
            var closing = event(chunk([:], finish: "stop"))
            var usage = event(["id": "chatcmpl-load", "object": "chat.completion.chunk", "model": model, "choices": [Any](),
                               "usage": ["prompt_tokens": 1000, "completion_tokens": pieces.count, "total_tokens": 1000 + pieces.count]])
            var done = ByteBuffer(string: "data: [DONE]\n\n")
            closing.writeBuffer(&usage)
            closing.writeBuffer(&done)
            self.closing = closing
        }
    }

    /// The records of finished (or broken off) replies, and how many are running.
    final class Journal: @unchecked Sendable {
        // NSLock: written from the event loops, read by the benchmark's task.
        private let lock = NSLock()
        private var records: [String: Record] = [:]
        private var active = 0
        private var peak = 0
        private var held: [@Sendable () -> Void] = []
        private var heldCount = 0
        private var releasing = false

        var heldArrivals: Int { lock.withLock { heldCount } }

        /// Runs `reply` now when held replies are released, else when they are.
        func hold(_ reply: @escaping @Sendable () -> Void) {
            let now = lock.withLock { () -> Bool in
                heldCount += 1
                if !releasing { held.append(reply) }
                return releasing
            }
            if now { reply() }
        }

        func releaseHeld() {
            let waiting = lock.withLock { () -> [@Sendable () -> Void] in
                releasing = true
                defer { held = [] }
                return held
            }
            for reply in waiting { reply() }
        }

        var peakActive: Int { lock.withLock { peak } }

        func resetPeak() { lock.withLock { peak = active } }

        func began() {
            lock.withLock {
                active += 1
                peak = max(peak, active)
            }
        }

        func ended(_ record: Record) {
            lock.withLock {
                active -= 1
                records[record.marker] = record
            }
        }

        func record(_ marker: String) -> Record? { lock.withLock { records[marker] } }
    }
}

/// Plays the script to each request of one connection (keep-alive, one request at a time).
private final class PacedReplyHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let defaultScript: PacedModelStub.Script
    private let scripts: [String: PacedModelStub.Script]
    /// The script of the reply being sent.
    private var script: PacedModelStub.Script
    private let journal: PacedModelStub.Journal
    private var body = ByteBuffer()
    private var keepAlive = true
    private var reply: PacedModelStub.Record?
    /// Bumped for every reply, so a tick scheduled for an earlier one does nothing.
    private var generation = 0

    init(script: PacedModelStub.Script, scripts: [String: PacedModelStub.Script] = [:], journal: PacedModelStub.Journal) {
        self.defaultScript = script
        self.scripts = scripts
        self.script = script
        self.journal = journal
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            body.clear()
            keepAlive = head.isKeepAlive
        case .body(var buffer):
            body.writeBuffer(&buffer)
        case .end:
            begin(context: context)
        }
    }

    private func begin(context: ChannelHandlerContext) {
        let arrived = NIODeadline.now()
        generation += 1
        let marker = Self.marker(in: body)
        let isHeld = marker?.hasPrefix(PacedModelStub.heldPrefix) == true
        script = isHeld ? scripts[PacedModelStub.heldPrefix]! : marker.flatMap { scripts[$0] } ?? defaultScript
        reply = .init(marker: marker ?? "unmarked-\(arrived.uptimeNanoseconds)", arrived: arrived.uptimeNanoseconds,
                      sent: [], completed: false)
        reply?.sent.reserveCapacity(script.tokens.count)
        journal.began()
        // The head goes out at once, held or not: the service waits only so long for it.
        var headers = HTTPHeaders([("content-type", "text/event-stream"), ("transfer-encoding", "chunked")])
        if !keepAlive { headers.add(name: "connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(script.opening))), promise: nil)
        guard isHeld else {
            schedule(token: 0, after: arrived, generation: generation, context: context)
            return
        }
        let generation = generation
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        journal.hold { [loop = context.eventLoop] in
            loop.execute {
                let (handler, context) = bound.value
                guard handler.generation == generation else { return }
                handler.schedule(token: 0, after: .now(), generation: generation, context: context)
            }
        }
    }

    /// Token `n` goes out `(n + 1) · pace` after the request arrived.
    private func schedule(token: Int, after arrived: NIODeadline, generation: Int, context: ChannelHandlerContext) {
        let deadline = arrived + .nanoseconds(Int64(Double(token + 1) * script.pace * 1e9))
        context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            guard self.generation == generation, self.reply != nil else { return }
            self.reply?.sent.append(NIODeadline.now().uptimeNanoseconds)
            context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(self.script.tokens[token]))), promise: nil)
            if token + 1 < self.script.tokens.count {
                self.schedule(token: token + 1, after: arrived, generation: generation, context: context)
            } else {
                self.finish(context: context)
            }
        }
    }

    private func finish(context: ChannelHandlerContext) {
        guard var record = reply else { return }
        reply = nil
        record.completed = true
        journal.ended(record)
        context.write(wrapOutboundOut(.body(.byteBuffer(script.closing))), promise: nil)
        let keepAlive = keepAlive
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let record = reply {
            reply = nil
            journal.ended(record)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    static func marker(in body: ByteBuffer) -> String? {
        let bytes = body.readableBytesView
        let prefix = Array(PacedModelStub.markerPrefix.utf8)
        guard let start = bytes.firstRange(of: prefix)?.lowerBound else { return nil }
        var end = start + prefix.count
        while end < bytes.endIndex, Self.isMarkerByte(bytes[end]) { end += 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static func isMarkerByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
    }
}
