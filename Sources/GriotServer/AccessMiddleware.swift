import GriotAuth
import GriotStore
import Hummingbird
import NIOCore

/// Applies `AccessPolicy` to every route, in one place: looks up the route's row, verifies the
/// bearer token when the rule needs one (401 saying what was wrong with it), spends the
/// request from the caller's budget for the route's cost class (429 with `Retry-After` past it:
/// per user once the token is verified, per client address on the routes without one), and lets
/// the request through only when the rule admits the caller, with what it admitted in
/// `context.grant`. A route with no row is refused (fail closed).
///
/// The budget is spent before the rule does any database work, so a caller over their limit
/// costs the node a token check and nothing more.
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
        let caller: Caller
        do {
            caller = try await verifier.verify(authorizationHeader: request.headers[.authorization])
        } catch {
            let code = error.reason == .missingToken ? "unauthenticated" : "invalid_token"
            throw APIError(.unauthorized, code: code, error.message, details: ["reason": error.reason.rawValue],
                           headers: [.wwwAuthenticate: error.challenge])
        }
        context.caller = caller
        context.logger[metadataKey: "user_id"] = .string(caller.userID)
        let ticket = try limiter.admit(row.cost, key: .user(caller.userID))
        defer { limiter.release(ticket) }
        let audit = AuditContext(actorID: caller.userID, ipHash: client.map(addresses.hash))
        return try await AuditContext.$current.withValue(audit) {
            context.grant = try await policy.admit(row.rule, caller: caller, request: &request, context: context)
            return try await next(request, context)
        }
    }
}
