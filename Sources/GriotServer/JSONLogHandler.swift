import Foundation
import Logging

/// One JSON object per log line on standard error: time, level, label, message and metadata
/// (request id, correlation id, user id), so that logs can be searched by request; and, from
/// its metadata provider (`.traceContext` unless told otherwise), the trace and span ids of the
/// span the line was written under, so that a request's lines and its trace find each other.
///
/// ```swift
/// LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
/// ```
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    /// Where each line goes: standard error, or a test's buffer.
    let output: @Sendable (Data) -> Void

    public init(label: String, metadataProvider: Logger.MetadataProvider? = .traceContext,
                output: @escaping @Sendable (Data) -> Void = { FileHandle.standardError.write($0) }) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [
            "time": ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!,
                                                formatOptions: [.withInternetDateTime, .withFractionalSeconds]),
            "level": event.level.rawValue,
            "label": label,
            "message": event.message.description,
        ]
        // The handler's, then the provider's (the current span), then the line's own.
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided, uniquingKeysWith: { _, new in new }) }
        for (key, value) in merged.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
            fields[key] = "\(value)"
        }
        if let error = event.error { fields["error"] = "\(error)" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(fields) else { return }
        line.append(0x0A)
        output(line)
    }
}
