import Foundation
import GriotStore
import HTTPTypes
import Hummingbird

/// An error a client can act on, sent as `{"error": {"code", "message", "details", "type", "param"}}`:
/// a superset of OpenAI's error shape (`{error: {message, type, param, code}}`), so that an
/// OpenAI SDK raises its own exception type, with our message, for every route.
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
    /// The request field at fault (OpenAI's `param`: "messages[2].content", "n"), when one is.
    public var param: String?

    public init(_ status: HTTPResponse.Status, code: String, _ message: String, details: [String: String] = [:], headers: HTTPFields = [:],
                param: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
        self.param = param
    }

    /// OpenAI's error `type` for the status.
    var type: String {
        switch status.code {
        case 400, 404, 409, 413, 415, 422, 428: "invalid_request_error"
        case 401: "authentication_error"
        case 403: "permission_error"
        case 429: "rate_limit_error"
        case 503: "service_unavailable"
        default: "server_error"
        }
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
                var type: String
                // Written as null when absent, as OpenAI's clients expect the key.
                var param: String?
                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(code, forKey: .code)
                    try container.encode(message, forKey: .message)
                    try container.encode(details, forKey: .details)
                    try container.encode(type, forKey: .type)
                    try container.encode(param, forKey: .param)
                }
                enum CodingKeys: String, CodingKey { case code, message, details, type, param }
            }
            var error: Inner
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(Envelope(error: .init(code: code, message: message, details: details, type: type, param: param)))) ?? Data()
    }

    static func badRequest(_ code: String, _ message: String) -> APIError { APIError(.badRequest, code: code, message) }
    static func notFound(_ code: String, _ message: String) -> APIError { APIError(.notFound, code: code, message) }
}

extension APIError {
    /// Runs a store operation, turning its `ChatStoreError` into the status a client acts on:
    /// 404 for a missing message or thread, 409 (with the current ETag) for a conflict, 400 for
    /// invalid input.
    @discardableResult
    static func mapping<T>(_ operation: () throws -> T) throws -> T {
        do {
            return try operation()
        } catch let error as ChatStoreError {
            throw APIError(error)
        }
    }

    /// `mapping` for an operation that waits (an edit's moderation).
    @discardableResult
    static func mapping<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let error as ChatStoreError {
            throw APIError(error)
        }
    }

    init(_ error: ChatStoreError) {
        switch error.kind {
        case .notFound: self.init(.notFound, code: "not_found", error.description)
        case .invalid: self.init(.badRequest, code: "invalid", error.description)
        case .conflict:
            var headers = HTTPFields()
            var details: [String: String] = [:]
            if let etag = error.currentETag {
                headers[.eTag] = etag
                details["current_etag"] = etag
            }
            self.init(.conflict, code: "conflict", error.description, details: details, headers: headers)
        }
    }
}
