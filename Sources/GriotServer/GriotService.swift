import Foundation
import GriotArchive
import GriotStore
import GriotAuth
import GriotChat
import GriotImages
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// The HTTP service: every route, its middleware, and the application that serves them.
///
/// ```swift
/// let app = GriotService(engine: engine, verifier: verifier).application(host: "127.0.0.1", port: 8080)
/// try await app.runService()      // until SIGTERM or SIGINT; in-flight streams finish first
/// ```
public struct GriotService: Sendable {
    public let engine: ChatEngine
    public let verifier: TokenVerifier
    /// Running and recent turns, for stop and for resuming streams; with a `StreamFleet`, also
    /// those of the other nodes on the database (`TurnRegistry`).
    public let turns: TurnRegistry
    public let metrics: ServiceMetrics
    /// Messages per user: 30 a minute and 300 a day unless told otherwise; shared by every node
    /// through the database.
    public let limiter: any RateLimiter
    /// Requests of each cost class per user (per address without a token), on this node.
    public let routeLimiter: RouteLimiter
    /// Hashes client addresses for the audit log.
    public let addresses: AddressHasher
    /// Set when a graceful shutdown begins.
    public let drain = DrainState()
    /// Keeps the node's index current with the database's change log.
    public let follower: IndexFollower
    /// The load balancers whose `X-Forwarded-For` names the client (`ForwardedClient`).
    public let trustedProxies: Set<String>
    /// Writes the dashboard's rollup as turns finish and requests are refused (`TurnRollupRecorder`).
    public let rollups: TurnRollupRecorder
    /// The node's configuration, which a promotion from the console runs its evals under (nil: the environment's).
    public let configuration: GriotConfiguration?
    /// Where review tickets are posted (`GRIOT_REVIEW_WEBHOOK_URL`); nil: they wait in the outbox.
    public let reviewWebhook: ReviewWebhook?
    /// The storyteller's drawings: the same folder the engine's storyteller reads them from.
    public let drawings: DrawingBlobStore

    public init(engine: ChatEngine, verifier: TokenVerifier, turns: TurnRegistry? = nil, fleet: StreamFleet? = nil, metrics: ServiceMetrics = ServiceMetrics(),
                limits: [RateLimit] = RateLimit.defaults, routeLimits: RouteLimits = .defaults, addresses: AddressHasher = .ephemeral(),
                trustedProxies: Set<String> = [], reviewWebhook: ReviewWebhook? = nil, configuration: GriotConfiguration? = nil) throws {
        self.engine = engine
        drawings = try Self.drawings(of: engine, configuration: configuration)
        self.configuration = configuration
        self.reviewWebhook = reviewWebhook
        self.trustedProxies = trustedProxies
        self.addresses = addresses
        self.verifier = verifier
        self.turns = turns ?? TurnRegistry(fleet: fleet)
        self.metrics = metrics
        let rollups = TurnRollupRecorder(chats: engine.chats, node: self.turns.fleet?.nodeID ?? ProcessInfo.processInfo.hostName)
        self.rollups = rollups
        self.limiter = CountingRateLimiter(base: try engine.chats.rateLimiter(limits), rollups: rollups)
        self.routeLimiter = RouteLimiter(limits: routeLimits) { rollups.refused() }
        self.follower = IndexFollower(archive: engine.archive)
        engine.checkpoints.observeLag { [metrics] lags in metrics.autosaveLag(lags) }
    }

    public func router() -> Router<GriotRequestContext> {
        let router = Router(context: GriotRequestContext.self)
        // First, so that it sees every response, the errors the next one writes included.
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        router.add(middleware: DrainMiddleware(state: drain))
        // Who may call each route, and how often, is decided here, for every route, from one table.
        router.add(middleware: AccessMiddleware(verifier: verifier, addresses: addresses, policy: AccessPolicy(chats: engine.chats), limiter: routeLimiter,
                                               trustedProxies: trustedProxies))
        HealthRoutes(engine: engine, metrics: metrics, drain: drain, follower: follower).add(to: router)
        let observer = TurnMetricsObserver(metrics: metrics, counters: engine.counters, rollups: rollups)
        let api = router.group("api")
        // Each assistant's own routes, from one list (`assistantRoutes`), whose rows `AccessPolicy` holds.
        let services = AssistantRouteServices(service: self, observer: observer)
        for routes in Self.assistantRoutes { routes.init(services).add(to: api.group(RouterPath(routes.group))) }
        StoryRoutes(archive: engine.archive).add(to: api.group("stories"))
        AdminRoutes(chats: engine.chats, turns: turns, drawings: drawings).add(to: api)
        OpsRoutes(engine: engine, configuration: configuration).add(to: api.group("ops"))
        DashboardRoutes(engine: engine, follower: follower, drain: drain).add(to: api.group("ops"))
        let reviews = ReviewRoutes(engine: engine)
        reviews.addOps(to: api.group("ops"))
        reviews.addReports(to: api)
        SupportGrantRoutes(engine: engine).add(to: api.group("support-grants"))
        KeyRoutes(chats: engine.chats).add(to: api.group("admin/keys"))
        V1Routes(engine: engine, turns: turns, observer: observer, limiter: limiter).add(to: router.group("v1"))
        WebPages.bundled.add(to: router)   // last: it answers only what no route matched (/chat, /assets/…)
        return router
    }

    /// The service with its scheduled jobs. `interruptedAfter`: see `MaintenanceService`.
    public func application(host: String, port: Int, interruptedAfter: Double = 90, logger: Logger? = nil) -> some ApplicationProtocol {
        let logger = logger ?? Self.defaultLogger
        let jobs = MaintenanceService(chats: engine.chats, interruptedAfter: interruptedAfter, logger: logger)
        var services: [any Service] = [jobs, follower]
        if let fleet = turns.fleet {
            services.append(StreamNodeService(fleet: fleet, turns: turns, jobs: engine.chats, logger: logger))
        }
        if let reviewWebhook {
            services.append(ReviewDeliveryService(chats: engine.chats, scrubber: engine.safety.scrubber, webhook: reviewWebhook, logger: logger))
        }
        return Application(router: router(), server: Self.server, configuration: .init(address: .hostname(host, port: port), serverName: "griot"),
                           services: services, logger: logger)
    }

    /// HTTP/1.1 with a body that says what to do when a request cannot be parsed (headers or URL
    /// over 80 KB get 431), instead of an empty 400.
    public static var server: HTTPServerBuilder {
        .http1(configuration: .init(additionalChannelHandlers: [MalformedRequestResponder()]))
    }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully: new chats get 503, running
    /// replies have `shutdownGrace` to finish and are then stopped and stored as interrupted,
    /// and only then does the server close.
    public func run(host: String, port: Int, interruptedAfter: Double = 90, shutdownGrace: Duration = .seconds(20),
                    logger: Logger? = nil) async throws {
        let logger = logger ?? Self.defaultLogger
        let drainer = StreamDrainService(turns: turns, chats: engine.chats, state: drain, grace: shutdownGrace, logger: logger)
        // A group shuts its services down last to first: the drainer hears of it before the server.
        let group = ServiceGroup(configuration: .init(
            services: [application(host: host, port: port, interruptedAfter: interruptedAfter, logger: logger), drainer],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    static var defaultLogger: Logger {
        var logger = Logger(label: "griot")
        logger.logLevel = .info
        return logger
    }
}

extension GriotService {
    /// The drawings' folder of the engine's storyteller, or the configured one when the engine
    /// declares none (its routes then store drawings there, and stories are told without them).
    static func drawings(of engine: ChatEngine, configuration: GriotConfiguration?) throws -> DrawingBlobStore {
        if case .source(let source)? = engine.assistants[StorytellerRoutes.assistant]?.retrieval, let drawings = source as? DrawingPassageSource {
            return drawings.blobs
        }
        return DrawingBlobStore(folder: StorytellerSetup.drawingsFolder(configuration: try configuration ?? GriotConfiguration.load()))
    }
}

