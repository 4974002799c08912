import Foundation

/// What one finished turn (or one refused request) adds to the dashboard's rollup: the row of
/// its minute, node, assistant and model gets these counts added to it (`TurnRollupStore`).
///
/// ```swift
/// var rollup = TurnRollup(at: Date(), node: "node-a", assistant: "griot", model: "griot-extractive-1")
/// rollup.turns = 1; rollup.tokensIn = 812; rollup.latency.record(milliseconds: 420)
/// try await chats.addRollup(rollup)
/// ```
public struct TurnRollup: Sendable, Hashable {
    /// Written where assistant or model do not apply (a refused request).
    public static let none = "-"

    public var at: Date
    public var node: String
    public var assistant: String
    public var model: String
    public var turns = 0
    public var tokensIn = 0
    public var tokensOut = 0
    /// Turns that ended with an error (a stop by the user is not one), and how many of each code.
    public var errors = 0
    public var errorCodes: [String: Int] = [:]
    /// Safety flags raised, by category (a flag's kind, or the moderation category of a block).
    public var flags: [String: Int] = [:]
    /// Turns answered with the crisis reply.
    public var crisis = 0
    /// Requests refused by a rate limit.
    public var rateLimited = 0
    public var firstToken = LatencyHistogram()
    public var latency = LatencyHistogram()

    public init(at: Date, node: String, assistant: String = TurnRollup.none, model: String = TurnRollup.none) {
        self.at = at
        self.node = node
        self.assistant = assistant
        self.model = model
    }

    /// One request refused by a rate limit.
    public static func refusal(at: Date, node: String) -> TurnRollup {
        var rollup = TurnRollup(at: at, node: node)
        rollup.rateLimited = 1
        return rollup
    }

    /// The start of the bucket of `resolution` holding `at`, in seconds since 1970.
    public func bucketStart(_ resolution: RollupResolution) -> Int64 {
        resolution.bucketStart(at)
    }
}

/// How finely the rollup is kept. Every write adds to a minute's row and to a quarter-hour's,
/// so a 24-hour dashboard reads 96 rows per node, assistant and model rather than 1,440.
public enum RollupResolution: Int, Sendable, CaseIterable {
    case minute = 60
    case quarterHour = 900

    public var seconds: Int64 { Int64(rawValue) }

    public func bucketStart(_ date: Date) -> Int64 {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        return seconds - ((seconds % self.seconds) + self.seconds) % self.seconds
    }
}

extension TurnRollup {
    /// The error codes and flag categories as rows of `turnRollupCount`, in a fixed order (so two
    /// writers of one node take their rows' locks in the same order).
    public var labelledCounts: [(kind: String, name: String, count: Int)] {
        (errorCodes.map { ("error", $0.key, $0.value) } + flags.map { ("flag", $0.key, $0.value) })
            .filter { $0.2 != 0 }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    }

    /// The histograms' non-empty bins as rows of `turnRollupLatency`, in a fixed order.
    public var latencyBins: [(measure: String, bin: Int, count: Int)] {
        let measures: [(String, LatencyHistogram)] = [(RollupReport.firstTokenMeasure, firstToken), (RollupReport.turnMeasure, latency)]
        return measures.flatMap { measure, histogram in
            histogram.counts.enumerated().filter { $0.element != 0 }.map { (measure, $0.offset, $0.element) }
        }
    }
}
