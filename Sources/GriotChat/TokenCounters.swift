/// The token counter for each vocabulary a prompt may name (`model.encoding`).
///
/// ```swift
/// let counters = TokenCounters.bytePair           // exact cl100k_base / o200k_base counts
/// let counter = try counters.counter(for: template.model.encoding)
/// ```
public struct TokenCounters: Sendable {
    public static let defaultEncoding = "o200k_base"
    private let resolve: @Sendable (String) throws -> any TokenCounter

    public init(resolve: @escaping @Sendable (String) throws -> any TokenCounter) {
        self.resolve = resolve
    }

    public func counter(for encoding: String?) throws -> any TokenCounter {
        try resolve(encoding ?? Self.defaultEncoding)
    }
}
