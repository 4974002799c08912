import Foundation
import GriotAuth
import Hummingbird
import NIOCore

/// The context of one request: who is calling and what they were admitted to (set by
/// `AccessMiddleware`), and the request id.
public struct GriotRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The verified caller; nil only on the public routes (health, readiness, metrics, OpenAPI).
    public var caller: Caller?
    /// The thread or message the route's access rule admitted the caller to (`AccessPolicy`).
    var grant = AccessGrant()
    /// `X-Request-ID` as sent, or one made up; echoed on the response and in every log line.
    public var requestID: String = ""
    /// The client's socket address (the proxy's, behind one), for the audit log's salted hash.
    public var remoteAddress: SocketAddress?
    /// Closes when the client hangs up; a stream watches it to stop writing.
    public var connectionClosed: EventLoopFuture<Void>
    /// The request's connection, so that a stream can have it closed once its response ends.
    let channel: any Channel

    public init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        connectionClosed = source.channel.closeFuture
        channel = source.channel
    }

    /// Has the server close this connection as soon as the response being written has ended, as
    /// its `Connection: close` header says. Hummingbird closes a connection only when the request
    /// asked for it; this is the same signal it uses to close connections gracefully at shutdown.
    func closeConnectionAfterResponse() {
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
    }

    /// The caller on a route that requires one (the middleware guarantees it is set there).
    func requireCaller() throws -> Caller {
        guard let caller else { throw APIError(.unauthorized, code: "unauthenticated", "Send Authorization: Bearer <token>.") }
        return caller
    }

    /// Up to 8 MB in a request body (a story with a long transcript).
    public var maxUploadSize: Int { 8 * 1024 * 1024 }

    /// JSON with snake_case keys and ISO 8601 dates, as the mobile client expects.
    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}
