import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// An OpenAI-compatible chat-completions server on 127.0.0.1 that plays scripted replies and
/// records what it was sent and whether the client hung up before a reply ended.
///
/// ```swift
/// try await StubChatServer.with({ _ in .stream(["Hel", "lo"]) }) { server in
///     … point a provider at server.baseURL …
///     #expect(server.requests.count == 1)
/// }
/// ```
public final class StubChatServer: Sendable {
    /// One request as the stub saw it, and how its reply ended.
    public struct Request: Sendable {
        public enum Ending: Sendable, Equatable {
            case stillSending
            case completed
            case closedByServer
            /// The client closed the connection while the reply was still being sent.
            case clientDisconnected(at: ContinuousClock.Instant)
        }

        public var method: HTTPMethod
        public var uri: String
        public var headers: HTTPHeaders
        public var body: [UInt8]
        public var ending: Ending = .stillSending

        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }

        public var clientDisconnected: Bool {
            if case .clientDisconnected = ending { return true }
            return false
        }
    }

    let journal: Journal
    private let listener: any Channel
    public let port: Int

    public var baseURL: String { "http://127.0.0.1:\(port)/v1" }
    public var requests: [Request] { journal.requests }

    private init(listener: any Channel, journal: Journal) {
        self.listener = listener
        self.journal = journal
        self.port = listener.localAddress?.port ?? 0
    }

    /// Starts a stub whose reply to request number `n` (from 0) is `reply(n)`, runs `body`, stops it.
    public static func with<T>(_ reply: @escaping @Sendable (Int) -> StubReply,
                        _ body: (StubChatServer) async throws -> T) async throws -> T {
        try await with(answering: { index, _ in reply(index) }, body)
    }

    /// Starts a stub that answers from each request (see `start(answering:)`), runs `body`, stops it.
    public static func with<T>(answering reply: @escaping @Sendable (Int, Request) -> StubReply,
                               _ body: (StubChatServer) async throws -> T) async throws -> T {
        let server = try await start(answering: reply)
        do {
            let result = try await body(server)
            try await server.stop()
            return result
        } catch {
            try? await server.stop()
            throw error
        }
    }

    public static func start(_ reply: @escaping @Sendable (Int) -> StubReply) async throws -> StubChatServer {
        try await start(answering: { index, _ in reply(index) })
    }

    /// Starts a stub whose reply is made from the request itself (its number from 0, and what was sent).
    public static func start(answering reply: @escaping @Sendable (Int, Request) -> StubReply) async throws -> StubChatServer {
        let journal = Journal()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    journal.opened(channel)
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(StubHandler(journal: journal, reply: reply))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return StubChatServer(listener: listener, journal: journal)
    }

    public func stop() async throws {
        for channel in journal.openChannels { try? await channel.close() }
        try await listener.close()
    }

    /// Waits (polling) until `condition` holds for the recorded requests, or `timeout` passes.
    @discardableResult
    public func waitUntil(timeout: Double = 5, _ condition: ([Request]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if condition(requests) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(requests)
    }

    /// The stub's records, shared by its connections' event loops and the test's task.
    final class Journal: @unchecked Sendable {
        // NSLock: the handlers write from event-loop threads and tests read from tasks, and the
        // test target does not depend on NIOConcurrencyHelpers.
        private let lock = NSLock()
        private var recorded: [Request] = []
        private var channels: [ObjectIdentifier: any Channel] = [:]

        var requests: [Request] { lock.withLock { recorded } }
        var openChannels: [any Channel] { lock.withLock { Array(channels.values) } }

        func opened(_ channel: any Channel) {
            lock.withLock { channels[ObjectIdentifier(channel)] = channel }
            channel.closeFuture.whenComplete { [self] _ in
                _ = lock.withLock { channels.removeValue(forKey: ObjectIdentifier(channel)) }
            }
        }

        func begin(_ request: Request) -> Int {
            lock.withLock {
                recorded.append(request)
                return recorded.count - 1
            }
        }

        func end(_ index: Int, _ ending: Request.Ending) {
            lock.withLock {
                if recorded[index].ending == .stillSending { recorded[index].ending = ending }
            }
        }
    }
}

/// Answers the requests of one connection with the scripted replies.
private final class StubHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let journal: StubChatServer.Journal
    private let reply: @Sendable (Int, StubChatServer.Request) -> StubReply
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    /// The request whose reply is being sent, if one is.
    private var answering: Int?

    init(journal: StubChatServer.Journal, reply: @escaping @Sendable (Int, StubChatServer.Request) -> StubReply) {
        self.journal = journal
        self.reply = reply
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(let buffer):
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head else { return }
            let request = StubChatServer.Request(method: head.method, uri: head.uri, headers: head.headers, body: body)
            let index = journal.begin(request)
            answering = index
            let script = reply(index, request)
            var headers = HTTPHeaders(script.headers)
            if !headers.contains(name: "content-length") { headers.add(name: "transfer-encoding", value: "chunked") }
            let responseHead = HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: script.status), headers: headers)
            let start = {
                guard self.answering == index else { return }
                context.writeAndFlush(self.wrapOutboundOut(.head(responseHead)), promise: nil)
                self.play(script.steps[...], for: index, context: context)
            }
            if script.headDelay > 0 {
                context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(script.headDelay * 1_000_000_000)), start)
            } else {
                start()
            }
        }
    }

    private func play(_ steps: ArraySlice<StubReply.Step>, for index: Int, context: ChannelHandlerContext) {
        var steps = steps
        while let step = steps.popFirst() {
            guard answering == index else { return }
            switch step {
            case .send(let bytes):
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
            case .pause(let seconds):
                context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(seconds * 1_000_000_000))) {
                    self.play(steps, for: index, context: context)
                }
                return
            case .closeAbruptly:
                answering = nil
                journal.end(index, .closedByServer)
                context.close(promise: nil)
                return
            }
        }
        guard answering == index else { return }
        answering = nil
        journal.end(index, .completed)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let index = answering {
            answering = nil
            journal.end(index, .clientDisconnected(at: .now))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset from a client that went away; channelInactive records it.
        context.close(promise: nil)
    }
}
