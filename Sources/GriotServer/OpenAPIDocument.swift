import Foundation
import Hummingbird

/// The OpenAPI 3.1 description of the service, bundled with it and served at `/openapi.yaml`.
/// A test compares its paths and methods with the router's routes, so the two cannot drift.
public enum OpenAPIDocument {
    public static let text: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
              let text = try? String(contentsOf: url, encoding: .utf8) else {
            return "openapi: 3.1.0\ninfo: {title: Griot, version: \"1\"}\npaths: {}\n"
        }
        return text
    }()

    static func response() -> Response {
        Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
