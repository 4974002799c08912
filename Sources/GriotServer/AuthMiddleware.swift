import GriotAuth
import GriotStore
import Hummingbird

/// Requires a valid bearer token on every route it guards and puts the caller in the context.
/// A missing, malformed, expired or wrongly signed token is a 401 that says which.
///
/// It also binds the request's `AuditContext` (the caller and the salted hash of their IP
/// address), so every message the request writes, down to the streamed reply, is audited with
/// them.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = GriotRequestContext
    let verifier: TokenVerifier
    let addresses: AddressHasher

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        do {
            context.caller = try await verifier.verify(authorizationHeader: request.headers[.authorization])
        } catch {
            let code = error.reason == .missingToken ? "unauthenticated" : "invalid_token"
            throw APIError(.unauthorized, code: code, error.message, details: ["reason": error.reason.rawValue],
                           headers: [.wwwAuthenticate: error.challenge])
        }
        context.logger[metadataKey: "user_id"] = .string(context.caller?.userID ?? "")
        let audit = AuditContext(actorID: context.caller?.userID, ipHash: addresses.hash(context.remoteAddress))
        return try await AuditContext.$current.withValue(audit) { try await next(request, context) }
    }
}
