import GriotChat
import GriotStore
import Hummingbird

/// An assistant's own HTTP routes, under `/api/<group>`, with the rows of `AccessPolicy`'s table
/// that admit callers to them. `GriotService` adds every assistant's routes from one list
/// (`GriotService.assistantRoutes`), and `AccessPolicy.rules` is the core rows plus each
/// assistant's, assembled once: still one table, enforced in one place (`AccessMiddleware`).
///
/// ```swift
/// struct RecallRoutes: AssistantRoutes {
///     static let group = "recall"
///     static let accessRows: [String: AccessPolicy.Row] = ["POST /api/recall/links": .init(.signedIn, .heavy)]
///     init(_ services: AssistantRouteServices) { engine = services.engine }
///     func add(to router: RouterGroup<GriotRequestContext>) { router.post("links", use: save) }
/// }
/// ```
protocol AssistantRoutes: Sendable {
    /// The path segment under `/api` its routes live in ("griot", "coach").
    static var group: String { get }
    /// "METHOD /path" (the router's form, `{id}` for a parameter) → who may call it and its cost,
    /// for each of its routes.
    static var accessRows: [String: AccessPolicy.Row] { get }
    init(_ services: AssistantRouteServices)
    /// Adds its routes to `router`, the `/api/<group>` group.
    func add(to router: RouterGroup<GriotRequestContext>)
}

/// What an assistant's routes are made with: the service's engine, turns and limits, and the
/// observer that records its turns' metrics.
struct AssistantRouteServices: Sendable {
    let service: GriotService
    let observer: TurnMetricsObserver

    var engine: ChatEngine { service.engine }
    var turns: TurnRegistry { service.turns }
    var limiter: any RateLimiter { service.limiter }
}

extension GriotService {
    /// Every assistant's routes, in one list: each adds its routes under `/api/<group>`, and its
    /// rows join `AccessPolicy.rules`. A new assistant's routes are one more entry here.
    static let assistantRoutes: [any AssistantRoutes.Type] = [GriotRoutes.self, CoachRoutes.self, StorytellerRoutes.self]
}
