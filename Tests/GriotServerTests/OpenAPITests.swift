import Foundation
import GriotServer
import HummingbirdTesting
import Testing
import Yams

@Suite struct OpenAPITests {
    /// Every route the router serves is in the document, and every path and method in the
    /// document is a route (the router writes `:id` as `{id}` too).
    @Test func theDocumentDescribesExactlyTheRoutes() async throws {
        let service = try await TestService()
        let routes = Set(service.service.router().routes.map { "\($0.method) \($0.path)" })
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.text) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: Any])
        var documented = Set<String>()
        for (path, item) in paths {
            let routerPath = path
            for method in (item as? [String: Any] ?? [:]).keys where ["get", "post", "put", "delete", "patch"].contains(method) {
                documented.insert("\(method.uppercased()) \(routerPath)")
            }
        }
        #expect(routes.subtracting(documented).isEmpty, "routes missing from openapi.yaml: \(routes.subtracting(documented).sorted())")
        #expect(documented.subtracting(routes).isEmpty, "documented but not served: \(documented.subtracting(routes).sorted())")
    }

    @Test func theDocumentIsServed() async throws {
        let service = try await TestService()
        try await service.test { client in
            try await client.execute(uri: "/openapi.yaml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).hasPrefix("openapi: 3.1.0"))
            }
        }
    }
}
