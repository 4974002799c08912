import AsyncHTTPClient
import Foundation

/// Where the optional remote moderation provider is: any OpenAI `/v1/moderations`-compatible
/// endpoint. Without `GRIOT_MODERATION_URL` the service moderates locally only.
public struct RemoteModerationConfiguration: Sendable {
    /// The full URL of the endpoint, e.g. `https://api.openai.com/v1/moderations`.
    public var url: String
    public var apiKey: String?
    public var model: String?
    /// For the whole request, connect to last byte; past it the local classifier answers.
    public var timeout: Duration

    public static let defaultTimeout = Duration.seconds(3)

    public init(url: String, apiKey: String? = nil, model: String? = nil, timeout: Duration = Self.defaultTimeout) {
        self.url = url
        self.apiKey = apiKey
        self.model = model
        self.timeout = timeout
    }

    /// From GRIOT_MODERATION_URL, GRIOT_MODERATION_API_KEY, GRIOT_MODERATION_MODEL and
    /// GRIOT_MODERATION_TIMEOUT_SECONDS (default 3; a value that is not a positive number of
    /// seconds up to 3600 also gives 3); nil when GRIOT_MODERATION_URL is unset or empty.
    public static func fromEnvironment(_ env: [String: String]) -> RemoteModerationConfiguration? {
        func value(_ name: String) -> String? {
            guard let raw = env[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            return raw
        }
        guard let url = value("GRIOT_MODERATION_URL") else { return nil }
        var timeout = defaultTimeout
        // At most an hour (a moderation call is a part of one turn): "1e300" seconds in whole
        // milliseconds overflows Int and stopped the process here.
        if let seconds = value("GRIOT_MODERATION_TIMEOUT_SECONDS").flatMap(Double.init), seconds > 0, seconds <= 3_600 {
            timeout = .milliseconds(Int((seconds * 1000).rounded()))
        }
        return RemoteModerationConfiguration(url: url, apiKey: value("GRIOT_MODERATION_API_KEY"),
                                             model: value("GRIOT_MODERATION_MODEL"), timeout: timeout)
    }
}

/// Moderation by a remote OpenAI-compatible `/v1/moderations` endpoint beside the local
/// reading, the stricter of the two winning: each category scores the higher of the two, and a
/// category the endpoint flags (its `categories` booleans) blocks whatever its score. When the
/// call fails (an error status, a timeout, a reply that is not the endpoint's JSON) the local
/// reading answers alone, and `source` says why; the moderation verdict stored with the turn
/// carries that source.
///
/// ```swift
/// let moderator: any Moderator = RemoteModerationConfiguration.fromEnvironment(env)
///     .map { RemoteModerator(configuration: $0, local: LocalModerator(semantics: semantics)) } ?? LocalModerator()
/// ```
public struct RemoteModerator: Moderator {
    public let configuration: RemoteModerationConfiguration
    private let client: HTTPClient
    private let local: any Moderator

    public init(configuration: RemoteModerationConfiguration, client: HTTPClient = .shared, local: any Moderator = LocalModerator()) {
        self.configuration = configuration
        self.client = client
        self.local = local
    }

    public func moderate(_ text: String) async -> ModerationResult {
        // The endpoint is asked while the local reading runs.
        async let remote = remoteResult(for: text)
        var result = await local.moderate(text)
        do {
            return Self.stricter(try await remote, result)
        } catch {
            let failure = (error as? RemoteModerationFailure) ?? .transport(String(describing: error))
            result.source = "local (remote failed: \(failure))"
            return result
        }
    }

    /// Each category at the higher of the two scores, the endpoint's flags kept, both reasons.
    static func stricter(_ remote: ModerationResult, _ local: ModerationResult) -> ModerationResult {
        var result = remote
        result.harassment = max(remote.harassment, local.harassment)
        result.hate = max(remote.hate, local.hate)
        result.sexual = max(remote.sexual, local.sexual)
        result.violence = max(remote.violence, local.violence)
        result.selfHarm = max(remote.selfHarm, local.selfHarm)
        result.source = "\(remote.source) and \(local.source), the stricter"
        result.reasons = remote.reasons + local.reasons
        return result
    }

    private func remoteResult(for text: String) async throws -> ModerationResult {
        var request = HTTPClientRequest(url: configuration.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        if let apiKey = configuration.apiKey { request.headers.add(name: "authorization", value: "Bearer \(apiKey)") }
        request.body = .bytes(Array(try JSONEncoder().encode(ModerationsRequest(input: text, model: configuration.model))))

        let body = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask { [client, request, timeout = configuration.timeout] in
                let response: HTTPClientResponse
                do {
                    response = try await client.execute(request, timeout: .nanoseconds(Self.nanoseconds(timeout)))
                } catch let error as HTTPClientError where error == .deadlineExceeded {
                    throw RemoteModerationFailure.timeout(timeout)
                }
                var bytes: [UInt8] = []
                for try await chunk in response.body {
                    bytes.append(contentsOf: chunk.readableBytesView)
                    if bytes.count > Self.bodyLimit { throw RemoteModerationFailure.badJSON("reply larger than \(Self.bodyLimit) bytes") }
                }
                guard (200..<300).contains(Int(response.status.code)) else { throw RemoteModerationFailure.status(Int(response.status.code)) }
                return bytes
            }
            group.addTask { [timeout = configuration.timeout] in
                try await Task.sleep(for: timeout)
                throw RemoteModerationFailure.timeout(timeout)
            }
            defer { group.cancelAll() }
            return try await group.next()!!
        }
        return try Self.result(fromJSON: body, model: configuration.model)
    }

    private static let bodyLimit = 1 << 20

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Our category for each of the endpoint's; a category scores the highest of its subcategories.
    /// `illicit` (advice on wrongdoing without violence) has no category here: it is named in the
    /// reasons when flagged, and does not block.
    static let categoryMap: [String: ModerationCategory] = [
        "harassment": .harassment, "harassment/threatening": .harassment,
        "hate": .hate, "hate/threatening": .hate,
        "sexual": .sexual, "sexual/minors": .sexual,
        "violence": .violence, "violence/graphic": .violence, "illicit/violent": .violence,
        "self-harm": .selfHarm, "self-harm/intent": .selfHarm, "self-harm/instructions": .selfHarm,
    ]

    /// The request body, as OpenAI's API reference gives it: `{"input": "…", "model": "…"}`.
    struct ModerationsRequest: Encodable {
        var input: String
        var model: String?
    }

    /// The reply: `{"id", "model", "results": [{"flagged", "categories", "category_scores"}]}`,
    /// one result for the one input. `flagged` and `categories` are read when present.
    struct ModerationsReply: Decodable {
        struct Result: Decodable {
            var flagged: Bool?
            var categories: [String: Bool?]?
            var categoryScores: [String: Double]
            enum CodingKeys: String, CodingKey { case flagged, categories, categoryScores = "category_scores" }
        }
        var id: String?
        var model: String?
        var results: [Result]
    }

    /// Reads an OpenAI moderation reply: `results[0].category_scores`, each a number in [0, 1],
    /// and the categories it flagged.
    static func result(fromJSON bytes: [UInt8], model configuredModel: String?) throws -> ModerationResult {
        let reply: ModerationsReply
        do {
            reply = try JSONDecoder().decode(ModerationsReply.self, from: Data(bytes))
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw RemoteModerationFailure.badJSON("\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)")
        } catch let DecodingError.keyNotFound(key, _) {
            throw RemoteModerationFailure.badJSON("no \(key.stringValue)")
        } catch {
            throw RemoteModerationFailure.badJSON("reply is not a JSON object")
        }
        guard let first = reply.results.first else { throw RemoteModerationFailure.badJSON("no results[0].category_scores") }
        var result = ModerationResult()
        var mapped = 0
        for (name, value) in first.categoryScores {
            guard let category = categoryMap[name.replacingOccurrences(of: "_", with: "-")] else { continue }
            let score = min(1, max(0, value))
            mapped += 1
            switch category {
            case .harassment: result.harassment = max(result.harassment, score)
            case .hate: result.hate = max(result.hate, score)
            case .sexual: result.sexual = max(result.sexual, score)
            case .violence: result.violence = max(result.violence, score)
            case .selfHarm: result.selfHarm = max(result.selfHarm, score)
            }
        }
        guard mapped > 0 else { throw RemoteModerationFailure.badJSON("no known category in category_scores") }
        let raised = (first.categories ?? [:]).filter { $0.value == true }.keys.sorted()
        let flagged = Set(raised.compactMap { categoryMap[$0.replacingOccurrences(of: "_", with: "-")] })
        result.flagged = ModerationCategory.allCases.filter(flagged.contains)
        let model = reply.model ?? configuredModel ?? "unknown model"
        result.source = "remote \(model)"
        result.reasons = ModerationCategory.allCases
            .filter { result.score($0) >= 0.5 && !flagged.contains($0) }
            .map { "remote \($0.rawValue) \((result.score($0) * 100).rounded() / 100)" }
            + raised.map { categoryMap[$0.replacingOccurrences(of: "_", with: "-")] == nil ? "remote flagged \($0) (no category here; not blocked)" : "remote flagged \($0)" }
        return result
    }
}

/// Why a remote moderation call was not used; its description is what `source` shows.
enum RemoteModerationFailure: Error, CustomStringConvertible {
    case status(Int)
    case timeout(Duration)
    case badJSON(String)
    case transport(String)

    var description: String {
        switch self {
        case .status(let code): "HTTP \(code)"
        case .timeout(let limit): "no reply within \(limit)"
        case .badJSON(let why): "bad JSON: \(why)"
        case .transport(let why): "transport error: \(why)"
        }
    }
}
