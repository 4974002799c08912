import Foundation
import GriotAuth
import GriotExport
import GriotStore
import HTTPTypes
import Hummingbird

/// Editing and deleting one's own coaching messages (guarded by ETags), and exports for coaches.
extension CoachRoutes {
    /// The caller's own live message in a coaching thread (any thread's for an admin), or 404.
    func ownMessage(_ context: GriotRequestContext) throws -> MessageRecord {
        let caller = try context.requireCaller()
        let id = try context.parameters.require("id")
        guard let message = try engine.chats.message(id: id), let thread = try engine.chats.thread(id: message.threadID),
              thread.assistant == Self.assistant, thread.userID == caller.userID || caller.role.mayAdminister
        else {
            throw APIError.notFound("message_not_found", "There is no message \(id) of yours; it may have been deleted. Reload the thread's messages.")
        }
        return message
    }

    struct EditBody: Decodable {
        var content: String?
    }

    /// Replaces the text of one of the caller's own messages. `If-Match` must carry the ETag the
    /// client last saw; a stale one gets 409 with the current ETag, so nothing is overwritten unseen.
    @Sendable func editMessage(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let message = try ownMessage(context)
        guard message.role == .user else {
            throw APIError(.forbidden, code: "forbidden", "Only your own messages can be edited, not the coach's replies.")
        }
        guard let ifMatch = request.headers[.ifMatch] else {
            throw APIError(.preconditionRequired, code: "if_match_required",
                           "Send If-Match with the message's ETag (from its etag field or ETag header) so an edit never overwrites a newer one.",
                           details: ["current_etag": message.etag])
        }
        let body = try await request.decodeJSON(as: EditBody.self, context: context, shape: #"{"content": "…"}"#)
        guard let content = body.content else { throw APIError.badRequest("missing_content", "Send the new text in \"content\".") }
        let edited = try APIError.mapping { try engine.chats.editMessage(id: message.id, content: content, ifMatch: ifMatch, by: caller.userID) }
        var response = try MessageItem(edited).response(from: request, context: context)
        response.headers[.eTag] = edited.etag
        return response
    }

    /// Hides a message at once (purged after 30 days). `If-Match` is optional; when sent, a stale
    /// ETag gets 409. Deleting a deleted message is 404, like any message the caller cannot see.
    @Sendable func deleteMessage(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let message = try ownMessage(context)
        try APIError.mapping { try engine.chats.softDeleteMessage(id: message.id, by: caller.userID, ifMatch: request.headers[.ifMatch]) }
        return Response(status: .noContent)
    }

    /// The whole thread as JSON or as a PDF marked "Confidential", for coaches of its course and admins.
    @Sendable func export(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        guard caller.role.mayExportConversations else {
            throw APIError(.forbidden, code: "forbidden", "Only coaches and admins may export conversations.")
        }
        let format = request.uri.queryParameters["format"].map(String.init) ?? "json"
        guard format == "json" || format == "pdf" else {
            throw APIError.badRequest("invalid_format", "format must be json or pdf.")
        }
        let id = try ClientIdentifier.check(try context.parameters.require("id"), field: "thread_id")
        let visible: Bool
        let thread = try engine.chats.thread(id: id)
        if let thread, thread.assistant == Self.assistant {
            // A coach sees the threads of their own courses (every course when the token names none).
            visible = caller.role.mayAdminister || caller.courseIDs.map { courses in thread.courseID.map(courses.contains) ?? false } ?? true
        } else {
            visible = false
        }
        guard let thread, visible else {
            throw APIError.notFound("thread_not_found", "There is no coaching thread \(id) in your courses.")
        }
        let messages = try engine.chats.recentMessages(threadID: thread.id, limit: 1_000_000)
        let courseTitle = try thread.courseID.flatMap { try engine.chats.course(id: $0) }?.title
        let export = ThreadExport(thread: thread, messages: messages, courseTitle: courseTitle, exportedBy: caller.userID, exportedAt: Date())
        _ = try engine.chats.recordAudit(AuditEntry(action: .threadExport, userID: thread.userID, threadID: thread.id,
                                                    details: AuditEntry.details(["format": .string(format), "messages": .int(export.messages.count)])))
        let data = format == "pdf" ? export.pdf() : try export.json()
        var headers = HTTPFields()
        headers[.contentType] = format == "pdf" ? "application/pdf" : "application/json; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"thread-\(thread.id).\(format)\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: data)))
    }
}
