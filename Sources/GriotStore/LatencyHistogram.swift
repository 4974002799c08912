import Foundation

/// Counts of latencies in fixed, log-spaced bins, so that histograms kept per minute and per
/// node add into one for any range and a percentile read from the sum is close to the exact one.
///
/// Bin 0 holds everything under 1 ms; bin `i` (1…68) holds [2^((i-1)/4), 2^(i/4)) ms, four bins
/// per doubling up to 2^17 ms (about 131 s); the last bin holds everything above. Adjacent bounds
/// differ by 2^(1/4) ≈ 1.19, and a percentile is interpolated geometrically inside its bin, so it
/// is within 19 % of the exact value (about 9 % when the values inside the bin are spread evenly).
///
/// ```swift
/// var histogram = LatencyHistogram()
/// histogram.record(milliseconds: 420)
/// let p95 = histogram.percentile(0.95)        // ≈ 420 (one value)
/// ```
public struct LatencyHistogram: Sendable, Hashable {
    public static let binsPerDoubling = 4
    public static let doublings = 17
    /// Under 1 ms, the log-spaced bins, and over 2^17 ms.
    public static let binCount = doublings * binsPerDoubling + 2

    public private(set) var counts: [Int]

    public init() {
        counts = Array(repeating: 0, count: Self.binCount)
    }

    /// Counts as stored: missing bins are zero, extra ones are ignored.
    public init(counts: [Int]) {
        self.init()
        for (bin, count) in counts.prefix(Self.binCount).enumerated() { self.counts[bin] = count }
    }

    public var total: Int { counts.reduce(0, +) }

    /// The bin a latency falls in.
    public static func bin(milliseconds: Double) -> Int {
        guard milliseconds.isFinite, milliseconds >= 1 else { return 0 }
        let index = Int((log2(milliseconds) * Double(binsPerDoubling)).rounded(.down)) + 1
        return min(index, binCount - 1)
    }

    /// The lower bound of a bin, in milliseconds.
    public static func lowerBound(_ bin: Int) -> Double {
        bin == 0 ? 0 : pow(2, Double(bin - 1) / Double(binsPerDoubling))
    }

    /// The upper bound of a bin, in milliseconds (the last bin's is its lower bound: it has none).
    public static func upperBound(_ bin: Int) -> Double {
        bin == binCount - 1 ? lowerBound(bin) : pow(2, Double(bin) / Double(binsPerDoubling))
    }

    public mutating func record(milliseconds: Double, count: Int = 1) {
        counts[Self.bin(milliseconds: milliseconds)] += count
    }

    public mutating func add(bin: Int, count: Int) {
        guard counts.indices.contains(bin) else { return }
        counts[bin] += count
    }

    public mutating func add(_ other: LatencyHistogram) {
        for bin in counts.indices { counts[bin] += other.counts[bin] }
    }

    /// The `quantile` (0…1) of the values counted, or nil when there are none: the bin holding
    /// it, and a point inside that bin as far along (geometrically) as the rank is among its counts.
    public func percentile(_ quantile: Double) -> Double? {
        let total = self.total
        guard total > 0 else { return nil }
        let rank = max(Double(total) * min(max(quantile, 0), 1), Double.leastNonzeroMagnitude)
        var below = 0
        for (bin, count) in counts.enumerated() where count > 0 {
            guard Double(below + count) >= rank else {
                below += count
                continue
            }
            let fraction = (rank - Double(below)) / Double(count)
            let low = Self.lowerBound(bin), high = Self.upperBound(bin)
            if bin == 0 { return high * fraction }
            return low * pow(high / low, fraction)
        }
        return Self.lowerBound(Self.binCount - 1)
    }
}
