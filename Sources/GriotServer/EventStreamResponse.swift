import Foundation
import GriotChat
import HTTPTypes
import Hummingbird

/// The SSE response of a turn: a new turn, or, with `Last-Event-ID`, the rest of one that is
/// still running or finished a short while ago (on any node of a fleet: `TurnRegistry.resume`).
enum EventStreamResponse {
    static func start(_ request: Request, context: GriotRequestContext, turns: TurnRegistry, observer: TurnMetricsObserver,
                      newTurn: (inout Request) async throws -> ChatTurn) async throws -> Response {
        let caller = try context.requireCaller()
        var request = request
        let turnID: String
        let events: AsyncStream<TurnRegistry.StreamedEvent>
        let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!].flatMap { $0.isEmpty ? nil : $0 }
        if let lastEventID {
            // A resume that cannot be read is refused: starting a new turn instead would send the message twice.
            guard let point = TurnEventStream.resumePoint(lastEventID) else {
                let shown = lastEventID.count > 60 ? "\(lastEventID.prefix(60))…" : lastEventID
                throw APIError(.badRequest, code: "invalid_last_event_id",
                               "Last-Event-ID \"\(shown)\" is not an event id of this service: send the id: line of the last event you received, \"<turn id>:<n>\" such as 3f6c2a9e-…:12, to resume that turn, or leave the header out to send a new message.",
                               details: ["expected": "<turn id>:<n>"])
            }
            guard let resumed = await turns.resume(turnID: point.turnID, owner: caller.userID, after: point.after) else {
                throw APIError(.notFound, code: "turn_not_found",
                               "There is no recent turn \(point.turnID) for you to resume; send the message again without Last-Event-ID.")
            }
            (turnID, events) = (point.turnID, resumed)
        } else {
            let turn = try await newTurn(&request)
            await turns.register(turn, owner: caller.userID, finished: observer.finished)
            guard let subscribed = await turns.subscribe(turnID: turn.id, owner: caller.userID, after: 0) else {
                throw APIError(.internalServerError, code: "internal_error", "The turn could not be followed; try again.")
            }
            (turnID, events) = (turn.id, subscribed)
        }
        let closed = context.connectionClosed
        return Response(status: .ok, headers: TurnEventStream.headers, body: .init { writer in
            // The headers say `Connection: close`; the connection is closed once `done` is written.
            context.closeConnectionAfterResponse()
            // A client that hangs up ends this writer; the registry then stops the turn (after its
            // grace period, in which the client may resume). The stream watches the connection
            // rather than use Hummingbird's consumeWithCancellationOnInboundClose: with the request
            // body already read, that helper can leave its body source unfinished when the client
            // closes, which traps in NIO.
            try await TurnEventStream(turnID: turnID, events: events, closed: closed).write(to: &writer)
            try await writer.finish(nil)
        })
    }
}
