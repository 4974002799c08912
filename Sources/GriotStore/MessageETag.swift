import Foundation

/// The ETag of a message: `"m-<id>-v<version>"`, quoted as HTTP wants it. It changes whenever
/// the message's text does, so `If-Match` with it makes an edit safe against a lost update.
///
/// ```swift
/// response.headers[.eTag] = message.etag
/// try chats.editMessage(id: message.id, content: text, ifMatch: request.headers[.ifMatch], by: userID)
/// ```
public enum MessageETag {
    public static func make(id: String, version: Int) -> String {
        "\"m-\(id)-v\(version)\""
    }

    /// Whether an `If-Match` header value names this version: `*`, or a comma-separated list of
    /// ETags of which one is this one. A weak ETag (`W/"…"`) never matches, as RFC 9110 says for
    /// `If-Match`.
    public static func matches(_ ifMatch: String, id: String, version: Int) -> Bool {
        let current = make(id: id, version: version)
        return ifMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == current
        }
    }
}

extension MessageRecord {
    /// This message's ETag, for the `ETag` header and the next `If-Match`.
    public var etag: String { MessageETag.make(id: id, version: version) }
}
