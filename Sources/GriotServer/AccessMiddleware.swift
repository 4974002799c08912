import Foundation
import GriotAuth
import GriotStore
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Applies `AccessPolicy` to every route, in one place: looks up the route's row, verifies the
/// bearer token when the rule needs one (401 saying what was wrong with it), spends the
/// request from the caller's budget for the route's cost class (429 with `Retry-After` past it:
/// per user once the token is verified, per client address on the routes without one), and lets
/// the request through only when the rule admits the caller, with what it admitted in
/// `context.grant`. A route with no row is refused (fail closed).
///
/// The budget is spent before the rule does any database work, so a caller over their limit
/// costs the node a token check (for an API key, one read of the key) and nothing more.
///
/// A bearer token that begins `griot_` is a service's API key (`APIKey`), not a JWT: it is
/// looked up in the key store on every request (so a revoked key stops at once, on every node)
/// and stands for a caller `key:<id>` with the key's role, families and courses, under the
/// same table. Being its own caller, a key has its own budgets; a key with
/// `requests_per_minute` also has its own chat message limit (`KeyChatLimits`).
///
/// With regions configured (`RegionalChatStore`), it resolves the caller's region (the token's
/// `region` claim, the key's region, else the node's default) and runs the rest of the request
/// in it (`Residency.region`), so the caller's conversations are written to and read from that
/// region's database; a caller of a region this node keeps no database for is refused here,
/// 403 `region_unavailable`, before anything is read or written for them.
///
/// It also binds the request's `AuditContext` (the caller and the salted hash of their IP
/// address), so every message the request writes, down to the streamed reply, is audited with
/// them.
struct AccessMiddleware: RouterMiddleware {
    typealias Context = GriotRequestContext
    let verifier: TokenVerifier
    let addresses: AddressHasher
    let policy: AccessPolicy
    let limiter: RouteLimiter
    let trustedProxies: Set<String>
    /// The message limiters of keys with their own `requests_per_minute`, one per limit.
    let keyChatLimits = KeyChatLimits()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Not a route (the router answers 404 itself).
        guard let path = context.endpointPath else { return try await next(request, context) }
        guard let row = AccessPolicy.rules["\(request.method.rawValue) \(path)"] else {
            throw APIError(.internalServerError, code: "no_access_rule",
                           "\(request.method.rawValue) \(path) has no row in AccessPolicy.rules, so nobody may call it; add one.")
        }
        let client = ForwardedClient.address(socket: context.remoteAddress?.ipAddress, forwardedFor: request.headers[ForwardedClient.header],
                                             trusted: trustedProxies)
        guard row.rule.needsToken else {
            let ticket = try limiter.admit(row.cost, key: .address(client ?? "unknown"))
            defer { limiter.release(ticket) }
            return try await next(request, context)
        }
        var context = context
        var request = request
        let token: String
        do { token = try BearerToken(authorizationHeader: request.headers[.authorization]).token } catch { throw Self.unauthorized(error) }
        let caller: Caller
        var key: APIKey?
        if token.hasPrefix(APIKey.prefix) {
            let found = try await self.key(token, logger: context.logger)
            (caller, key) = (Self.caller(found), found)
        } else {
            do { caller = try await verifier.verify(token) } catch { throw Self.unauthorized(error) }
        }
        context.caller = caller
        context.logger[metadataKey: "user_id"] = .string(caller.userID)
        let ticket = try limiter.admit(row.cost, key: .user(caller.userID))
        defer { limiter.release(ticket) }
        let region = try Self.region(of: caller, on: policy.chats as? RegionalChatStore)
        if let region { context.logger[metadataKey: "region"] = .string(region) }
        let audit = AuditContext(actorID: caller.userID, ipHash: client.map(addresses.hash))
        let chatLimiter = try key?.requestsPerMinute.map { try keyChatLimits.limiter(perMinute: $0, chats: policy.chats) }
        return try await Residency.$region.withValue(region) {
            try await KeyChatLimits.$current.withValue(chatLimiter) {
                try await AuditContext.$current.withValue(audit) {
                    context.grant = try await policy.admit(row.rule, caller: caller, request: &request, context: context)
                    return try await next(request, context)
                }
            }
        }
    }

    /// The region the caller's conversations live in on a node with regions (nil without: one
    /// database, as before), or 403 `region_unavailable` naming it and the regions served here.
    static func region(of caller: Caller, on chats: RegionalChatStore?) throws -> String? {
        guard let chats else { return nil }
        let region = caller.region ?? chats.defaultRegion
        guard chats.serves(region) else {
            let refusal = RegionUnavailable(region: region, served: chats.regionNames)
            throw APIError(.forbidden, code: "region_unavailable", refusal.description,
                           details: ["region": region, "served_regions": chats.regionNames.joined(separator: ",")])
        }
        return region
    }

    /// The key a `griot_` bearer token names, in force now, with its use recorded (at most once
    /// a minute); or 401 `invalid_token` saying whether it is unknown, revoked or expired, and what to do.
    private func key(_ token: String, logger: Logger, now: Date = Date()) async throws -> APIKey {
        let unknown = Self.unauthorized(AuthError(.unknownKey, """
            the API key is not one this server knows; check that it was copied whole (griot_<id>_<secret>), \
            or ask an admin for a new one (griot keys create, or POST /api/admin/keys)
            """), reason: "unknownKey")
        guard let (id, secret) = APIKey.parse(token) else { throw unknown }
        let stored: APIKey?
        do {
            stored = try await policy.chats.apiKey(id: id)
        } catch {
            logger.error("could not read API key \(id): \(error)")
            throw APIError(.serviceUnavailable, code: "key_check_failed",
                           "The API key could not be checked: the database did not answer. Try again in a moment.", headers: [.retryAfter: "1"])
        }
        guard let key = stored, key.matches(secret: secret) else { throw unknown }
        switch key.standing(at: now) {
        case .active: break
        case .revoked(let at):
            throw Self.unauthorized(AuthError(.invalidClaims, "the API key \(key.id) was revoked at \(at.formatted(.iso8601)); ask an admin for a new one"),
                                    reason: "revokedKey")
        case .expired(let at):
            throw Self.unauthorized(AuthError(.expired, "the API key \(key.id) expired at \(at.formatted(.iso8601)); ask an admin for a new one"),
                                    reason: "expiredKey")
        }
        if key.needsUseRecorded(at: now) {
            // A lost write only leaves the list's "last used" behind; the request goes on.
            do { try await policy.chats.recordAPIKeyUse(id: key.id, at: now) } catch { logger.warning("could not record the use of API key \(key.id): \(error)") }
        }
        return key
    }

    /// 401 for a refused bearer token: `unauthenticated` when there was none, else `invalid_token`,
    /// with the reason (`reason` in place of the JWT's, for a key) and the challenge.
    static func unauthorized(_ error: AuthError, reason: String? = nil) -> APIError {
        let code = error.reason == .missingToken ? "unauthenticated" : "invalid_token"
        return APIError(.unauthorized, code: code, error.message, details: ["reason": reason ?? error.reason.rawValue],
                        headers: [.wwwAuthenticate: error.challenge])
    }

    /// What a key stands for: the caller `key:<id>` with its role, families and courses (none:
    /// it names none, as a token without `course_ids`), until it expires.
    static func caller(_ key: APIKey) -> Caller {
        Caller(userID: "key:\(key.id)", role: CallerRole(rawValue: key.role) ?? .client, familyGroupIDs: key.families,
               courseIDs: key.courses.isEmpty ? nil : key.courses, expiresAt: key.expiresAt ?? .distantFuture, region: key.region)
    }
}

/// The chat message limit of a key made with `requests_per_minute`: its own N a minute, counted
/// in the database like everyone's (so across the fleet), in place of the service's per-minute
/// and per-day limits. Bound for the request by `AccessMiddleware`; `RateLimiter.check` counts
/// the message with it when one is bound.
final class KeyChatLimits: Sendable {
    /// The limiter of the request's key, when it has its own limit.
    @TaskLocal static var current: (any RateLimiter)?

    private let limiters = Mutex<[Int: any RateLimiter]>([:])

    /// One limiter per distinct limit, made once (a SQLite limiter checks the schema when made).
    func limiter(perMinute count: Int, chats: any ChatStore) throws -> any RateLimiter {
        if let made = limiters.withLock({ $0[count] }) { return made }
        let made = try chats.rateLimiter([.perMinute(count)])
        return limiters.withLock { limiters in
            if let earlier = limiters[count] { return earlier }
            limiters[count] = made
            return made
        }
    }
}
