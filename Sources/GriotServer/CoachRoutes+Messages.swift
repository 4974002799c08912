import Foundation
import GriotAuth
import GriotChat
import GriotExport
import GriotStore
import HTTPTypes
import Hummingbird

/// Editing and deleting one's own coaching messages (guarded by ETags), and exports for coaches.
extension CoachRoutes {
    struct EditBody: Decodable {
        var content: String?
    }

    /// The message as an edit left it: its fields, and, when the new text is about self-harm,
    /// the crisis flag (`escalate: true`) and the crisis reply a send of it would have streamed.
    struct EditReply: ResponseEncodable {
        var id: String
        var role: String
        var content: String
        var status: String
        var sequence: Int
        var createdAt: Date
        var updatedAt: Date
        var etag: String
        var flags: [SafetyFlag]
        var crisisReply: String?

        init(_ edited: EditedMessage) {
            let item = MessageItem(edited.message)
            id = item.id
            role = item.role
            content = item.content
            status = item.status
            sequence = item.sequence
            createdAt = item.createdAt
            updatedAt = item.updatedAt
            etag = item.etag
            flags = edited.flags
            crisisReply = edited.crisisReply
        }
    }

    /// Replaces the text of one of the caller's own messages (`AccessPolicy`: its author only),
    /// through the same gate as sending it (`ChatEngine.editMessage`): a text a send would block
    /// is refused with the send's 422 `message_blocked` and changes nothing; a text about
    /// self-harm is stored and answered with the crisis flag and reply. `If-Match` must carry the
    /// ETag the client last saw; a stale one gets 409 with the current ETag, so nothing is
    /// overwritten unseen.
    @Sendable func editMessage(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let message = try context.grant.requireMessage()
        guard let ifMatch = request.headers[.ifMatch] else {
            throw APIError(.preconditionRequired, code: "if_match_required",
                           "Send If-Match with the message's ETag (from its etag field or ETag header) so an edit never overwrites a newer one.",
                           details: ["current_etag": message.etag])
        }
        let body = try await request.decodeJSON(as: EditBody.self, context: context, shape: #"{"content": "…"}"#)
        guard let content = body.content else { throw APIError.badRequest("missing_content", "Send the new text in \"content\".") }
        let edited: EditedMessage
        do {
            edited = try await APIError.mapping { try await engine.editMessage(id: message.id, content: content, ifMatch: ifMatch, by: caller.userID) }
        } catch let error as ChatError {
            throw APIError.badRequest("invalid_message", error.description)
        } catch let blocked as MessageBlocked {
            observer.screened(blocked.verdicts, category: blocked.moderationCategory)
            var headers = HTTPFields()
            headers[.eTag] = blocked.currentETag
            throw APIError(.unprocessableContent, code: blocked.failure.code, blocked.failure.message,
                           details: ["message_id": blocked.messageID, "current_etag": blocked.currentETag], headers: headers)
        }
        observer.screened(edited.verdicts, category: edited.moderationCategory)
        var response = try EditReply(edited).response(from: request, context: context)
        response.headers[.eTag] = edited.message.etag
        return response
    }

    /// Hides a message at once (purged after 30 days). `If-Match` is optional; when sent, a stale
    /// ETag gets 409. Deleting a deleted message is 404, like any message the caller cannot see.
    @Sendable func deleteMessage(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let message = try context.grant.requireMessage()
        try await APIError.mapping { try await engine.chats.softDeleteMessage(id: message.id, by: caller.userID, ifMatch: request.headers[.ifMatch]) }
        return Response(status: .noContent)
    }

    /// The whole thread as JSON or as a PDF marked "Confidential", for coaches of its course and admins.
    @Sendable func export(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let format = request.uri.queryParameters["format"].map(String.init) ?? "json"
        guard format == "json" || format == "pdf" else {
            throw APIError.badRequest("invalid_format", "format must be json or pdf.")
        }
        // A coach of the thread's course or an admin, as `AccessPolicy` admitted them.
        let thread = try context.grant.requireThread()
        let messages = try await engine.chats.recentMessages(threadID: thread.id, limit: 1_000_000)
        let courseTitle = try await thread.courseID.asyncFlatMap { try await engine.chats.course(id: $0) }?.title
        let export = ThreadExport(thread: thread, messages: messages, courseTitle: courseTitle, exportedBy: caller.userID, exportedAt: Date())
        _ = try await engine.chats.recordAudit(AuditEntry(action: .threadExport, userID: thread.userID, threadID: thread.id,
                                                    details: AuditEntry.details(["format": .string(format), "messages": .int(export.messages.count)])))
        let data = format == "pdf" ? export.pdf() : try export.json()
        var headers = HTTPFields()
        headers[.contentType] = format == "pdf" ? "application/pdf" : "application/json; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"thread-\(thread.id).\(format)\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: data)))
    }
}
