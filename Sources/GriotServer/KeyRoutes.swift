import Foundation
import GriotAuth
import GriotStore
import Hummingbird

/// Admins' API keys for services: made (the secret is in the reply once, and never again),
/// listed without secrets, and revoked. A service sends its key as `Authorization: Bearer
/// griot_…`, and `AccessMiddleware` treats it as a caller with the key's role, families and
/// courses. Making and revoking a key are audited with the admin as actor.
///
/// ```sh
/// curl -X POST /api/admin/keys -d '{"name": "nightly export", "role": "coach", "course_ids": ["course-7"], "expires_at": "2027-03-01T00:00:00Z"}'
/// ```
struct KeyRoutes: Sendable {
    let chats: any ChatStore

    func add(to router: RouterGroup<GriotRequestContext>) {
        router.post(use: create)
        router.get(use: list)
        router.delete(":id", use: revoke)
    }

    struct CreateBody: Decodable {
        var name: String?
        var role: String?
        var familyIDs: [String]?
        var courseIDs: [String]?
        var expiresAt: String?
        var requestsPerMinute: Int?
        var region: String?

        enum CodingKeys: String, CodingKey {
            case name, role, region
            case familyIDs = "family_ids"
            case courseIDs = "course_ids"
            case expiresAt = "expires_at"
            case requestsPerMinute = "requests_per_minute"
        }
    }

    /// A key as the admins see it: everything but the secret, which is in `key` in the reply to
    /// its making and nowhere else.
    struct Item: ResponseEncodable {
        var id: String
        var key: String?
        var name: String
        var role: String
        var familyIDs: [String]
        var courseIDs: [String]
        /// Nil: the service's chat limits.
        var requestsPerMinute: Int?
        var createdAt: Date
        var expiresAt: Date?
        var lastUsedAt: Date?
        var revokedAt: Date?
        /// Nil: the node's default region.
        var region: String?

        init(_ stored: APIKey, secret: String? = nil) {
            (id, key, name, role, familyIDs, courseIDs) = (stored.id, secret, stored.name, stored.role, stored.families, stored.courses)
            (requestsPerMinute, createdAt, expiresAt) = (stored.requestsPerMinute, stored.createdAt, stored.expiresAt)
            (lastUsedAt, revokedAt, region) = (stored.lastUsedAt, stored.revokedAt, stored.region)
        }

        enum CodingKeys: String, CodingKey {
            case id, key, name, role, region
            case familyIDs = "family_ids", courseIDs = "course_ids", requestsPerMinute = "requests_per_minute"
            case createdAt = "created_at", expiresAt = "expires_at", lastUsedAt = "last_used_at", revokedAt = "revoked_at"
        }

        // Written out so that an unset date is `null` rather than missing, and a listed key has no `key` at all.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encodeIfPresent(key, forKey: .key)
            try container.encode(name, forKey: .name)
            try container.encode(role, forKey: .role)
            try container.encode(familyIDs, forKey: .familyIDs)
            try container.encode(courseIDs, forKey: .courseIDs)
            try container.encode(requestsPerMinute, forKey: .requestsPerMinute)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(expiresAt, forKey: .expiresAt)
            try container.encode(lastUsedAt, forKey: .lastUsedAt)
            try container.encode(revokedAt, forKey: .revokedAt)
            try container.encode(region, forKey: .region)
        }
    }

    struct Page: ResponseEncodable {
        var keys: [Item]
    }

    static let shape = #"{"name": "nightly export", "role": "client|coach|admin|operator", "family_ids": ["fam-1"], "course_ids": ["course-7"], "expires_at": "2027-01-01T00:00:00Z", "requests_per_minute": 60, "region": "eu"}"#
    /// The most ids a key may list in `family_ids` or in `course_ids`.
    static let maximumIDs = 100

    /// Makes a key; 201 with it and its secret, which is not stored and cannot be shown again.
    @Sendable func create(_ request: Request, context: GriotRequestContext) async throws -> EditedResponse<Item> {
        let admin = try context.requireCaller()
        let body = try await request.decodeJSON(as: CreateBody.self, context: context, shape: Self.shape)
        let name = (body.name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(name.count) else {
            throw APIError.badRequest("invalid_name", "name is required: 1 to 100 characters that say what the key is for, e.g. \"nightly export\".")
        }
        guard let role = body.role.flatMap(CallerRole.init(rawValue:)) else {
            throw APIError.badRequest("invalid_role", "role is required: one of \(CallerRole.allCases.map(\.rawValue).joined(separator: ", ")), the role the key's requests have.")
        }
        let families = try Self.ids(body.familyIDs, field: "family_ids")
        let courses = try Self.ids(body.courseIDs, field: "course_ids")
        let now = Date()
        var expiresAt: Date?
        if let text = body.expiresAt {
            guard let date = try? Date(text, strategy: .iso8601) else {
                throw APIError.badRequest("invalid_expires_at", "expires_at must be an RFC 3339 time such as 2027-01-01T00:00:00Z, or left out for a key that lasts until revoked.")
            }
            guard date > now else {
                throw APIError.badRequest("invalid_expires_at", "expires_at \(text) is not in the future; give a later time, or leave it out for a key that lasts until revoked.")
            }
            expiresAt = date
        }
        if let limit = body.requestsPerMinute, !(1...100_000).contains(limit) {
            throw APIError.badRequest("invalid_requests_per_minute", "requests_per_minute must be a whole number from 1 to 100000, or left out for the service's chat limits.")
        }
        if let region = body.region, !Residency.isValidName(region) {
            throw APIError.badRequest("invalid_region", "region \"\(region.prefix(40))\" is not a region name: 1 to 32 lowercase letters, digits, - or _, beginning with a letter (e.g. eu); leave it out for the node's default region.")
        }
        let (key, token) = APIKey.make(name: name, role: role.rawValue, families: families, courses: courses, expiresAt: expiresAt,
                                       requestsPerMinute: body.requestsPerMinute, region: body.region, now: now)
        try await chats.createAPIKey(key)
        try await chats.recordAudit(AuditEntry(action: .apiKeyCreate, userID: "key:\(key.id)", actorID: admin.userID, details: Self.details(key)))
        return EditedResponse(status: .created, response: Item(key, secret: token))
    }

    /// Every key, newest first, revoked and expired ones included; never a secret.
    @Sendable func list(_ request: Request, context: GriotRequestContext) async throws -> Page {
        Page(keys: try await chats.apiKeys().map { Item($0) })
    }

    /// Revokes a key now: its next request is 401. 204; 404 when there is no such key. Revoking
    /// a revoked key changes nothing (and is not audited again).
    @Sendable func revoke(_ request: Request, context: GriotRequestContext) async throws -> HTTPResponse.Status {
        let admin = try context.requireCaller()
        let id = try context.parameters.require("id")
        guard let key = try await chats.apiKey(id: id) else {
            throw APIError.notFound("key_not_found", "There is no API key \(id.prefix(80)); GET /api/admin/keys lists their ids.")
        }
        if key.revokedAt == nil {
            try await chats.revokeAPIKey(id: id)
            try await chats.recordAudit(AuditEntry(action: .apiKeyRevoke, userID: "key:\(key.id)", actorID: admin.userID,
                                                   details: AuditEntry.details(["key_id": .string(key.id)])))
        }
        return .noContent
    }

    /// The audit's record of a new key: its id, role and limits, never its secret or name.
    static func details(_ key: APIKey) -> String {
        var values: [String: AuditEntry.DetailValue] = ["key_id": .string(key.id), "role": .string(key.role),
                                                        "families": .int(key.families.count), "courses": .int(key.courses.count)]
        if let expiresAt = key.expiresAt { values["expires_at"] = .string(expiresAt.formatted(.iso8601)) }
        if let limit = key.requestsPerMinute { values["requests_per_minute"] = .int(limit) }
        if let region = key.region { values["region"] = .string(region) }
        return AuditEntry.details(values)
    }

    /// A list of family or course ids as given (none when left out), or 400 saying what an id must be.
    private static func ids(_ values: [String]?, field: String) throws -> [String] {
        guard let values else { return [] }
        guard values.count <= maximumIDs else {
            throw APIError.badRequest("invalid_\(field)", "\(field) lists \(values.count) ids; a key may name at most \(maximumIDs).")
        }
        for value in values where value.isEmpty || value.count > 128 || value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw APIError.badRequest("invalid_\(field)", "\(field) holds \"\(value.prefix(40))\", which is not an id: each is 1 to 128 characters without control characters.")
        }
        var seen: Set<String> = []
        return values.filter { seen.insert($0).inserted }
    }
}
