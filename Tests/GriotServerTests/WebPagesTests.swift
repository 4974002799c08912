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
        try Data("<!doctype html><title>console</title>".utf8).write(to: web.appendingPathComponent("console.html"))
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

    /// Issue 37, item 1: the operators' console is a page like the chat page, under the same policy.
    @Test func theConsoleIsServedWithThePagePolicy() async throws {
        let app = Application(router: router(WebPages(folder: try folder())))
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/console", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy] == SecurityHeadersMiddleware.pagePolicy)
            #expect(String(buffer: page.body) == "<!doctype html><title>console</title>")
            for path in ["/console.html", "/console/", "/console/turns"] {
                let other = try await client.execute(uri: path, method: .get)
                #expect(other.status == .notFound, "\(path): \(other.status)")
            }
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

    /// The bundle holds the console and every module it imports, each served with the page policy.
    @Test func theConsoleAndItsAssetsAreBundledAndServed() async throws {
        let pages = WebPages.bundled
        let console = String(buffer: try #require(pages.assets["/console"]).body)
        #expect(console.contains(#"<script type="module" src="/assets/console.js"></script>"#))
        // Every module the console's scripts import, followed from console.js, is bundled.
        var pending = ["/assets/console.js"]
        var seen: Set<String> = []
        while let path = pending.popLast() {
            guard seen.insert(path).inserted else { continue }
            let script = String(buffer: try #require(pages.assets[path], "\(path) is imported but not bundled").body)
            let imports = script.matches(of: #/from "(/assets/[A-Za-z0-9._-]+\.js)"/#).map { String($0.output.1) }
            pending += imports
        }
        for path in ["/assets/api.js", "/assets/dom.js", "/assets/svgchart.js", "/assets/worddiff.js", "/assets/console-dashboard.js",
                     "/assets/console-turns.js", "/assets/console-replay.js", "/assets/console-prompts.js", "/assets/console-reviews.js",
                     "/assets/console-audit.js", "/assets/console-common.js"] {
            #expect(seen.contains(path), "console.js does not reach \(path): \(seen.sorted())")
        }
        let app = Application(router: router(pages))
        let served = ["/console", "/assets/console.css"] + seen.sorted()
        try await app.test(.router) { client in
            for path in served {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .ok, "\(path): \(response.status)")
                #expect(response.headers[.contentSecurityPolicy] == SecurityHeadersMiddleware.pagePolicy, "\(path)")
            }
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
        for path in WebPages.pages.keys {
            let page = String(buffer: try #require(WebPages.bundled.assets[path]).body)
            #expect(page.range(of: #"<script(?![^>]*\bsrc=)[^>]*>"#, options: .regularExpression) == nil, "an inline script in \(path)")
            #expect(!page.contains(" style=") && !page.contains("<style"), "an inline style in \(path)")
            #expect(page.range(of: #"<[^>]*\son[a-z]+\s*="#, options: .regularExpression) == nil, "an inline event handler in \(path)")
        }
    }
}
