/// One page of a thread's scrollback, for a client that loads older messages as it scrolls up.
public struct MessagePage: Sendable, Hashable {
    /// Oldest first, so the page reads top to bottom and the newest message is last.
    public var messages: [MessageRecord]
    /// The `before` that fetches the page of older messages; nil when this page reaches the
    /// start of the thread (or of what is not archived).
    public var earlier: Int?

    public init(messages: [MessageRecord], earlier: Int?) {
        self.messages = messages
        self.earlier = earlier
    }
}
