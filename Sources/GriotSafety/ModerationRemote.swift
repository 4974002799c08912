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

/// Moderation by a remote OpenAI-compatible `/v1/moderations` endpoint, its categories mapped to
/// ours; when the call fails (an error status, a timeout, a reply that is not the expected JSON)
/// the local classifier answers instead, and `source` says why.
///
/// ```swift
/// let moderator: any Moderator = RemoteModerationConfiguration.fromEnvironment(env)
///     .map { RemoteModerator(configuration: $0) } ?? LocalModerator()
/// ```
public struct RemoteModerator: Moderator {
    public let configuration: RemoteModerationConfiguration
    private let client: HTTPClient
    private let fallback: LocalModerator

    public init(configuration: RemoteModerationConfiguration, client: HTTPClient = .shared, fallback: LocalModerator = LocalModerator()) {
        self.configuration = configuration
        self.client = client
        self.fallback = fallback
    }

    public func moderate(_ text: String) async -> ModerationResult {
        do {
            return try await remoteResult(for: text)
        } catch {
            var result = fallback.classify(text)
            let failure = (error as? RemoteModerationFailure) ?? .transport(String(describing: error))
            result.source = "local (remote failed: \(failure))"
            return result
        }
    }

    private func remoteResult(for text: String) async throws -> ModerationResult {
        var request = HTTPClientRequest(url: configuration.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        if let apiKey = configuration.apiKey { request.headers.add(name: "authorization", value: "Bearer \(apiKey)") }
        var payload: [String: Any] = ["input": text]
        if let model = configuration.model { payload["model"] = model }
        request.body = .bytes(Array(try JSONSerialization.data(withJSONObject: payload)))

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
    static let categoryMap: [String: ModerationCategory] = [
        "harassment": .harassment, "harassment/threatening": .harassment,
        "hate": .hate, "hate/threatening": .hate,
        "sexual": .sexual, "sexual/minors": .sexual,
        "violence": .violence, "violence/graphic": .violence,
        "self-harm": .selfHarm, "self-harm/intent": .selfHarm, "self-harm/instructions": .selfHarm,
    ]

    /// Reads an OpenAI moderation reply: `results[0].category_scores`, each a number in [0, 1].
    static func result(fromJSON bytes: [UInt8], model configuredModel: String?) throws -> ModerationResult {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw RemoteModerationFailure.badJSON("reply is not a JSON object")
        }
        guard let results = object["results"] as? [[String: Any]], let first = results.first,
              let scores = first["category_scores"] as? [String: Any] else {
            throw RemoteModerationFailure.badJSON("no results[0].category_scores")
        }
        var result = ModerationResult()
        var mapped = 0
        for (name, value) in scores {
            let key = name.replacingOccurrences(of: "_", with: "-")
            guard let category = categoryMap[key] else { continue }
            guard let number = value as? NSNumber, !(value is Bool) else { throw RemoteModerationFailure.badJSON("score for \(name) is not a number") }
            let score = min(1, max(0, number.doubleValue))
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
        let model = (object["model"] as? String) ?? configuredModel ?? "unknown model"
        result.source = "remote \(model)"
        result.reasons = ModerationCategory.allCases
            .filter { result.score($0) >= 0.5 }
            .map { "remote \($0.rawValue) \((result.score($0) * 100).rounded() / 100)" }
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
