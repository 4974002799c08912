import Foundation

/// Which stored turns an operator wants to see (`recentTurns`). Every limit given must hold.
public struct TurnFilter: Sendable, Hashable {
    public var assistant: String?
    /// A safety flag the turn raised (`low_groundedness`, `pii_masked`, `crisis`, ...).
    public var flag: String?
    /// Only turns whose answer scored under `TurnFilter.lowGroundednessScore`.
    public var lowGroundedness = false
    public var status: MessageStatus?
    public var since: Date?
    public var until: Date?
    public var limit = 50

    /// The groundedness under which an answer is shown "AI may be inaccurate".
    public static let lowGroundednessScore = 0.4

    public init(assistant: String? = nil, flag: String? = nil, lowGroundedness: Bool = false, status: MessageStatus? = nil,
                since: Date? = nil, until: Date? = nil, limit: Int = 50) {
        self.assistant = assistant
        self.flag = flag
        self.lowGroundedness = lowGroundedness
        self.status = status
        self.since = since
        self.until = until
        self.limit = limit
    }
}
