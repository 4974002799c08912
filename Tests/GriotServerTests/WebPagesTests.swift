import Foundation
@testable import GriotServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 37, items 2 and 4: the pages are served from the bundle's table and nothing else, with
/// the page policy, while the JSON routes keep theirs; the bundled scripts never assign HTML.
@Suite struct WebPagesTests {
    /// A folder laid out as Resources/web, with a secret beside it and a file of a kind not served.
    func folder() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("web-pages-\(UUID().uuidString)")
        let web = root.appendingPathComponent("web")
        try FileManager.default.createDirectory(at: web.appendingPathComponent("assets"), withIntermediateDirectories: true)
        try Data("<!doctype html><title>chat</title>".utf8).write(to: web.appendingPathComponent("chat.html"))
        try Data("export const x = 1;".utf8).write(to: web.appendingPathComponent("assets/app.js"))
        try Data("body { color: black }".utf8).write(to: web.appendingPathComponent("assets/app.css"))
        try Data("notes".utf8).write(to: web.appendingPathComponent("assets/notes.txt"))
        try Data("secret".utf8).write(to: root.appendingPathComponent("secret.js"))
        return web
    }

    func router(_ pages: WebPages) -> Router<GriotRequestContext> {
        let router = Router(context: GriotRequestContext.self)
        router.add(middleware: SecurityHeadersMiddleware())
        router.get("api/thing") { _, _ in "{}" }
        pages.add(to: router)
        return router
    }

    @Test func pagesAndAssetsAreServedWithThePagePolicyAndValidators() async throws {
        let app = Application(router: router(WebPages(folder: try folder())))
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/chat", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy] == SecurityHeadersMiddleware.pagePolicy)
            #expect(page.headers[.cacheControl] == "no-cache")
            #expect(String(buffer: page.body) == "<!doctype html><title>chat</title>")
            let etag = try #require(page.headers[.eTag])

            let again = try await client.execute(uri: "/chat", method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)

            let script = try await client.execute(uri: "/assets/app.js", method: .get)
            #expect(script.status == .ok && script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[.contentSecurityPolicy] == SecurityHeadersMiddleware.pagePolicy)
            let style = try await client.execute(uri: "/assets/app.css", method: .get)
            #expect(style.status == .ok && style.headers[.contentType] == "text/css; charset=utf-8")

            let head = try await client.execute(uri: "/assets/app.js", method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)
        }
    }

    @Test func nothingOutsideTheTableIsServed() async throws {
        let app = Application(router: router(WebPages(folder: try folder())))
        try await app.test(.router) { client in
            for path in ["/assets/missing.js", "/assets/notes.txt", "/assets/../secret.js", "/assets/%2e%2e/secret.js", "/assets/", "/chat.html",
                         "/assets/app.js/"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .notFound, "\(path): \(response.status)")
                #expect(String(buffer: response.body) != "secret", "\(path) served the file beside the folder")
            }
            let post = try await client.execute(uri: "/chat", method: .post)
            #expect(post.status == .notFound)
            // The JSON routes keep the policy that lets a response run nothing.
            let json = try await client.execute(uri: "/api/thing", method: .get)
            #expect(json.headers[.contentSecurityPolicy] == "default-src 'none'; frame-ancestors 'none'")
            #expect(json.headers[.cacheControl] == "no-store")
        }
    }

    /// The bundle holds the chat page and its modules (Package.swift copies Resources/web).
    @Test func theChatPageIsBundled() {
        let paths = Set(WebPages.bundled.assets.keys)
        for path in ["/chat", "/assets/chat.js", "/assets/api.js", "/assets/markdown.js", "/assets/chat.css"] {
            #expect(paths.contains(path), "\(path) is not bundled: \(paths.sorted())")
        }
    }

    /// Item 4: no script of the pages assigns HTML, so no model text can become markup.
    @Test func noBundledScriptAssignsHTML() throws {
        let scripts = WebPages.bundled.assets.filter { $0.key.hasSuffix(".js") }
        #expect(!scripts.isEmpty)
        for (path, asset) in scripts {
            let text = String(buffer: asset.body)
            for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "createContextualFragment", "eval(", "new Function"] {
                #expect(!text.contains(sink), "\(path) uses \(sink)")
            }
        }
        let page = String(buffer: try #require(WebPages.bundled.assets["/chat"]).body)
        #expect(page.range(of: #"<script(?![^>]*\bsrc=)[^>]*>"#, options: .regularExpression) == nil, "an inline script in chat.html")
        #expect(!page.contains(" style=") && !page.contains("<style"), "an inline style in chat.html")
    }
}
