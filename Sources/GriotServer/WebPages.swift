import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The pages a person opens in a browser: `GET /chat` (Ask the Griot and the coaching threads),
/// `GET /console` (the operators' console: dashboard, turns, replay, prompts, review queue,
/// audit) and their assets under `/assets/`, hand-written HTML, CSS and JavaScript modules shipped as
/// resources of this target (`Resources/web`). Read once, when the service starts, into a table
/// keyed by request path: a request is answered from the table or not at all, so no path a
/// client sends ever reaches the file system (no traversal, nothing but what was bundled).
///
/// A middleware rather than routes, as Hummingbird's `FileMiddleware` is: added after every
/// route, it sees only the requests no route matched, and the pages stay out of the API's
/// route table (`AccessPolicy`, `openapi.yaml`), which lists the JSON routes their data comes
/// from. The pages are public; every call they make carries the visitor's bearer token.
/// `SecurityHeadersMiddleware` gives their responses the page policy (`pagePolicy`).
///
/// ```swift
/// let router = Router(context: GriotRequestContext.self)
/// … every route …
/// WebPages.bundled.add(to: router)   // GET /chat, GET /console, GET /assets/chat.js, …
/// ```
struct WebPages: Sendable {
    /// One file as it is served.
    struct Asset: Sendable {
        let body: ByteBuffer
        let contentType: String
        /// A strong validator: the SHA-256 of the body, so a browser revalidates with
        /// `If-None-Match` and gets 304 while the service runs the same build.
        let etag: String

        init(bytes: Data, contentType: String) {
            body = ByteBuffer(data: bytes)
            self.contentType = contentType
            etag = "\"" + SHA256.hash(data: bytes).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
        }
    }

    /// The page paths and the files they serve.
    static let pages = ["/chat": "chat.html", "/console": "console.html"]
    /// Where the assets live, in the browser's address space and in the bundle's `web` folder.
    static let assetPrefix = "/assets/"

    /// The content type of each kind of file the pages may ship; any other file is not served.
    static let contentTypes = [
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
        "ico": "image/x-icon",
    ]

    /// Request path → file.
    let assets: [String: Asset]

    /// Whether a path is a page or an asset: such responses get the page policy, never the API's.
    static func isPagePath(_ path: String) -> Bool {
        pages[path] != nil || path.hasPrefix(assetPrefix)
    }

    /// The pages bundled with the service (empty when the bundle has no `web` folder).
    static let bundled: WebPages = {
        guard let folder = Bundle.module.resourceURL?.appendingPathComponent("web", isDirectory: true) else { return WebPages(assets: [:]) }
        return WebPages(folder: folder)
    }()

    init(assets: [String: Asset]) {
        self.assets = assets
    }

    /// Reads `folder`: its pages (`chat.html`, `console.html`) and every file under `folder/assets` of a known kind.
    init(folder: URL) {
        var assets: [String: Asset] = [:]
        func load(_ file: URL) -> Asset? {
            guard let type = Self.contentTypes[file.pathExtension.lowercased()], let bytes = try? Data(contentsOf: file) else { return nil }
            return Asset(bytes: bytes, contentType: type)
        }
        for (path, name) in Self.pages {
            assets[path] = load(folder.appendingPathComponent(name))
        }
        let assetFolder = folder.appendingPathComponent("assets", isDirectory: true)
        if let names = try? FileManager.default.contentsOfDirectory(atPath: assetFolder.path) {
            // One level, names of plain characters only: the address is the name.
            for name in names where name.range(of: #"^[A-Za-z0-9][A-Za-z0-9._-]*$"#, options: .regularExpression) != nil {
                assets[Self.assetPrefix + name] = load(assetFolder.appendingPathComponent(name))
            }
        }
        self.assets = assets
    }

    func add(to router: Router<GriotRequestContext>) {
        router.add(middleware: Middleware(pages: self))
    }

    /// The response for a GET or HEAD of `path`, or nil when it is not one of the pages' paths.
    func response(path: String, method: HTTPRequest.Method, ifNoneMatch: String?) throws -> Response? {
        guard method == .get || method == .head else { return nil }
        guard let asset = assets[path] else {
            guard path.hasPrefix(Self.assetPrefix) else { return nil }
            throw APIError.notFound("asset_not_found", "There is no asset \(path); the pages are /chat and /console.")
        }
        var headers: HTTPFields = [
            .contentType: asset.contentType,
            .eTag: asset.etag,
            // Kept, but checked with the ETag on every use: a new build's assets are seen at once.
            .cacheControl: "no-cache",
        ]
        if let ifNoneMatch, ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag || $0 == "*" }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(asset.body.readableBytes)
        return Response(status: .ok, headers: headers, body: method == .head ? .init() : .init(byteBuffer: asset.body))
    }

    /// Answers the pages' paths; every other request goes on (to the router's 404).
    struct Middleware: RouterMiddleware {
        typealias Context = GriotRequestContext
        let pages: WebPages

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            if let response = try pages.response(path: request.uri.path, method: request.method, ifNoneMatch: request.headers[.ifNoneMatch]) {
                return response
            }
            return try await next(request, context)
        }
    }
}
