import Foundation
import Hummingbird

extension Request {
    /// The body decoded as `Body`, with the errors a client can act on: a body over the context's
    /// limit is 413 `body_too_large` naming the limit (not "must be JSON"), and anything else that
    /// does not decode is 400 `invalid_body` showing the expected shape.
    ///
    /// ```swift
    /// let body = try await request.decodeJSON(as: ChatBody.self, context: context, shape: #"{"message": "…"}"#)
    /// ```
    func decodeJSON<Body: Decodable>(as type: Body.Type, context: GriotRequestContext, shape: String) async throws -> Body {
        do {
            return try await decode(as: type, context: context)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError.bodyTooLarge(limit: context.maxUploadSize)
        } catch {
            throw APIError.badRequest("invalid_body", "The body must be JSON: \(shape).")
        }
    }
}

extension APIError {
    /// 413 with the limit in words, for any route whose body is over `limit` bytes.
    static func bodyTooLarge(limit: Int) -> APIError {
        APIError(.contentTooLarge, code: "body_too_large",
                 "The request body is over the limit of \(limit / (1024 * 1024)) MB; send a shorter message (or split a long transcript into several stories).",
                 details: ["limit_bytes": String(limit)])
    }
}
