import Foundation
import GriotStore

/// One stored turn as operators list it, to find one to replay: `GET /api/ops/turns` and
/// `griot turns --json` give the same fields (snake_case in JSON).
public struct TurnListing: Encodable, Sendable {
    public var turnID: String
    public var threadID: String
    public var assistant: String
    public var promptVersion: Int
    public var provider: String
    public var model: String
    public var status: String
    public var startedAt: Date
    public var finishedAt: Date?
    public var question: String?
    public var flags: [String]
    public var groundedness: Double?
    public var indexVersion: String?

    public init(_ record: TurnRecord) {
        let snapshot = try? TurnSnapshot.decode(record.snapshot)
        turnID = record.id
        threadID = record.threadID
        assistant = record.assistant
        promptVersion = record.promptVersion
        provider = record.provider
        model = record.model
        status = record.status.rawValue
        startedAt = record.startedAt
        finishedAt = record.finishedAt
        question = snapshot?.question
        flags = snapshot?.flags.map(\.kind.rawValue) ?? []
        groundedness = snapshot?.groundedness
        indexVersion = snapshot?.indexVersion
    }
}
