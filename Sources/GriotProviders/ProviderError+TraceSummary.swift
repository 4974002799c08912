import GriotTracing

extension ProviderError: TraceSummarizable {
    /// The case and its numbers, without the upstream's words (which can hold a key, a host or
    /// the reply's text): "status 429", "connection", "circuit_open".
    public var traceSummary: String {
        switch self {
        case .status(let code, _, _): "status \(code)"
        case .connection: "connection"
        case .malformedStream: "malformed_stream"
        case .upstream(_, let type): "upstream \(type ?? "error")"
        case .circuitOpen: "circuit_open"
        case .notConfigured: "not_configured"
        }
    }
}
