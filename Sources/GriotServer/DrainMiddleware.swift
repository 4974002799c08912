import HTTPTypes
import Hummingbird

/// While the node shuts down, a request that would start a new reply gets 503 with
/// `Retry-After`, so the client retries on another node; resuming a stream
/// (`Last-Event-ID`) and every other route still work.
struct DrainMiddleware: RouterMiddleware {
    typealias Context = GriotRequestContext
    let state: DrainState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if state.isDraining, request.method == .post, request.headers[HTTPField.Name("Last-Event-ID")!] == nil, Self.startsTurn(request.uri.path) {
            throw APIError(.serviceUnavailable, code: "shutting_down", "This node is restarting; send the message again in a few seconds.",
                           headers: [.retryAfter: "5"])
        }
        return try await next(request, context)
    }

    static func startsTurn(_ path: String) -> Bool {
        path == "/api/griot/chat" || path == "/api/griot/chat/stream" || path == "/v1/chat/completions"
            || (path.hasPrefix("/api/coach/threads/") && path.hasSuffix("/messages"))
    }
}
