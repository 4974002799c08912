import Foundation

/// The region whose database holds the chat data of the request being served (data residency,
/// issue 38): bound by the server's access middleware for each caller, from the token's
/// `region` claim or the API key's region, or the node's default region. A `RegionalChatStore`
/// writes the caller's new threads, profile and warnings to that region's store; unbound (a
/// scheduled job, a command), it works on every region in turn.
///
/// ```swift
/// try await Residency.$region.withValue("eu") {
///     try await chats.createThread(assistant: "coach", userID: "u-anna")   // into the eu store
/// }
/// ```
///
/// Task-locals follow child tasks and `Task { }`, not `Task.detached` nor a `Thread`: work that
/// leaves the request's task (the reply checkpoints' writer, the stream journal's group commit)
/// names rows by id, and the regional store finds the region that holds them.
public enum Residency {
    @TaskLocal public static var region: String?

    /// Whether `name` can be a region's name: 1 to 32 lowercase letters, digits, `-` or `_`,
    /// beginning with a letter (`eu`, `us-east`).
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, (1...32).contains(name.unicodeScalars.count),
              ("a"..."z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }
}

/// A caller of a region this node keeps no database for: refused before anything is written,
/// never stored in another region.
public struct RegionUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    public var region: String
    /// The regions this node serves, in their configured order.
    public var served: [String]

    public init(region: String, served: [String]) {
        self.region = region
        self.served = served
    }

    public var description: String {
        "This node keeps no data for region \"\(region)\"; it serves \(served.joined(separator: ", ")). "
            + "Send the request to a node of region \(region), or ask your administrator to correct the account's region."
    }
}
