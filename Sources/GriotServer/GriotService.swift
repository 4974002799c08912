import Foundation
import GriotStore
import GriotAuth
import GriotChat
import Hummingbird
import Logging

/// The HTTP service: every route, its middleware, and the application that serves them.
///
/// ```swift
/// let app = GriotService(engine: engine, verifier: verifier).application(host: "127.0.0.1", port: 8080)
/// try await app.runService()      // until SIGTERM or SIGINT; in-flight streams finish first
/// ```
public struct GriotService: Sendable {
    public let engine: ChatEngine
    public let verifier: TokenVerifier
    /// Running and recent turns, for stop and for resuming streams.
    public let turns: TurnRegistry
    public let metrics: ServiceMetrics
    /// Messages per user: 30 a minute and 300 a day unless told otherwise.
    public let limiter: RateLimiter

    public init(engine: ChatEngine, verifier: TokenVerifier, turns: TurnRegistry = TurnRegistry(), metrics: ServiceMetrics = ServiceMetrics(),
                limits: [RateLimit] = RateLimit.defaults) throws {
        self.engine = engine
        self.verifier = verifier
        self.turns = turns
        self.metrics = metrics
        self.limiter = try RateLimiter(writer: engine.chats.writer, limits: limits)
    }

    public func router() -> Router<GriotRequestContext> {
        let router = Router(context: GriotRequestContext.self)
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        HealthRoutes(engine: engine, metrics: metrics).add(to: router)
        let observer = TurnMetricsObserver(metrics: metrics, counters: engine.counters)
        let api = router.group("api").add(middleware: AuthMiddleware(verifier: verifier))
        GriotRoutes(engine: engine, turns: turns, observer: observer, limiter: limiter).add(to: api.group("griot"))
        StoryRoutes(archive: engine.archive).add(to: api.group("stories"))
        CoachRoutes(engine: engine, turns: turns, observer: observer, limiter: limiter).add(to: api.group("coach"))
        return router
    }

    /// The service with its scheduled jobs. `interruptedAfter`: see `MaintenanceService`.
    public func application(host: String, port: Int, interruptedAfter: Double = 90, logger: Logger? = nil) -> some ApplicationProtocol {
        var logger = logger ?? Logger(label: "griot")
        logger.logLevel = .info
        let jobs = MaintenanceService(chats: engine.chats, interruptedAfter: interruptedAfter, logger: logger)
        return Application(router: router(), configuration: .init(address: .hostname(host, port: port), serverName: "griot"),
                           services: [jobs], logger: logger)
    }
}
