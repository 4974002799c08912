import Foundation
import Logging

/// One JSON object per log line on standard error: time, level, label, message and metadata
/// (request id, correlation id, user id), so that logs can be searched by request.
///
/// ```swift
/// LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
/// ```
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String

    public init(label: String) {
        self.label = label
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
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
            fields[key] = "\(value)"
        }
        if let error = event.error { fields["error"] = "\(error)" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(fields) else { return }
        line.append(0x0A)
        FileHandle.standardError.write(line)
    }
}
