import Foundation
import HTTPTypes
import Hummingbird

/// An error a client can act on, sent as `{"error": {"code", "message", "details"}}`.
///
/// ```swift
/// throw APIError(.notFound, code: "session_not_found", "There is no session s-1 for you.")
/// ```
public struct APIError: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var details: [String: String]
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, _ message: String, details: [String: String] = [:], headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(data: body)))
    }

    var body: Data {
        struct Envelope: Encodable {
            struct Inner: Encodable {
                var code: String
                var message: String
                var details: [String: String]
            }
            var error: Inner
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(Envelope(error: .init(code: code, message: message, details: details)))) ?? Data()
    }

    static func badRequest(_ code: String, _ message: String) -> APIError { APIError(.badRequest, code: code, message) }
    static func notFound(_ code: String, _ message: String) -> APIError { APIError(.notFound, code: code, message) }
}
