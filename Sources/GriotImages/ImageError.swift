/// Why an uploaded drawing was refused, in words a parent can act on.
///
/// ```swift
/// do { _ = try DrawingImage.inspect(upload) }
/// catch { return .unprocessable(error.message) }  // "This is a HEIC photo, …; send it as JPEG …"
/// ```
public struct ImageError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of refusal, for a route to choose its status (415 for a format, 413 for a size, 422 otherwise).
    public enum Reason: String, Sendable, Hashable {
        case empty
        case unsupportedFormat
        case truncated
        case malformed
        case tooLarge
        case undecodable
    }

    public let reason: Reason
    /// Says what the file is and what to do next.
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
