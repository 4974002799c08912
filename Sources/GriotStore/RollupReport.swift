import Foundation

/// The rollup summed over a range, as the dashboard reads it: per bucket (all nodes, assistants
/// and models added), per assistant and model, the error codes and flag categories, and the
/// nodes that wrote.
public struct RollupReport: Sendable, Hashable {
    /// The names the latency histograms are stored under.
    public static let firstTokenMeasure = "first_token"
    public static let turnMeasure = "turn"

    public struct Bucket: Sendable, Hashable {
        /// The bucket's start, in seconds since 1970.
        public var start: Int64
        public var turns = 0
        public var tokensIn = 0
        public var tokensOut = 0
        public var errors = 0
        public var flags = 0
        public var crisis = 0
        public var rateLimited = 0
        public var firstToken = LatencyHistogram()
        public var latency = LatencyHistogram()

        public init(start: Int64) {
            self.start = start
        }

        public mutating func add(_ other: Bucket) {
            turns += other.turns
            tokensIn += other.tokensIn
            tokensOut += other.tokensOut
            errors += other.errors
            flags += other.flags
            crisis += other.crisis
            rateLimited += other.rateLimited
            firstToken.add(other.firstToken)
            latency.add(other.latency)
        }
    }

    public struct ModelUsage: Sendable, Hashable {
        public var assistant: String
        public var model: String
        public var turns: Int
        public var tokensIn: Int
        public var tokensOut: Int

        public init(assistant: String, model: String, turns: Int, tokensIn: Int, tokensOut: Int) {
            self.assistant = assistant
            self.model = model
            self.turns = turns
            self.tokensIn = tokensIn
            self.tokensOut = tokensOut
        }
    }

    public var resolution: RollupResolution
    /// The buckets that hold rows, oldest first.
    public var buckets: [Bucket]
    /// By assistant and model (refusals, written under "-", are left out), most turns first.
    public var models: [ModelUsage]
    public var errorCodes: [String: Int]
    public var flags: [String: Int]
    public var nodes: [String]

    public init(resolution: RollupResolution, buckets: [Bucket] = [], models: [ModelUsage] = [], errorCodes: [String: Int] = [:],
                flags: [String: Int] = [:], nodes: [String] = []) {
        self.resolution = resolution
        self.buckets = buckets
        self.models = models
        self.errorCodes = errorCodes
        self.flags = flags
        self.nodes = nodes
    }

    /// Every bucket from `first` to `last` (starts, inclusive), empty ones included.
    public func series(from first: Int64, through last: Int64) -> [Bucket] {
        let known = Dictionary(buckets.map { ($0.start, $0) }, uniquingKeysWith: { a, b in var sum = a; sum.add(b); return sum })
        return stride(from: first, through: last, by: Int(resolution.seconds)).map { known[$0] ?? Bucket(start: $0) }
    }

    /// Adds stored histogram bins to their buckets' histograms (making a bucket that has none).
    public mutating func addLatency(_ bins: [(start: Int64, measure: String, bin: Int, count: Int)]) {
        var index = Dictionary(buckets.enumerated().map { ($0.element.start, $0.offset) }, uniquingKeysWith: { a, _ in a })
        for row in bins {
            let at: Int
            if let found = index[row.start] {
                at = found
            } else {
                at = buckets.count
                buckets.append(Bucket(start: row.start))
                index[row.start] = at
            }
            if row.measure == Self.firstTokenMeasure {
                buckets[at].firstToken.add(bin: row.bin, count: row.count)
            } else if row.measure == Self.turnMeasure {
                buckets[at].latency.add(bin: row.bin, count: row.count)
            }
        }
        buckets.sort { $0.start < $1.start }
    }

    /// All buckets added into one.
    public var total: Bucket {
        buckets.reduce(into: Bucket(start: buckets.first?.start ?? 0)) { $0.add($1) }
    }
}
