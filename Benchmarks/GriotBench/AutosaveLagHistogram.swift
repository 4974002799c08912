import Foundation

/// The service's `griot_reply_autosave_lag_seconds` histogram read from its Prometheus text:
/// cumulative counts per bucket, and percentiles as the upper bound of the bucket they fall in.
///
/// ```swift
/// let lag = AutosaveLagHistogram(metrics: prometheusText)
/// lag.percentile(0.99)   // 250.0 (ms): 99% of deltas were stored within 250 ms
/// ```
struct AutosaveLagHistogram: CustomStringConvertible {
    static let name = "griot_reply_autosave_lag_seconds"

    /// (upper bound in ms, cumulative count), ascending; the last bound is +Inf.
    let buckets: [(bound: Double, count: Double)]
    let sumSeconds: Double

    init(metrics text: String) {
        var buckets: [(Double, Double)] = []
        var sum = 0.0
        for line in text.split(separator: "\n") where line.hasPrefix(Self.name) {
            let parts = line.split(separator: " ")
            guard parts.count >= 2, let value = Double(parts[parts.count - 1]) else { continue }
            if line.hasPrefix(Self.name + "_bucket"), let open = line.range(of: "le=\""),
               let close = line[open.upperBound...].firstIndex(of: "\"") {
                let bound = String(line[open.upperBound..<close])
                buckets.append((bound == "+Inf" ? .infinity : (Double(bound) ?? .infinity) * 1000, value))
            } else if line.hasPrefix(Self.name + "_sum") {
                sum = value
            }
        }
        self.buckets = buckets.sorted { $0.0 < $1.0 }
        sumSeconds = sum
    }

    var count: Double { buckets.last?.count ?? 0 }

    /// The upper bound (ms) of the bucket holding the `p` quantile; nil without samples.
    func percentile(_ p: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = (p * count).rounded(.up)
        return buckets.first { $0.count >= rank }?.bound
    }

    var description: String {
        guard count > 0 else { return "no samples (is the service's auto-save instrumented?)" }
        func text(_ p: Double) -> String {
            guard let value = percentile(p) else { return "–" }
            return value.isInfinite ? "> 10 s" : "≤ \(ServeLoadBenchmark.format(value)) ms"
        }
        return "p50 \(text(0.5)), p95 \(text(0.95)), p99 \(text(0.99)), max \(text(1)), mean \(ServeLoadBenchmark.format(sumSeconds / count * 1000)) ms "
            + "(n=\(Int(count)) deltas)"
    }
}
