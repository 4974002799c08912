import HTTPTypes
import Hummingbird

/// The headers that tell a browser how to treat every response, set in one place: no sniffing
/// a JSON reply into HTML, no referrer sent on, never framed, a content security policy that
/// lets a response load and run nothing (JSON, event streams, YAML and PDF need nothing), and
/// `Cache-Control: no-store` on every /api response, which carries personal data, unless its
/// handler chose its own. Outermost, so error responses get them too.
///
/// The pages (`WebPages`: /chat and /assets/…) get `pagePolicy` instead: scripts, styles and
/// connections from the service itself only, no inline script or style, no plugin, no base
/// URL, no framing. A reply's text can then run nothing even if a page ever let it in as HTML.
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

    /// The policy of the pages and their assets (issue 37, item 4).
    static let pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if WebPages.isPagePath(request.uri.path), response.headers[.contentSecurityPolicy] == nil {
            response.headers[.contentSecurityPolicy] = Self.pagePolicy
        }
        for field in Self.fields where response.headers[field.name] == nil {
            response.headers[field.name] = field.value
        }
        if request.uri.path.hasPrefix("/api/"), response.headers[.cacheControl] == nil {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }
}
