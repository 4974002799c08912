import Foundation
import GriotStore
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
