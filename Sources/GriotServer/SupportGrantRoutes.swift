import Foundation
import GriotChat
import GriotStore
import Hummingbird

/// A story owner's support grants: operators read the owner's private and family-only stories
/// in full (instead of masked excerpts) while one is in force. The owner creates one for some
/// hours, sees each grant with every read made under it, and can end it at once.
struct SupportGrantRoutes: Sendable {
    let engine: ChatEngine

    func add(to router: RouterGroup<GriotRequestContext>) {
        router.post(use: create)
        router.get(use: list)
        router.delete(":id", use: revoke)
    }

    struct CreateBody: Decodable {
        var hours: Double?
        var storyIDs: [String]?

        enum CodingKeys: String, CodingKey {
            case hours
            case storyIDs = "story_ids"
        }
    }

    /// One read an operator made under a grant.
    struct Read: Encodable {
        var at: Date
        var actorID: String?
        var storyID: String?
    }

    struct Item: ResponseEncodable {
        var id: String
        var ownerUserID: String
        /// Nil: every story the owner has.
        var storyIDs: [String]?
        var createdAt: Date
        var expiresAt: Date
        var revokedAt: Date?
        var active: Bool
        var reads: [Read]
    }

    struct Page: ResponseEncodable {
        var grants: [Item]
    }

    static let shape = #"{"hours": 24, "story_ids": ["<one of your stories>"]}"#

    /// Creates a grant for `hours` (default 24, at most 168) over `story_ids` (default: all of
    /// the caller's stories); 201 with the grant.
    @Sendable func create(_ request: Request, context: GriotRequestContext) async throws -> EditedResponse<Item> {
        let caller = try context.requireCaller()
        let body = try await request.decodeJSON(as: CreateBody.self, context: context, shape: Self.shape)
        let hours = body.hours ?? 24
        guard hours.isFinite, hours > 0, hours * 3600 <= SupportGrant.longest else {
            throw APIError.badRequest("invalid_hours", "hours must be more than 0 and at most \(Int(SupportGrant.longest / 3600)) (a week); a grant always ends.")
        }
        if let stories = body.storyIDs {
            guard !stories.isEmpty, stories.count <= 200 else {
                throw APIError.badRequest("invalid_story_ids", "story_ids lists 1 to 200 of your stories; leave it out to cover all of them.")
            }
            for id in stories {
                guard try await engine.archive.store.story(id: id)?.ownerUserID == caller.userID else {
                    throw APIError.badRequest("story_not_yours", "You own no story \(id.prefix(80)); a grant covers only your own stories.")
                }
            }
        }
        let now = Date()
        let grant = try await engine.chats.createSupportGrant(SupportGrant(
            ownerUserID: caller.userID, stories: body.storyIDs, createdAt: now, expiresAt: now.addingTimeInterval(hours * 3600)))
        try await engine.chats.recordAudit(AuditEntry(
            action: .supportGrantCreate, userID: caller.userID,
            details: AuditEntry.details(["grant_id": .string(grant.id), "hours": .string(String(format: "%g", hours)),
                                         "stories": .string(body.storyIDs.map { String($0.count) } ?? "all")])))
        return await EditedResponse(status: .created, response: try item(grant))
    }

    /// The caller's grants, newest first, expired and revoked ones included, each with its reads.
    @Sendable func list(_ request: Request, context: GriotRequestContext) async throws -> Page {
        let caller = try context.requireCaller()
        var items: [Item] = []
        for grant in try await engine.chats.supportGrants(ownerUserID: caller.userID) { items.append(try await item(grant)) }
        return Page(grants: items)
    }

    /// Ends a grant now; 200 with the grant as it stands.
    @Sendable func revoke(_ request: Request, context: GriotRequestContext) async throws -> Item {
        guard let grant = context.grant.supportGrant,
              let revoked = try await engine.chats.revokeSupportGrant(id: grant.id) else {
            throw APIError(.internalServerError, code: "internal_error", "The route's access rule admitted no grant; report this.")
        }
        try await engine.chats.recordAudit(AuditEntry(action: .supportGrantRevoke, userID: grant.ownerUserID,
                                                details: AuditEntry.details(["grant_id": .string(grant.id)])))
        return try await item(revoked)
    }

    private func item(_ grant: SupportGrant) async throws -> Item {
        let entries = try await engine.chats.auditEntries(AuditFilter(userID: grant.ownerUserID, actions: [.storyRead], limit: 1_000))
        let reads = entries.compactMap { entry -> Read? in
            guard let details = entry.details, let object = try? JSONSerialization.jsonObject(with: Data(details.utf8)) as? [String: Any],
                  object["grant_id"] as? String == grant.id else { return nil }
            return Read(at: entry.at, actorID: entry.actorID, storyID: object["story_id"] as? String)
        }
        return Item(id: grant.id, ownerUserID: grant.ownerUserID, storyIDs: grant.stories, createdAt: grant.createdAt,
                    expiresAt: grant.expiresAt, revokedAt: grant.revokedAt, active: grant.isActive(at: Date()), reads: reads)
    }
}
