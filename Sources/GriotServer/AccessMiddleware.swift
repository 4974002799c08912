import GriotAuth
import GriotStore
import Hummingbird

/// Applies `AccessPolicy` to every route, in one place: looks up the route's rule, verifies the
/// bearer token when the rule needs one (401 saying what was wrong with it), and lets the
/// request through only when the rule admits the caller, with what it admitted in
/// `context.grant`. A route with no rule is refused (fail closed).
///
/// It also binds the request's `AuditContext` (the caller and the salted hash of their IP
/// address), so every message the request writes, down to the streamed reply, is audited with
/// them.
struct AccessMiddleware: RouterMiddleware {
    typealias Context = GriotRequestContext
    let verifier: TokenVerifier
    let addresses: AddressHasher
    let policy: AccessPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Not a route (the router answers 404 itself).
        guard let path = context.endpointPath else { return try await next(request, context) }
        guard let rule = AccessPolicy.rules["\(request.method.rawValue) \(path)"] else {
            throw APIError(.internalServerError, code: "no_access_rule",
                           "\(request.method.rawValue) \(path) has no row in AccessPolicy.rules, so nobody may call it; add one.")
        }
        guard rule.needsToken else { return try await next(request, context) }
        var context = context
        var request = request
        do {
            context.caller = try await verifier.verify(authorizationHeader: request.headers[.authorization])
        } catch {
            let code = error.reason == .missingToken ? "unauthenticated" : "invalid_token"
            throw APIError(.unauthorized, code: code, error.message, details: ["reason": error.reason.rawValue],
                           headers: [.wwwAuthenticate: error.challenge])
        }
        context.logger[metadataKey: "user_id"] = .string(context.caller?.userID ?? "")
        let audit = AuditContext(actorID: context.caller?.userID, ipHash: addresses.hash(context.remoteAddress))
        return try await AuditContext.$current.withValue(audit) {
            context.grant = try await policy.admit(rule, caller: context.caller, request: &request, context: context)
            return try await next(request, context)
        }
    }
}
