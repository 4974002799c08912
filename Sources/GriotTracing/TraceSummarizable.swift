/// An error that can say what kind it is in words that are safe in a span: a code, a status, a
/// case name; never the upstream's body, a user's text or a name. Errors that are not
/// summarizable are recorded by their type name alone.
///
/// ```swift
/// extension ProviderError: TraceSummarizable {
///     public var traceSummary: String { "status 429" }
/// }
/// ```
public protocol TraceSummarizable: Error {
    var traceSummary: String { get }
}
