import AsyncHTTPClient
import Foundation
import GriotArchive
import GriotAuth
import GriotChat
import GriotEmbedding
import GriotPrompts
import GriotProviders
import GriotServer
import GriotStore
import GriotTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOHTTP1

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The demo corpus, embedded once for the whole run.
let demoArchiveLoad = Task {
    let archive = StoryArchive(storage: try! await TestDatabase.storage(), embedder: try! SentenceEmbedder())
    _ = try! await archive.ingest(StoryFiles.read([packageRoot.appendingPathComponent("corpus").path]).stories)
    return archive
}
/// Waits for `demoArchiveLoad` (built once, by the first test that asks).
var demoArchive: StoryArchive { get async { await demoArchiveLoad.value } }

/// A service over the demo corpus with its own chat database and the offline responder
/// (or `provider`), accepting development tokens.
struct TestService {
    let service: GriotService
    let verifier: TokenVerifier

    /// `prompts`: the prompts folder (the checkout's by default); a promotion reads the eval
    /// files in the `evals` folder beside it and writes its log into it.
    init(provider: any ChatProvider = ExtractiveResponder(), archive: StoryArchive? = nil, grace: Double = 10,
         limits: [RateLimit] = RateLimit.defaults, routeLimits: RouteLimits = .defaults, prompts: URL? = nil) async throws {
        let archive = if let archive { archive } else { await demoArchive }
        let prompts = try PromptRegistry.load(folder: prompts ?? packageRoot.appendingPathComponent("prompts"))
        let chats = try await TestDatabase.storage().chats
        let engine = ChatEngine(archive: archive, chats: chats, prompts: prompts, provider: provider, counters: .bytePair)
        verifier = try await TokenVerifier.make(AuthConfiguration(environment: ["GRIOT_AUTH_MODE": "development"]))
        service = try GriotService(engine: engine, verifier: verifier, turns: TurnRegistry(grace: grace), limits: limits, routeLimits: routeLimits)
    }

    /// A service over an engine made elsewhere (e.g. `ChatEngine.open` from a configuration).
    init(engine: ChatEngine, grace: Double = 10) async throws {
        verifier = try await TokenVerifier.make(AuthConfiguration(environment: ["GRIOT_AUTH_MODE": "development"]))
        service = try GriotService(engine: engine, verifier: verifier, turns: TurnRegistry(grace: grace))
    }

    var engine: ChatEngine { service.engine }

    /// The courses a test token names unless told otherwise: the suites' coaching threads are in
    /// course-7 (and c-1). Pass `courses: nil` for a token without `course_ids`, which names none.
    static let enrolled = ["course-7", "c-1"]

    func token(_ userID: String, role: CallerRole = .client, families: [String] = [], courses: [String]? = enrolled) async throws -> String {
        try await verifier.mintDevelopmentToken(userID: userID, role: role, familyGroupIDs: families, courseIDs: courses, expiresIn: 3600)
    }

    func headers(_ userID: String, role: CallerRole = .client, families: [String] = [], courses: [String]? = enrolled) async throws -> HTTPFields {
        [.authorization: "Bearer \(try await token(userID, role: role, families: families, courses: courses))", .contentType: "application/json"]
    }

    func test<Value>(_ setup: TestingSetup = .router, _ body: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        try await Application(router: service.router(), server: GriotService.server).test(setup, body)
    }
}

func json(_ buffer: ByteBuffer) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(buffer: buffer))) as? [String: Any] ?? [:]
}

func body(_ object: Any) -> ByteBuffer {
    ByteBuffer(data: try! JSONSerialization.data(withJSONObject: object))
}

/// The real OpenAI-compatible provider pointed at a stub server.
enum RemoteProviderForTests {
    static func make(_ baseURL: String) throws -> any ChatProvider {
        OpenAICompatibleProvider(configuration: try OpenAICompatibleConfiguration(environment: ["OPENAI_BASE_URL": baseURL, "OPENAI_MODEL": "stub-model"]))
    }
}

/// A request over a real connection to a live test server (AsyncHTTPClient, its own
/// connections), for streams: the server closes a stream's connection when the stream ends.
struct LiveResponse {
    var status: Int
    var headers: [String: String]
    var text: String
    /// The body's bytes as they came (a PDF is not text).
    var data: Data
}

func live(_ client: any TestClientProtocol, _ method: NIOHTTP1.HTTPMethod, _ path: String, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> LiveResponse {
    var request = HTTPClientRequest(url: "http://127.0.0.1:\(client.port!)\(path)")
    request.method = method
    for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
    if let body { request.body = .bytes(body) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
    let collected = try await response.body.collect(upTo: 16 * 1024 * 1024)
    var fields: [String: String] = [:]
    for header in response.headers { fields[header.name.lowercased()] = header.value }
    return LiveResponse(status: Int(response.status.code), headers: fields, text: String(buffer: collected),
                        data: Data(collected.readableBytesView))
}

func object(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
}
