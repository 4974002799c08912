import Foundation

/// How to reach an OpenAI-compatible chat-completions service: OpenAI itself, Azure OpenAI, or
/// a local server that speaks the same protocol (llama.cpp, vLLM, Ollama, LM Studio).
///
/// Read from the environment (every variable is optional; unset or empty means the default):
///
/// | variable | meaning | default |
/// |---|---|---|
/// | `OPENAI_API_STYLE` | `openai` (`{base}/chat/completions`, `Authorization: Bearer`) or `azure` (`{base}/openai/deployments/{deployment}/chat/completions?api-version=…`, `api-key`) | `openai` |
/// | `OPENAI_BASE_URL` | the service's base URL, http or https | `https://api.openai.com/v1` |
/// | `OPENAI_API_KEY` | the API key; none is sent when unset (local servers) | none |
/// | `OPENAI_MODEL` | the model a request without its own model is answered by | `gpt-4o-mini` |
/// | `OPENAI_TEMPERATURE` | sampling temperature, 0 to 2 | the service's default |
/// | `OPENAI_MAX_TOKENS` | the most tokens in one reply, a whole number above 0 | the service's default |
/// | `OPENAI_STREAM_USAGE` | `true` or `false`: ask for token usage at the end of the stream (`stream_options`); some servers reject the field | `true` |
/// | `OPENAI_FOLD_SYSTEM` | `true` or `false`: send the system messages inside the first user message, between `<instructions>` lines, for a chat template that drops system messages (Gemma's under llama.cpp) | `false` |
/// | `OPENAI_CONNECT_TIMEOUT` | seconds to wait for the reply's headers | 10 |
/// | `OPENAI_READ_TIMEOUT` | seconds the stream may stay silent before it is given up | 60 |
/// | `AZURE_OPENAI_ENDPOINT` | with the azure style, the resource's endpoint (`https://NAME.openai.azure.com`); overrides `OPENAI_BASE_URL` | none |
/// | `AZURE_OPENAI_API_KEY` | with the azure style, the key; overrides `OPENAI_API_KEY` | none |
/// | `AZURE_OPENAI_DEPLOYMENT` | with the azure style, the deployment name | the model |
/// | `AZURE_OPENAI_API_VERSION` | with the azure style, the `api-version` query value | `2024-10-21` |
///
/// ```swift
/// let configuration = try OpenAICompatibleConfiguration(environment: ProcessInfo.processInfo.environment)
/// let provider = OpenAICompatibleProvider(configuration: configuration)
/// ```
public struct OpenAICompatibleConfiguration: Sendable, Hashable {
    public enum Style: String, Sendable, Hashable, CaseIterable {
        case openAI = "openai"
        case azure
    }

    public static let defaultBaseURL = "https://api.openai.com/v1"
    public static let defaultModel = "gpt-4o-mini"
    public static let defaultAzureAPIVersion = "2024-10-21"

    /// The provider's name for logs, metrics and its circuit breaker.
    public var name: String
    public var style: Style
    public var baseURL: String
    public var apiKey: String?
    public var model: String
    public var temperature: Double?
    public var maxTokens: Int?
    /// Sends `stream_options: {include_usage: true}` so the last chunk carries token counts.
    public var includeUsage: Bool
    /// Sends no system message: they are joined and put at the top of the first user message,
    /// delimited (`OpenAICompatibleProvider.foldingSystemMessages`). A chat template without a
    /// system role (Gemma's) drops them otherwise, and the model never sees its instructions.
    public var foldSystemMessages: Bool
    /// The Azure deployment; nil means the model name.
    public var azureDeployment: String?
    public var azureAPIVersion: String
    /// Seconds until the reply's status and headers must have arrived.
    public var connectTimeout: Double
    /// Seconds the body may stay silent (keep-alive comments count as activity) before the stream is abandoned.
    public var readTimeout: Double

    public init(name: String? = nil, style: Style = .openAI, baseURL: String = defaultBaseURL, apiKey: String? = nil,
                model: String = defaultModel, temperature: Double? = nil, maxTokens: Int? = nil, includeUsage: Bool = true,
                foldSystemMessages: Bool = false, azureDeployment: String? = nil, azureAPIVersion: String = defaultAzureAPIVersion,
                connectTimeout: Double = 10, readTimeout: Double = 60) {
        self.name = name ?? (style == .azure ? "azure-openai" : "openai")
        self.style = style
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.model = model
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.includeUsage = includeUsage
        self.foldSystemMessages = foldSystemMessages
        self.azureDeployment = azureDeployment
        self.azureAPIVersion = azureAPIVersion
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
    }

    /// Reads the variables in the table above.
    /// - Throws: `ProviderError.notConfigured` naming the variable that has an unusable value and what it should be.
    public init(environment: [String: String]) throws {
        func value(_ name: String) -> String? {
            guard let raw = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
            return raw
        }
        func invalid(_ name: String, _ raw: String, _ expected: String) -> ProviderError {
            .notConfigured("\(name) is \"\(raw)\"; set it to \(expected), or unset it for the default.")
        }
        func seconds(_ name: String, default fallback: Double) throws -> Double {
            guard let raw = value(name) else { return fallback }
            // At most a day: the deadline is counted in Int64 nanoseconds, which "1e300" would overflow.
            guard let number = Double(raw), number.isFinite, number > 0, number <= 86_400 else {
                throw invalid(name, raw, "a number of seconds above 0 and at most 86400 (a day)")
            }
            return number
        }

        let style: Style
        if let raw = value("OPENAI_API_STYLE") {
            guard let parsed = Style(rawValue: raw.lowercased()) else { throw invalid("OPENAI_API_STYLE", raw, "openai or azure") }
            style = parsed
        } else {
            style = .openAI
        }

        var temperature: Double?
        if let raw = value("OPENAI_TEMPERATURE") {
            guard let number = Double(raw), number >= 0, number <= 2 else {
                throw invalid("OPENAI_TEMPERATURE", raw, "a number from 0 to 2")
            }
            temperature = number
        }
        var maxTokens: Int?
        if let raw = value("OPENAI_MAX_TOKENS") {
            guard let number = Int(raw), number > 0 else { throw invalid("OPENAI_MAX_TOKENS", raw, "a whole number above 0") }
            maxTokens = number
        }
        func flag(_ name: String, default fallback: Bool) throws -> Bool {
            guard let raw = value(name) else { return fallback }
            switch raw.lowercased() {
            case "true", "1", "yes", "on": return true
            case "false", "0", "no", "off": return false
            default: throw invalid(name, raw, "true or false")
            }
        }
        let includeUsage = try flag("OPENAI_STREAM_USAGE", default: true)
        let foldSystemMessages = try flag("OPENAI_FOLD_SYSTEM", default: false)

        let baseURLVariable: String
        let baseURL: String
        if style == .azure {
            if let endpoint = value("AZURE_OPENAI_ENDPOINT") {
                (baseURLVariable, baseURL) = ("AZURE_OPENAI_ENDPOINT", endpoint)
            } else if let base = value("OPENAI_BASE_URL") {
                (baseURLVariable, baseURL) = ("OPENAI_BASE_URL", base)
            } else {
                throw ProviderError.notConfigured(
                    "OPENAI_API_STYLE is azure but AZURE_OPENAI_ENDPOINT is not set; set it to your resource's endpoint, like https://NAME.openai.azure.com.")
            }
        } else {
            (baseURLVariable, baseURL) = ("OPENAI_BASE_URL", value("OPENAI_BASE_URL") ?? Self.defaultBaseURL)
        }
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.query == nil else {
            throw invalid(baseURLVariable, baseURL, "an http or https URL without a query, like \(style == .azure ? "https://NAME.openai.azure.com" : Self.defaultBaseURL)")
        }

        let apiKey = style == .azure ? (value("AZURE_OPENAI_API_KEY") ?? value("OPENAI_API_KEY")) : value("OPENAI_API_KEY")
        self.init(
            style: style, baseURL: baseURL, apiKey: apiKey,
            model: value("OPENAI_MODEL") ?? Self.defaultModel,
            temperature: temperature, maxTokens: maxTokens, includeUsage: includeUsage, foldSystemMessages: foldSystemMessages,
            azureDeployment: value("AZURE_OPENAI_DEPLOYMENT"),
            azureAPIVersion: value("AZURE_OPENAI_API_VERSION") ?? Self.defaultAzureAPIVersion,
            connectTimeout: try seconds("OPENAI_CONNECT_TIMEOUT", default: 10),
            readTimeout: try seconds("OPENAI_READ_TIMEOUT", default: 60))
    }

    /// The chat-completions endpoint for this style, with the deployment and API version for Azure.
    public func chatCompletionsURL(model: String) -> String {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        switch style {
        case .openAI:
            return base + "/chat/completions"
        case .azure:
            let deployment = azureDeployment ?? model
            let pathSafe = deployment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? deployment
            let version = azureAPIVersion.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+"))) ?? azureAPIVersion
            return base + "/openai/deployments/\(pathSafe)/chat/completions?api-version=\(version)"
        }
    }
}
