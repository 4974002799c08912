import CoreMetrics
import Foundation
import GriotChat
import GriotProviders
import Prometheus

/// What the service counts, through swift-metrics into its own Prometheus registry (no global
/// bootstrap, so several services can live in one process, as in tests), rendered at `/metrics`.
///
/// ```swift
/// let metrics = ServiceMetrics()
/// metrics.request(method: "GET", route: "/healthz", status: 200, seconds: 0.001)
/// print(await metrics.render(breakers: []))
/// ```
public final class ServiceMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                                                   .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30)]
        factory.durationHistogramBuckets["griot_reply_autosave_lag_seconds"] = Self.autosaveBuckets
        self.factory = factory
    }

    /// One HTTP request, by its route pattern (not its path, so ids do not explode the label set).
    public func request(method: String, route: String, status: Int, seconds: Double) {
        let dimensions = [("method", method), ("route", route), ("status", String(status))]
        Counter(label: "griot_http_requests_total", dimensions: dimensions, factory: factory).increment()
        Timer(label: "griot_http_request_duration_seconds", dimensions: [("method", method), ("route", route)], factory: factory)
            .recordNanoseconds(Int64(seconds * 1e9))
    }

    /// A finished turn: its latency, time to first token, tokens in and out, and how it ended.
    public func turn(assistant: String, model: String, summary: TurnSummary, tokensIn: Int?, tokensOut: Int, failure: TurnFailure?) {
        let labels = [("assistant", assistant), ("model", model)]
        Counter(label: "griot_turns_total", dimensions: labels + [("status", summary.status.rawValue)], factory: factory).increment()
        Timer(label: "griot_turn_duration_seconds", dimensions: labels, factory: factory).recordNanoseconds(Int64(summary.elapsedSeconds * 1e9))
        if let first = summary.firstTokenSeconds {
            Timer(label: "griot_time_to_first_token_seconds", dimensions: labels, factory: factory).recordNanoseconds(Int64(first * 1e9))
        }
        if let tokensIn {
            Counter(label: "griot_tokens_in_total", dimensions: labels, factory: factory).increment(by: tokensIn)
        }
        Counter(label: "griot_tokens_out_total", dimensions: labels, factory: factory).increment(by: tokensOut)
        if let failure {
            Counter(label: "griot_turn_errors_total", dimensions: labels + [("code", failure.code)], factory: factory).increment()
        }
    }

    /// The lag of streaming replies' auto-save: from a delta being sent to the client to the
    /// text it holds being stored (and synced), one sample per delta. Its buckets are fine below
    /// 500 ms, the standard's limit, so a percentile read from them is close to the exact one.
    public func autosaveLag(_ lags: [Duration]) {
        let histogram = autosaveHistogram
        for lag in lags { histogram.recordNanoseconds(lag.components.seconds * 1_000_000_000 + lag.components.attoseconds / 1_000_000_000) }
    }

    /// Buckets of `griot_reply_autosave_lag_seconds`: 5 ms steps to 100 ms, 25 ms steps to 1 s, then coarser.
    static let autosaveBuckets: [Duration] = stride(from: 5, through: 100, by: 5).map { Duration.milliseconds($0) }
        + stride(from: 125, through: 1000, by: 25).map { Duration.milliseconds($0) } + [.seconds(2), .seconds(5), .seconds(10)]

    private var autosaveHistogram: CoreMetrics.Timer {
        Timer(label: "griot_reply_autosave_lag_seconds", factory: factory)
    }

    /// A safety stage's verdict on a turn, by stage and decision.
    public func safetyVerdict(stage: String, decision: String) {
        Counter(label: "griot_safety_verdicts_total", dimensions: [("stage", stage), ("decision", decision)], factory: factory).increment()
    }

    /// A message blocked by moderation or routed to the crisis reply, by its leading category.
    public func moderationFlag(category: String) {
        Counter(label: "griot_moderation_flags_total", dimensions: [("category", category)], factory: factory).increment()
    }

    /// The Prometheus text, with each provider's breaker state (0 closed, 1 half-open, 2 open) as of now.
    public func render(breakers: [CircuitBreaker.Snapshot]) -> String {
        for breaker in breakers {
            let value: Double = switch breaker.state {
            case .closed: 0
            case .halfOpen: 1
            case .open: 2
            }
            Gauge(label: "griot_provider_breaker_state", dimensions: [("provider", breaker.name)], factory: factory).record(value)
        }
        return registry.emitToString()
    }
}
