import Foundation
import GriotChat
import GriotStore
import HTTPTypes
import Hummingbird
import NIOCore

/// Writes a turn's events as Server-Sent Events: `id: <turn id>:<n>` with n increasing from 1
/// (so `Last-Event-ID` names both the turn and the place to resume), `event:` the event's name,
/// `data:` one JSON object; a comment line every `heartbeat` keeps proxies from closing a quiet
/// stream.
///
/// ```swift
/// try await TurnEventStream(turnID: turn.id, events: subscription).write(to: &writer)
/// ```
struct TurnEventStream: Sendable {
    let turnID: String
    let events: AsyncStream<TurnRegistry.StreamedEvent>
    /// Completes when the client's connection closes; the stream then stops at once.
    var closed: EventLoopFuture<Void>?
    var heartbeat: Duration = .seconds(15)

    static let headers: HTTPFields = [
        .contentType: "text/event-stream; charset=utf-8",
        // A reply holds personal data: nothing between the service and the client may keep it.
        .cacheControl: "no-store",
        HTTPField.Name("X-Accel-Buffering")!: "no",
        // The server closes a stream's connection when the stream ends (so that a hang-up can be
        // noticed while it runs); saying so keeps clients from reusing it for the next request.
        .connection: "close",
    ]

    enum Item: Sendable {
        case event(TurnRegistry.StreamedEvent)
        case heartbeat
        case end
    }

    func write(to writer: inout any ResponseBodyWriter) async throws {
        try await EventStreamPump(keepAlive: heartbeat, closed: closed, beat: Item.heartbeat, end: Item.end).run { [events] continuation in
            for await event in events { continuation.yield(.event(event)) }
            continuation.yield(.end)
        } body: { items, _ in
            for await item in items {
                try Task.checkCancellation()
                switch item {
                case .event(let event):
                    try await writer.write(ByteBuffer(bytes: Self.frame(event.content, id: "\(turnID):\(event.number)")))
                case .heartbeat:
                    try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                case .end:
                    return
                }
            }
        }
    }

    static func frame(_ event: StreamEventContent, id: String) -> [UInt8] {
        Array("id: \(id)\nevent: \(event.name)\ndata: \(event.data)\n\n".utf8)
    }

    /// The turn and event number of a `Last-Event-ID` header ("<turn id>:<n>").
    /// Nil when it is not of that form (an empty turn id, a number that is not a whole number from 0).
    static func resumePoint(_ header: String?) -> (turnID: String, after: Int)? {
        guard let header, let colon = header.lastIndex(of: ":"), let number = Int(header[header.index(after: colon)...]), number >= 0 else { return nil }
        let turnID = String(header[..<colon])
        guard !turnID.isEmpty, turnID.count <= 200 else { return nil }
        return (turnID, number)
    }
}
