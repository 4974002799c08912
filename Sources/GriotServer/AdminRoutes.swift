import Foundation
import GriotAuth
import GriotImages
import GriotStore
import Hummingbird

/// The audit log for admins, and erasure of a user's chat data (GDPR).
struct AdminRoutes: Sendable {
    let chats: any ChatStore
    let turns: TurnRegistry
    /// The storyteller's drawings, whose files an erasure removes.
    var drawings: DrawingBlobStore? = nil

    func add(to router: RouterGroup<GriotRequestContext>) {
        router.get("audit", use: audit)
        router.delete("users/:id", use: eraseUser)
        router.get("messages/:id/retained", use: retained)
    }

    struct RetainedPage: ResponseEncodable {
        var texts: [RetainedTextItem]
    }

    /// The texts kept from a message's delete or edits, for moderation review: admins only (the
    /// access table says so), and every read leaves a `retained_text.read` audit entry.
    @Sendable func retained(_ request: Request, context: GriotRequestContext) async throws -> RetainedPage {
        let caller = try context.requireCaller()
        let messageID = try context.parameters.require("id")
        return await RetainedPage(texts: try chats.readRetainedTexts(messageID: messageID, by: caller.userID))
    }

    struct AuditItem: Encodable {
        var id: Int64
        var at: Date
        var action: String
        var userID: String?
        var actorID: String?
        var threadID: String?
        var messageID: String?
        var ipHash: String?
        var moderation: String?
        var details: String?
    }

    struct AuditPage: ResponseEncodable {
        var entries: [AuditItem]
        /// The `offset` of the next page; absent on the last one.
        var nextOffset: Int?
    }

    /// Audit entries, newest first, filtered by `user_id`, `actor_id`, `thread_id`, `message_id`,
    /// `action` (comma-separated), `since` and `until` (ISO 8601); `limit` (1–1,000, default 100) and `offset` page.
    @Sendable func audit(_ request: Request, context: GriotRequestContext) async throws -> AuditPage {
        let query = QueryReader(request)
        let limit = try query.number("limit", default: 100, range: 1...1_000)
        let offset = try query.number("offset", default: 0, range: 0...10_000_000)
        let actions = query.text("action").map { $0.split(separator: ",").map { AuditAction(String($0).trimmingCharacters(in: .whitespaces)) } } ?? []
        let filter = AuditFilter(userID: query.text("user_id"), actorID: query.text("actor_id"), threadID: query.text("thread_id"), messageID: query.text("message_id"),
                                 actions: actions, since: try query.date("since"), until: try query.date("until"), limit: limit + 1, offset: offset)
        let entries = try await chats.auditEntries(filter)
        let items = entries.prefix(limit).map {
            AuditItem(id: $0.id ?? 0, at: $0.at, action: $0.action.rawValue, userID: $0.userID, actorID: $0.actorID, threadID: $0.threadID,
                      messageID: $0.messageID, ipHash: $0.ipHash, moderation: $0.moderation, details: $0.details)
        }
        return AuditPage(entries: Array(items), nextOffset: entries.count > limit ? offset + limit : nil)
    }

    struct ErasureReply: ResponseEncodable {
        var userID: String
        var erased: RetentionCounts
    }

    /// Erases everything the chat store holds about a user (their threads, messages, turns,
    /// profile, rate-limit rows and audit entries) in one transaction. The user themself or an admin.
    @Sendable func eraseUser(_ request: Request, context: GriotRequestContext) async throws -> ErasureReply {
        let caller = try context.requireCaller()
        let userID = try context.parameters.require("id")
        // Replies still streaming would write into the erased threads; stop them first.
        for turn in await turns.runningTurns(owner: userID) {
            turn.stop()
            await turn.finished()
        }
        // The files of the user's drawings (the storyteller's) go once no drawing names them: their
        // hashes are read before the rows go, and those no other parent's drawing names are removed.
        let storyteller = chats as? any StorytellerStore
        let hashes = try await storyteller?.drawingHashes(parentID: userID) ?? []
        let counts = try await chats.purgeUser(userID: userID, by: caller.userID)
        if let storyteller, let drawings, !hashes.isEmpty {
            for hash in try await storyteller.unreferencedHashes(hashes) {
                do { try drawings.remove(hash) } catch { context.logger.warning("An erased user's drawing file could not be removed", metadata: ["error": "\(error)"]) }
            }
        }
        return ErasureReply(userID: userID, erased: counts)
    }
}
