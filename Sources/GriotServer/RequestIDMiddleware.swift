import Foundation
import HTTPTypes
import Hummingbird
import GriotTracing
import Logging
import Tracing

/// Gives every request an id (the client's `X-Request-ID`, else a new one), puts it and any
/// `X-Correlation-ID` in every log line, echoes both on the response, and turns any error into
/// the JSON error body `{"error": {"code", "message", "details"}}`.
///
/// Each request is also a server span, "METHOD /route" (the route's pattern, never the path a
/// client sent), that continues a caller's `traceparent`; the span's context carries the request
/// id to every span under it and the trace id into every log line (`JSONLogHandler`). A stream's
/// span ends when its body does. An error no route handled is recorded on it by kind, with the
/// request's last actions (`Traced.fail`), and any 5xx sets its status to error.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = GriotRequestContext

    static let requestID = HTTPField.Name("X-Request-ID")!
    static let correlationID = HTTPField.Name("X-Correlation-ID")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let started = ContinuousClock.now
        let id = request.headers[Self.requestID].flatMap { $0.isEmpty || $0.count > 200 ? nil : $0 } ?? UUID().uuidString.lowercased()
        let correlation = request.headers[Self.correlationID].flatMap { $0.isEmpty || $0.count > 200 ? nil : $0 }
        context.requestID = id
        context.logger[metadataKey: "request_id"] = .string(id)
        if let correlation { context.logger[metadataKey: "correlation_id"] = .string(correlation) }
        var parent = ServiceContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        parent.requestID = id
        let span = Traced.start(request.method.rawValue, kind: .server, context: parent)
        var traced = span.context
        // The trail costs a lock a stage; it is kept only for a span that is recorded.
        let trail = span.isRecording ? TraceTrail() : nil
        traced.traceTrail = trail
        if span.isRecording { span.attributes[TraceAttribute.httpMethod] = request.method.rawValue }
        var response = try await ServiceContext.$current.withValue(traced) { [context] in
            var response: Response
            do {
                response = try await next(request, context)
            } catch let error as APIError {
                response = try error.response(from: request, context: context)
            } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
                // NIO's too-many-bytes error from collecting a body over the limit, in our shape with the limit in words.
                response = try APIError.bodyTooLarge(limit: context.maxUploadSize).response(from: request, context: context)
            } catch let error as HTTPError {
                // Hummingbird's own errors (no such route, body too large) in our shape.
                let code = error.status == .notFound ? "not_found" : (error.status == .contentTooLarge ? "body_too_large" : "http_\(error.status.code)")
                let message = error.status == .notFound ? "There is no route \(request.method) \(request.uri.path); see /openapi.yaml."
                    : (error.body ?? error.status.reasonPhrase)
                response = try APIError(error.status, code: code, message, headers: error.headers).response(from: request, context: context)
            } catch is CancellationError {
                Traced.fail(span, CancellationError())
                span.end()
                throw CancellationError()
            } catch {
                context.logger.error("unhandled error: \(error)")
                Traced.fail(span, error, trail: trail)
                response = try APIError(.internalServerError, code: "internal_error", "Something went wrong on our side; the request id is \(id).")
                    .response(from: request, context: context)
            }
            response.headers[Self.requestID] = id
            if let correlation { response.headers[Self.correlationID] = correlation }
            // One line a request (for a stream: when its headers go out), with the request id.
            let elapsed = ContinuousClock.now - started
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            context.logger.info("request", metadata: [
                "method": .string(request.method.rawValue), "path": .string(request.uri.path),
                "status": .stringConvertible(response.status.code), "duration_ms": .string(String(format: "%.1f", milliseconds)),
            ])
            return response
        }
        if span.isRecording {
            let route = context.endpointPath
            span.operationName = route.map { "\(request.method.rawValue) \($0)" } ?? request.method.rawValue
            span.updateAttributes { attributes in
                attributes[TraceAttribute.httpRoute] = route
                attributes[TraceAttribute.httpStatusCode] = Int(response.status.code)
            }
            if response.status.code >= 500 { Traced.fail(span, code: "http_\(response.status.code)", trail: trail) }
        }
        // The span ends with the body: a stream's when its last event is written or the client leaves.
        guard span.isRecording else { return response }
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { span.end() }
            try await body.write(writer)
        }
        return response
    }
}

/// Reads a caller's trace context (`traceparent`, `tracestate`) from the request's headers.
private struct HTTPFieldsExtractor: Extractor {
    func extract(key name: String, from headers: HTTPFields) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }
}
