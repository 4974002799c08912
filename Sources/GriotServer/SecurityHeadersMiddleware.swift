import HTTPTypes
import Hummingbird

/// The headers that tell a browser how to treat every response, set in one place: no sniffing
/// a JSON reply into HTML, no referrer sent on, never framed, a content security policy that
/// lets a response load and run nothing (the service serves no HTML page, only JSON, event
/// streams, YAML and PDF), and `Cache-Control: no-store` on every /api response, which carries
/// personal data, unless its handler chose its own. Outermost, so error responses get them too.
///
/// ```swift
/// router.add(middleware: SecurityHeadersMiddleware())
/// // GET /api/griot/sessions → X-Content-Type-Options: nosniff, Cache-Control: no-store, …
/// ```
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = GriotRequestContext

    /// On every response, including the parser's own refusals (`MalformedRequestResponder`).
    static let fields: HTTPFields = [
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        HTTPField.Name("X-Frame-Options")!: "DENY",
        HTTPField.Name("Content-Security-Policy")!: "default-src 'none'; frame-ancestors 'none'",
    ]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        for field in Self.fields where response.headers[field.name] == nil {
            response.headers[field.name] = field.value
        }
        if request.uri.path.hasPrefix("/api/"), response.headers[.cacheControl] == nil {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }
}
