import Foundation

/// What produced each reply: the turn snapshots an operator lists and replays.
public protocol TurnStore: Sendable {
    /// Inserts or replaces the turn.
    func saveTurn(_ turn: TurnRecord) async throws
    /// A turn, unless its reply was deleted (`includingDeleted` shows it to an admin until the purge).
    func turn(id: String, includingDeleted: Bool) async throws -> TurnRecord?
    /// A thread's turns in the order they started, leaving out those whose reply was deleted.
    func turns(threadID: String, includingDeleted: Bool) async throws -> [TurnRecord]
    /// The most recent turns that match the filter, newest first.
    func recentTurns(_ filter: TurnFilter) async throws -> [TurnRecord]
}

extension TurnStore {
    public func turn(id: String, includingDeleted: Bool = false) async throws -> TurnRecord? {
        try await turn(id: id, includingDeleted: includingDeleted)
    }

    public func turns(threadID: String, includingDeleted: Bool = false) async throws -> [TurnRecord] {
        try await turns(threadID: threadID, includingDeleted: includingDeleted)
    }
}
