import Foundation
import GriotChat
import GriotPrompts
import GriotStore
import Hummingbird

/// The review queue over HTTP (issue 37, item 63): operators and admins list the tickets that
/// flags opened, read one with its delivery to the tracker, and acknowledge and resolve them
/// (each change audited, with who and when); the asker reports a reply of their own thread.
///
/// ```
/// GET  /api/ops/reviews?status=open&kind=crisis        POST /api/ops/reviews/{id}/acknowledge
/// GET  /api/ops/reviews/{id}                           POST /api/ops/reviews/{id}/resolve
/// POST /api/messages/{id}/report  {"reason": "inaccurate", "note": "…"}
/// ```
struct ReviewRoutes: Sendable {
    let engine: ChatEngine

    func addOps(to router: RouterGroup<GriotRequestContext>) {
        router.get("reviews", use: list)
        router.get("reviews/:id", use: show)
        router.post("reviews/:id/acknowledge", use: acknowledge)
        router.post("reviews/:id/resolve", use: resolve)
    }

    func addReports(to router: RouterGroup<GriotRequestContext>) {
        router.post("messages/:id/report", use: report)
    }

    /// A ticket as the API shows it (snake_case), with its delivery to the tracker.
    struct TicketItem: ResponseEncodable {
        struct Delivery: Encodable {
            var state: String
            var attempts: Int
            var nextAttemptAt: Date?
            var lastError: String?
            var deliveredAt: Date?
            var remoteKey: String?
        }

        var id: String
        var kind: String
        var status: String
        var assistant: String
        var threadID: String
        var turnID: String?
        var messageID: String?
        var summary: String
        var score: Double?
        var reason: String?
        var note: String?
        var createdAt: Date
        var acknowledgedAt: Date?
        var acknowledgedBy: String?
        var resolvedAt: Date?
        var resolvedBy: String?
        var resolution: String?
        var delivery: Delivery

        init(_ item: ReviewItem) {
            let ticket = item.ticket
            id = ticket.id
            kind = ticket.kind.rawValue
            status = ticket.status.rawValue
            assistant = ticket.assistant
            threadID = ticket.threadID
            turnID = ticket.turnID
            messageID = ticket.messageID
            summary = ticket.summary
            score = ticket.score
            reason = ticket.reason
            note = ticket.note
            createdAt = ticket.createdAt
            acknowledgedAt = ticket.acknowledgedAt
            acknowledgedBy = ticket.acknowledgedBy
            resolvedAt = ticket.resolvedAt
            resolvedBy = ticket.resolvedBy
            resolution = ticket.resolution
            let row = item.delivery
            delivery = Delivery(state: row?.state.rawValue ?? ReviewDelivery.State.pending.rawValue, attempts: row?.attempts ?? 0,
                                nextAttemptAt: row?.deliveredAt == nil ? row?.nextAttemptAt : nil, lastError: row?.lastError,
                                deliveredAt: row?.deliveredAt, remoteKey: row?.remoteKey)
        }
    }

    struct TicketPage: ResponseEncodable {
        var tickets: [TicketItem]
        /// The `offset` of the next page; absent on the last one.
        var nextOffset: Int?
    }

    /// Tickets, newest first: `status`, `kind`, `assistant`, `turn_id`, `since` and `until`
    /// (ISO 8601, on when the ticket was opened); `limit` (1–500, default 50) and `offset` page.
    @Sendable func list(_ request: Request, context: GriotRequestContext) async throws -> TicketPage {
        let query = QueryReader(request)
        var filter = ReviewFilter(assistant: query.text("assistant"), turnID: query.text("turn_id"),
                                  since: try query.date("since"), until: try query.date("until"))
        if let value = query.text("status") {
            guard let status = ReviewTicket.Status(rawValue: value) else {
                throw APIError.badRequest("invalid_status", "status must be one of \(ReviewTicket.Status.names).")
            }
            filter.status = status
        }
        if let value = query.text("kind") {
            guard let kind = ReviewTicket.Kind(rawValue: value) else {
                throw APIError.badRequest("invalid_kind", "kind must be one of \(ReviewTicket.Kind.names).")
            }
            filter.kind = kind
        }
        let limit = try query.number("limit", default: 50, range: 1...500)
        filter.offset = try query.number("offset", default: 0, range: 0...10_000_000)
        filter.limit = limit + 1
        let items = try await engine.chats.reviewItems(filter)
        return TicketPage(tickets: items.prefix(limit).map(TicketItem.init), nextOffset: items.count > limit ? filter.offset + limit : nil)
    }

    @Sendable func show(_ request: Request, context: GriotRequestContext) async throws -> TicketItem {
        let id = try ClientIdentifier.check(try context.parameters.require("id"), field: "ticket_id")
        guard let item = try await engine.chats.reviewItem(id: id) else { throw APIError(ReviewTicket.notFound(id)) }
        return TicketItem(item)
    }

    @Sendable func acknowledge(_ request: Request, context: GriotRequestContext) async throws -> TicketItem {
        let caller = try context.requireCaller()
        let id = try ClientIdentifier.check(try context.parameters.require("id"), field: "ticket_id")
        return TicketItem(try await APIError.mapping { try await engine.chats.acknowledgeReview(id: id, by: caller.userID, now: Date()) })
    }

    struct ResolveBody: Decodable {
        var resolution: String?
    }

    @Sendable func resolve(_ request: Request, context: GriotRequestContext) async throws -> TicketItem {
        let caller = try context.requireCaller()
        let id = try ClientIdentifier.check(try context.parameters.require("id"), field: "ticket_id")
        // The body is optional: an empty one resolves without a note.
        var resolution: String?
        let buffer: ByteBuffer
        var request = request
        do {
            buffer = try await request.collectBody(upTo: context.maxUploadSize)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError.bodyTooLarge(limit: context.maxUploadSize)
        }
        if buffer.readableBytes > 0 {
            guard let body = try? JSONDecoder().decode(ResolveBody.self, from: Data(buffer: buffer)) else {
                throw APIError.badRequest("invalid_body", #"The body must be JSON: {"resolution": "what was done (optional)"}."#)
            }
            resolution = try Self.checkedText(body.resolution, field: "resolution")
        }
        return TicketItem(try await APIError.mapping { try await engine.chats.resolveReview(id: id, by: caller.userID, resolution: resolution, now: Date()) })
    }

    struct ReportBody: Decodable {
        var reason: String?
        var note: String?
    }

    /// The asker reports a reply in a thread of theirs (the access rule admitted the message):
    /// 201 with the new ticket, or 200 with the one they opened before. The note passes the same
    /// gate as a message (`MessageGate`, with moderation on whatever the assistant switched off,
    /// since operators and the tracker read it): a blocked note is refused as a blocked message
    /// is, and what is kept has personal details masked.
    @Sendable func report(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let message = try context.grant.requireMessage()
        let body = try await request.decodeJSON(as: ReportBody.self, context: context,
                                                shape: #"{"reason": "inaccurate", "note": "what is wrong (optional, at most 1000 characters)"}"#)
        guard let value = body.reason, let reason = ReviewTicket.ReportReason(rawValue: value) else {
            throw APIError(.badRequest, code: "invalid_reason", "reason must be one of \(ReviewTicket.ReportReason.names).", param: "reason")
        }
        var note = try Self.checkedText(body.note, field: "note")
        if let text = note {
            let gate = MessageGate(engine: engine)
            let screening = await gate.screen(text, voice: false, stages: [.moderation, .crisis])
            if screening.decision == .block {
                let failure = try await gate.refuse(userID: caller.userID)
                throw APIError(.unprocessableContent, code: failure.code,
                               "The note violates policy and was not kept; rephrase it without insults, threats or slurs, or leave it out. " + failure.message,
                               param: "note")
            }
            guard let scrubber = engine.safety.scrubber else {
                throw APIError(.serviceUnavailable, code: "pii_unavailable",
                               "The PII scrubber could not start (PCRE2), so notes cannot be kept; report without a note, or try again later.")
            }
            note = scrubber.scrub(text).text
        }
        let (item, created) = try await APIError.mapping {
            try await engine.chats.reportReply(messageID: message.id, reporterID: caller.userID, reason: reason, note: note, now: Date())
        }
        var response = try TicketItem(item).response(from: request, context: context)
        response.status = created ? .created : .ok
        return response
    }

    /// An optional free text: trimmed, nil when empty, refused when it cannot be stored or is
    /// longer than `ReviewTicket.noteLength`.
    static func checkedText(_ text: String?, field: String) throws -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        if let reason = StorableText.unstorableReason(trimmed, what: field) {
            throw APIError(.badRequest, code: "invalid_\(field)", reason, param: field)
        }
        guard trimmed.count <= ReviewTicket.noteLength else {
            throw APIError(.badRequest, code: "\(field)_too_long",
                           "The \(field) is \(trimmed.count) characters long; the limit is \(ReviewTicket.noteLength). Shorten it.", param: field)
        }
        return trimmed
    }
}
