import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 25, item 7: every response tells a browser to sniff nothing, send no referrer, frame
/// nothing and run nothing, and no /api response (they carry personal data) may be cached.
@Suite struct SecurityHeadersTests {
    func expectSecurityHeaders(_ response: LiveResponse, _ what: String, cache: String?) {
        #expect(response.headers["x-content-type-options"] == "nosniff", "\(what)")
        #expect(response.headers["referrer-policy"] == "no-referrer", "\(what)")
        #expect(response.headers["x-frame-options"] == "DENY", "\(what)")
        #expect(response.headers["content-security-policy"] == "default-src 'none'; frame-ancestors 'none'", "\(what)")
        #expect(response.headers["cache-control"] == cache, "\(what): Cache-Control \(response.headers["cache-control"] ?? "none")")
    }

    @Test func everyResponseCarriesTheHeadersAndNoAPIResponseIsCached() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya-headers")
        try await service.test(.live) { client in
            let json = try await live(client, .GET, "/api/griot/sessions", headers: maya)
            #expect(json.status == 200)
            expectSecurityHeaders(json, "a JSON route", cache: "no-store")

            let stream = try await live(client, .POST, "/api/griot/chat/stream", headers: maya, body: body(["message": "Who kept bees?"]))
            #expect(stream.status == 200 && stream.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            expectSecurityHeaders(stream, "an event stream", cache: "no-store")

            let unauthenticated = try await live(client, .GET, "/api/griot/sessions")
            #expect(unauthenticated.status == 401)
            expectSecurityHeaders(unauthenticated, "a 401", cache: "no-store")

            let missing = try await live(client, .GET, "/api/griot/sessions/no-such-session", headers: maya)
            #expect(missing.status == 404)
            expectSecurityHeaders(missing, "a 404 from a rule", cache: "no-store")

            let noRoute = try await live(client, .GET, "/api/no-such-route", headers: maya)
            #expect(noRoute.status == 404)
            expectSecurityHeaders(noRoute, "a 404 from the router", cache: "no-store")

            // Outside /api: the same headers; caching is left to the route (nothing personal there).
            let document = try await live(client, .GET, "/openapi.yaml")
            #expect(document.status == 200)
            expectSecurityHeaders(document, "/openapi.yaml", cache: nil)
        }
    }
}
