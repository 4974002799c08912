import GriotTracing
import Logging
import Tracing

extension Logger.MetadataProvider {
    /// The trace and span ids of the task's current span (`trace_id`, `span_id`, as a
    /// `traceparent` header carries them), and the request id that span is for: a log line of a
    /// request can be found from its trace, and a trace from the line. Read through the tracer's
    /// own propagation, so that it works with any tracer; with none (no `OTEL_EXPORTER_OTLP_ENDPOINT`)
    /// only the request id.
    ///
    /// ```swift
    /// LoggingSystem.bootstrap({ JSONLogHandler(label: $0) }, metadataProvider: .traceContext)
    /// ```
    public static let traceContext = Logger.MetadataProvider {
        guard let context = ServiceContext.current else { return [:] }
        var metadata: Logger.Metadata = [:]
        if let requestID = context.requestID { metadata["request_id"] = .string(requestID) }
        var carrier: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: DictionaryInjector())
        // version-traceid-spanid-flags
        if let parent = carrier["traceparent"] {
            let parts = parent.split(separator: "-")
            if parts.count == 4 {
                metadata["trace_id"] = .string(String(parts[1]))
                metadata["span_id"] = .string(String(parts[2]))
            }
        }
        return metadata
    }
}

private struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}
