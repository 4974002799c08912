import Foundation
import Synchronization
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// Exports the service's spans over OTLP/HTTP (protobuf) while `body` runs, when
/// `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set; otherwise runs
/// `body` untouched, and every span is the no-op tracer's. swift-otel reads the rest of the
/// standard variables itself (`OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_HEADERS`,
/// `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_TRACES_SAMPLER`, `OTEL_BSP_SCHEDULE_DELAY`, …;
/// `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn it off). Metrics and logs stay
/// where they are (Prometheus at /metrics, JSON lines on stderr).
///
/// The tracer is bound to `body`'s task and every task under it, not bootstrapped for the
/// process: a test can export one service's spans and leave the rest of the run untraced. When
/// `body` returns or throws, the spans still queued are sent before this returns.
///
/// ```swift
/// try await TraceExport.running { try await service.run(host: host, port: port) }
/// ```
public enum TraceExport {
    public static func running<T: Sendable>(environment: [String: String] = ProcessInfo.processInfo.environment,
                                            _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard isEnabled(environment) else { return try await body() }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "griot"
        configuration.traces.enabled = true
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        // swift-otel's own troubles (a collector that does not answer) go to our log, as warnings.
        configuration.diagnosticLogger = .custom(Logger(label: "griot.otel"))
        configuration.diagnosticLogLevel = .warning
        let (tracer, exporter) = try OTel.makeTracingBackend(configuration: configuration)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let work = BodyService {
            let result = await Result { try await body() }
            outcome.withLock { $0 = result }
        }
        // The exporter is the group's first service, so it is shut down last, after `body`:
        // what `body` traced is flushed. Its own failure (a collector gone) never stops `body`.
        let group = ServiceGroup(configuration: .init(services: [
            .init(service: exporter, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore),
            .init(service: work, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup),
        ], logger: Logger(label: "griot.otel")))
        try await withTracer(tracer) { try await group.run() }
        guard let result = outcome.withLock({ $0 }) else { throw CancellationError() }
        return try result.get()
    }

    /// Whether the environment asks for traces: an OTLP endpoint is set, and neither the SDK nor
    /// the traces exporter is switched off.
    public static func isEnabled(_ environment: [String: String]) -> Bool {
        let endpoint = [environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], environment["OTEL_EXPORTER_OTLP_ENDPOINT"]]
            .contains { !($0 ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
        let disabled = environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" || environment["OTEL_TRACES_EXPORTER"]?.lowercased() == "none"
        return endpoint && !disabled
    }
}

/// `body` as a service of the exporter's group.
private struct BodyService: Service {
    let body: @Sendable () async -> Void
    func run() async { await body() }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
