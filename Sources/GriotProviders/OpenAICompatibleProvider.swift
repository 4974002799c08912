import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// A model behind an OpenAI-compatible chat-completions endpoint, streamed over server-sent events.
///
/// ```swift
/// let configuration = try OpenAICompatibleConfiguration(environment: ProcessInfo.processInfo.environment)
/// let provider = OpenAICompatibleProvider(configuration: configuration)
/// for try await event in provider.stream(request) { … }
/// ```
/// Each call runs its request in a task of its own, cancelled as soon as the consumer stops
/// iterating (or its task is cancelled): leaving a `for try await` over an AsyncHTTPClient body
/// does not by itself stop the request, and the upstream would go on generating (and billing)
/// a reply nobody reads.
public struct OpenAICompatibleProvider: ChatProvider {
    public let configuration: OpenAICompatibleConfiguration
    private let httpClient: HTTPClient

    public var name: String { configuration.name }
    public var defaultModel: String { configuration.model }

    /// How much of an error reply is read for its message; the rest is not waited for.
    static let errorBodyLimit = 64 * 1024
    /// How much trailing data after `[DONE]` is read so the connection can be reused.
    static let trailingDataLimit = 16 * 1024
    static let trailingDataSeconds = 1.0

    /// - Parameter httpClient: the client to send through; ``streamingClient`` by default, so
    ///   connections to the service are pooled across requests.
    public init(configuration: OpenAICompatibleConfiguration, httpClient: HTTPClient = Self.streamingClient) {
        self.configuration = configuration
        self.httpClient = httpClient
    }

    /// The process-wide client for model streams. Each reply holds its connection for as long as
    /// it streams, and `HTTPClient.shared` opens at most 8 connections per host: a node would
    /// stream 8 replies at a time and queue every other chat until its connect timeout (measured
    /// with `griot-bench serve-load`: 25 of 100 concurrent chats completed, the rest failed).
    public static let streamingClient: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: maximumConnectionsPerHost)
        // Silence is watched per request by `ReadDeadline`, with the configured read timeout. The
        // client's own read timeout (90 s here) would only cut off a longer configured one, and it
        // re-arms a timer on the event loop for every chunk of every reply: 3% of the service's
        // CPU at 1,000 concurrent streams (perf, `griot-bench serve-load`).
        configuration.timeout.read = nil
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Concurrent upstream connections per model host: one per reply being streamed.
    public static let maximumConnectionsPerHost = 2048

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ProviderEvent, any Error> {
        let (events, continuation) = AsyncThrowingStream.makeStream(of: ProviderEvent.self)
        let task = Task {
            do {
                try await self.generate(request) { event in
                    continuation.yield(event)
                    // The consumer has the whole reply; the trailing bytes are none of its business.
                    if case .finished = event { continuation.finish() }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { termination in
            // `.finished` comes from the task itself (it may still be reading what follows
            // `[DONE]`); `.cancelled` means the consumer went away, so the request must stop.
            if case .cancelled = termination { task.cancel() }
        }
        return events
    }

    /// Reads the reply in the calling task. `deliver` gets `.finished` as soon as `[DONE]` comes;
    /// what may follow it is read before this returns (for at most a second).
    public func generate(_ request: ChatRequest, into deliver: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        let reply = ReplyCompletion()
        do {
            try await send(request) { event in
                if case .finished = event { reply.complete.store(true, ordering: .relaxed) }
                deliver(event)
            }
        } catch {
            // A failure while reading what follows `[DONE]` (a server that keeps the reply open
            // past the second it gets) does not undo a reply that was complete.
            if reply.complete.load(ordering: .relaxed) { return }
            throw Self.providerError(from: error)
        }
    }

    private final class ReplyCompletion: Sendable {
        let complete = Atomic(false)
    }

    /// The HTTP request for a chat request: URL, headers and JSON body.
    public func httpRequest(for request: ChatRequest) throws -> HTTPClientRequest {
        let model = request.settings.model ?? configuration.model
        var httpRequest = HTTPClientRequest(url: configuration.chatCompletionsURL(model: model))
        httpRequest.method = .POST
        httpRequest.headers.add(name: "content-type", value: "application/json")
        httpRequest.headers.add(name: "accept", value: "text/event-stream")
        if let key = configuration.apiKey, !key.isEmpty {
            switch configuration.style {
            case .openAI: httpRequest.headers.add(name: "authorization", value: "Bearer \(key)")
            case .azure: httpRequest.headers.add(name: "api-key", value: key)
            }
        }
        let body = ChatCompletionsBody(
            model: model,
            messages: configuration.foldSystemMessages ? Self.foldingSystemMessages(request.messages) : request.messages,
            streamOptions: configuration.includeUsage ? .init(includeUsage: true) : nil,
            temperature: request.settings.temperature ?? configuration.temperature,
            maxTokens: request.settings.maxTokens ?? configuration.maxTokens,
            stop: request.settings.stop.flatMap { $0.isEmpty ? nil : $0 }, user: request.settings.user)
        httpRequest.body = .bytes(ByteBuffer(bytes: try body.encoded()))
        return httpRequest
    }

    /// The lines around the system messages folded into a user message.
    public static let foldedInstructionsOpening = "<instructions>"
    public static let foldedInstructionsClosing = "</instructions>"

    /// The messages with every system message taken out and joined, in order, at the top of the
    /// first user message between `<instructions>` and `</instructions>` lines (a user message of
    /// their own when there is none), for a chat template that drops system messages
    /// (`OpenAICompatibleConfiguration.foldSystemMessages`).
    ///
    /// ```swift
    /// OpenAICompatibleProvider.foldingSystemMessages([.init(role: .system, content: "Cite by number."), .init(role: .user, content: "Who rowed?")])
    /// // [user: "<instructions>\nCite by number.\n</instructions>\n\nWho rowed?"]
    /// ```
    public static func foldingSystemMessages(_ messages: [ChatMessage]) -> [ChatMessage] {
        let system = messages.filter { $0.role == .system }.map(\.content)
        guard !system.isEmpty else { return messages }
        let block = foldedInstructionsOpening + "\n" + system.joined(separator: "\n\n") + "\n" + foldedInstructionsClosing
        var rest = messages.filter { $0.role != .system }
        if let first = rest.firstIndex(where: { $0.role == .user }) {
            rest[first].content = block + "\n\n" + rest[first].content
        } else {
            rest.insert(ChatMessage(role: .user, content: block), at: 0)
        }
        return rest
    }

    private func send(_ request: ChatRequest, to deliver: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        let httpRequest = try httpRequest(for: request)
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(httpRequest, timeout: Self.timeAmount(configuration.connectTimeout))
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw ProviderError.connection("no reply within \(ReadDeadline.format(configuration.connectTimeout)) s")
        }
        try await ReadDeadline.run(seconds: configuration.readTimeout) { deadline in
            guard (200..<300).contains(response.status.code) else {
                let body = try await Self.readPrefix(of: response.body, limit: Self.errorBodyLimit, deadline: deadline)
                throw ProviderError.forResponse(status: response.status, headers: response.headers, body: body)
            }
            if let type = response.headers.first(name: "content-type"), type.lowercased().contains("json") {
                // A server that ignores `stream: true` answers with one JSON object (or an error in one).
                let body = try await Self.readPrefix(of: response.body, limit: Self.errorBodyLimit, deadline: deadline)
                let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
                if object?["error"] != nil, let message = ProviderError.message(fromErrorBody: body) {
                    throw ProviderError.upstream(message: message, type: nil)
                }
                throw ProviderError.malformedStream("the service answered with JSON, not an event stream; does it support stream: true?")
            }
            try await Self.relay(response.body, to: deliver, deadline: deadline)
        }
    }

    /// Reads the event stream into provider events until `[DONE]` or the end of the body.
    private static func relay(_ body: HTTPClientResponse.Body, to deliver: (ProviderEvent) -> Void, deadline: ReadDeadline) async throws {
        var parser = ServerSentEventParser()
        var reader = ChatCompletionStreamReader()
        var iterator = body.makeAsyncIterator()
        while !reader.isComplete, let chunk = try await iterator.next() {
            deadline.touch()
            let events: [ServerSentEvent]
            do throws(ServerSentEventParser.LimitExceeded) { events = try parser.feed(chunk) } catch { throw tooLong(error) }
            for event in events {
                for output in try reader.read(event) { deliver(output) }
                if reader.isComplete { break }
            }
        }
        if !reader.isComplete {
            let events: [ServerSentEvent]
            do throws(ServerSentEventParser.LimitExceeded) { events = try parser.finish() } catch { throw tooLong(error) }
            for event in events {
                for output in try reader.read(event) { deliver(output) }
            }
            for output in try reader.endOfStream() { deliver(output) }
            return
        }
        // `[DONE]`: the consumer has its reply now (`.finished`). What follows is normally just
        // the end of the chunked body; reading it lets the connection go back to the pool. A
        // server that keeps the reply open after `[DONE]` gets a second, not the whole read timeout.
        deadline.shorten(to: trailingDataSeconds)
        var trailing = 0
        while let chunk = try? await iterator.next() {
            trailing += chunk.readableBytes
            if trailing > trailingDataLimit {
                await abandon(&iterator)
                return
            }
        }
    }

    /// A line or event too long to hold is a malformed stream, not a connection failure: asking
    /// again would get the same endless line.
    private static func tooLong(_ error: ServerSentEventParser.LimitExceeded) -> ProviderError {
        .malformedStream("\(error); the service is not sending a chat-completions stream, or not one Griot can hold")
    }

    /// Reads up to `limit` bytes of a body, then stops the request if more is coming.
    private static func readPrefix(of body: HTTPClientResponse.Body, limit: Int, deadline: ReadDeadline) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        var iterator = body.makeAsyncIterator()
        while let chunk = try await iterator.next() {
            deadline.touch()
            bytes.append(contentsOf: chunk.readableBytesView.prefix(limit - bytes.count))
            if bytes.count >= limit {
                await abandon(&iterator)
                break
            }
        }
        return bytes
    }

    /// Stops a response body that is still arriving. Cancelling the current task and asking for
    /// the next chunk is what makes AsyncHTTPClient cancel the request (and close the connection);
    /// merely no longer iterating leaves it running.
    private static func abandon(_ iterator: inout HTTPClientResponse.Body.AsyncIterator) async {
        withUnsafeCurrentTask { $0?.cancel() }
        _ = try? await iterator.next()
    }

    /// The error a consumer sees: provider errors as they are, cancellation as cancellation,
    /// anything from the HTTP stack as a connection failure.
    static func providerError(from error: any Error) -> any Error {
        if let error = error as? ProviderError { return error }
        if error is CancellationError || Task.isCancelled { return CancellationError() }
        if let error = error as? HTTPClientError {
            switch error {
            case .remoteConnectionClosed: return ProviderError.connection("the service closed the connection")
            case .connectTimeout: return ProviderError.connection("connecting timed out")
            case .readTimeout: return ProviderError.connection("reading timed out")
            case .cancelled: return CancellationError()
            default: return ProviderError.connection(String(describing: error))
            }
        }
        return ProviderError.connection(String(describing: error))
    }

    private static func timeAmount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(seconds * 1_000_000_000))
    }
}
