import Foundation

/// A read-only link to a bedtime story: anyone holding `token` reads the story until the
/// parent revokes it. The token is the caller's (`StoryShareRecord.newToken()`): 256 random
/// bits, URL-safe, so a link cannot be guessed.
public struct StoryShareRecord: Sendable, Hashable, Codable {
    public var token: String
    public var storyID: String
    public var parentID: String
    public var created: Date
    public var revoked: Date?

    public init(token: String = StoryShareRecord.newToken(), storyID: String, parentID: String, created: Date = Date(), revoked: Date? = nil) {
        self.token = token
        self.storyID = storyID
        self.parentID = parentID
        self.created = created
        self.revoked = revoked
    }

    /// 32 random bytes as unpadded base64url (43 characters).
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
