/// One event of a `text/event-stream`, as the WHATWG HTML standard's event-stream parsing
/// defines it: the `data:` lines joined with "\n", the `event:` type and the last event ID.
public struct ServerSentEvent: Sendable, Hashable {
    /// The `event:` field, or nil for the default type ("message").
    public var type: String?
    public var data: String
    /// The last `id:` seen on the stream so far (it carries over to later events, as in the standard).
    public var id: String?
    /// The `retry:` field of this event, in milliseconds.
    public var retryMilliseconds: Int?

    public init(type: String? = nil, data: String, id: String? = nil, retryMilliseconds: Int? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retryMilliseconds = retryMilliseconds
    }
}
