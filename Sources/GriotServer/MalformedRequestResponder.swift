import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request that NIO's HTTP parser refuses (a URL or headers over the 80 KB limit,
/// bytes that are not HTTP/1.1) with a status and a JSON error body that says what to do, where
/// Hummingbird would send an empty 400; then closes the connection, which a parse error leaves
/// unusable. Oversized headers get 431: the parser reports a long URL the same way, so the
/// message names both.
///
/// ```swift
/// Application(router: router, server: .http1(configuration: .init(additionalChannelHandlers: [MalformedRequestResponder()])))
/// ```
final class MalformedRequestResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// A response has begun and not ended: a second one cannot be written into it, so a parse
    /// error then is left to Hummingbird (which closes the connection).
    private var responding = false
    /// This handler has answered a parse error; the errors NIO raises for the rest of the bad
    /// request's bytes are dropped, so nothing closes the connection before the client has the answer.
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head: responding = true
        case .end: responding = false
        case .body: break
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if answered { return }
        guard let parseError = error as? HTTPParserError, !responding else {
            context.fireErrorCaught(error)
            return
        }
        let problem = Self.describe(parseError)
        let body = ByteBuffer(data: problem.body)
        var fields = SecurityHeadersMiddleware.fields
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.contentLength] = String(body.readableBytes)
        fields[.connection] = "close"
        let head = HTTPResponse(status: problem.status, headerFields: fields)
        answered = true
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        // Only the output is closed at first: closing the whole socket while the rest of an
        // oversized request is still unread would send a reset that can destroy the reply on its
        // way. The client closes its side on seeing the end; a client that does not is cut off.
        let loopBound = context.loopBound
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            loopBound.value.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }

    static func describe(_ error: HTTPParserError) -> APIError {
        switch error {
        case .headerOverflow:
            return APIError(.requestHeaderFieldsTooLarge, code: "headers_too_large",
                            "The request line and headers are over the limit of 80 KB (a very long URL or query string counts too); send long values in a JSON body instead of the query string or a header.",
                            details: ["limit_bytes": String(80 * 1024)])
        default:
            return APIError(.badRequest, code: "malformed_request",
                            "The request is not valid HTTP/1.1 (\(error)); check the request line, the headers and Content-Length, then send it again.")
        }
    }
}
