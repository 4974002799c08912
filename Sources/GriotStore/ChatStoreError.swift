/// A chat store operation the caller asked for that cannot be done as asked. The HTTP layer
/// maps `notFound` to 404, `conflict` to 409 (or 412 for a failed `If-Match`) and `invalid` to
/// 400; `description` says what to do next and can be shown as it is.
public struct ChatStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable { case notFound, conflict, invalid }

    public var kind: Kind
    public var description: String
    /// For a conflict: the ETag the message has now, so a client can fetch and retry.
    public var currentETag: String?

    public init(_ kind: Kind, _ description: String, currentETag: String? = nil) {
        self.kind = kind
        self.description = description
        self.currentETag = currentETag
    }

    public static func messageNotFound(_ id: String) -> ChatStoreError {
        ChatStoreError(.notFound, "There is no message \(id): it may have been deleted or archived; reload the thread to see its messages.")
    }

    public static func threadNotFound(_ id: String) -> ChatStoreError {
        ChatStoreError(.notFound, "There is no thread \(id): it may have been deleted; list your threads to find the one you want.")
    }
}

extension ChatStoreError {
    public static func stale(_ message: MessageRecord, sent: String) -> ChatStoreError {
        ChatStoreError(.conflict, "Message \(message.id) changed since you read it (it is now \(message.etag), you sent \(sent)); fetch it again and reapply your change.",
                       currentETag: message.etag)
    }
}
