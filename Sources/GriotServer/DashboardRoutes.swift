import Foundation
import GriotChat
import GriotProviders
import GriotStore
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The operators' live dashboard (`GET /api/ops/dashboard`, and its stream), read from the rollup
/// turns write as they finish (`TurnRollupStore`), never by scanning turns: turns a minute,
/// tokens by assistant and model, latency percentiles, errors by code, flags by category, crisis
/// replies, rate-limit refusals; with the breakers' states and the index's size. On a shared
/// database the figures are the fleet's.
///
/// ```swift
/// DashboardRoutes(engine: engine, follower: follower, drain: drain).add(to: api.group("ops"))
/// // GET /api/ops/dashboard?range=15m|1h|24h     GET /api/ops/dashboard/stream?range=1h
/// ```
struct DashboardRoutes: Sendable {
    let engine: ChatEngine
    let follower: IndexFollower
    let drain: DrainState
    /// How often a stream asks whether the figures changed.
    var poll: Duration = .milliseconds(500)
    var keepAlive: Duration = .seconds(15)
    var logger = Logger(label: "griot.dashboard")

    func add(to router: RouterGroup<GriotRequestContext>) {
        router.get("dashboard", use: dashboard)
        router.get("dashboard/stream", use: stream)
    }

    @Sendable func dashboard(_ request: Request, context: GriotRequestContext) async throws -> Dashboard {
        try await figures(DashboardRange(request), now: Date())
    }

    /// `event: dashboard` with the figures at once, then again whenever they change; a comment
    /// every `keepAlive`. Ends when the client hangs up or the server shuts down.
    @Sendable func stream(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let range = try DashboardRange(request)
        // The key before the figures: a turn finishing between the two is then sent again, not missed.
        let key = try? await changeKey(range, now: Date())
        let first = try await figures(range, now: Date())
        let closed = context.connectionClosed
        return Response(status: .ok, headers: TurnEventStream.headers, body: .init { writer in
            context.closeConnectionAfterResponse()
            try await DashboardStream(routes: self, range: range, first: first, key: key, closed: closed).write(to: &writer)
            try await writer.finish(nil)
        })
    }

    /// The dashboard of `range` ending now.
    func figures(_ range: DashboardRange, now: Date) async throws -> Dashboard {
        let last = range.resolution.bucketStart(now)
        let first = last - Int64(range.buckets - 1) * range.resolution.seconds
        let report = try await engine.chats.rollupReport(from: first, through: last, resolution: range.resolution)
        return Dashboard(range: range, report: report, first: first, last: last, now: now, shared: engine.chats.rollupIsShared,
                         breakers: await engine.breakers.snapshots(), index: await index())
    }

    func index() async -> Dashboard.Index {
        let stories = (try? await engine.archive.storyCount()) ?? 0
        var passages = try? await engine.archive.indexedPassageCount()
        if passages == nil { passages = try? await engine.archive.store.passageCount() }
        return Dashboard.Index(stories: stories, passages: passages ?? 0,
                               changePosition: engine.chats.rollupIsShared ? follower.position.applied : nil)
    }

    /// What, when it differs from the last look, means the figures changed: the rollup's recent
    /// activity (any node's new turn or refusal), the current bucket, the breakers and the index.
    func changeKey(_ range: DashboardRange, now: Date) async throws -> DashboardStream.Key {
        let minute = RollupResolution.minute.bucketStart(now)
        let activity = try await engine.chats.rollupActivity(since: minute - 3 * RollupResolution.minute.seconds)
        let breakers = await engine.breakers.snapshots().map { "\($0.name)=\($0.state.rawValue)" }
        let passages = try? await engine.archive.indexedPassageCount()
        return .init(activity: activity, bucket: range.resolution.bucketStart(now), breakers: breakers, passages: passages,
                     position: follower.position.applied)
    }
}

/// `range=15m|1h|24h` (1h when left out): 15 or 60 one-minute buckets, or 96 of a quarter hour.
struct DashboardRange: Sendable, Hashable {
    var name: String
    var resolution: RollupResolution
    var buckets: Int

    static let all: [DashboardRange] = [
        DashboardRange(name: "15m", resolution: .minute, buckets: 15),
        DashboardRange(name: "1h", resolution: .minute, buckets: 60),
        DashboardRange(name: "24h", resolution: .quarterHour, buckets: 96),
    ]

    init(name: String, resolution: RollupResolution, buckets: Int) {
        self.name = name
        self.resolution = resolution
        self.buckets = buckets
    }

    init(_ request: Request) throws {
        // `range=` with nothing is a range the dashboard does not keep, not the default.
        let name = request.uri.queryParameters.get("range") ?? "1h"
        guard let range = Self.all.first(where: { $0.name == name }) else {
            let shown = name.count > 40 ? "\(name.prefix(40))…" : name
            throw APIError(.badRequest, code: "invalid_range", "range \"\(shown)\" is not one the dashboard keeps; use 15m, 1h or 24h.",
                           details: ["allowed": "15m, 1h, 24h"], param: "range")
        }
        self = range
    }

    var minutes: Double { Double(buckets) * Double(resolution.rawValue) / 60 }
}

/// The dashboard's JSON (the console's contract, issue 37).
struct Dashboard: ResponseEncodable, Sendable {
    struct Totals: Encodable, Sendable {
        var turns: Int
        var turnsPerMinute: Double
        var tokensIn: Int
        var tokensOut: Int
        var errors: Int
        var errorRate: Double
        var flags: Int
        var crisis: Int
        var rateLimited: Int
    }

    struct Point: Encodable, Sendable {
        var at: Date
        var turns: Int
        var tokensIn: Int
        var tokensOut: Int
        var errors: Int
        var flags: Int
        var rateLimited: Int
        var firstTokenP50Ms: Double?
        var latencyP95Ms: Double?

        enum CodingKeys: String, CodingKey {
            case at, turns, tokensIn, tokensOut, errors, flags, rateLimited, firstTokenP50Ms, latencyP95Ms
        }

        /// Written out in full: a bucket without turns has null percentiles, not missing ones.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(at, forKey: .at)
            try container.encode(turns, forKey: .turns)
            try container.encode(tokensIn, forKey: .tokensIn)
            try container.encode(tokensOut, forKey: .tokensOut)
            try container.encode(errors, forKey: .errors)
            try container.encode(flags, forKey: .flags)
            try container.encode(rateLimited, forKey: .rateLimited)
            try container.encode(firstTokenP50Ms, forKey: .firstTokenP50Ms)
            try container.encode(latencyP95Ms, forKey: .latencyP95Ms)
        }
    }

    struct Usage: Encodable, Sendable {
        var assistant: String
        var model: String
        var turns: Int
        var tokensIn: Int
        var tokensOut: Int
    }

    struct Quantiles: Encodable, Sendable {
        var p50: Double?
        var p95: Double?

        enum CodingKeys: String, CodingKey { case p50, p95 }

        init(_ histogram: LatencyHistogram) {
            p50 = Dashboard.milliseconds(histogram.percentile(0.5))
            p95 = Dashboard.milliseconds(histogram.percentile(0.95))
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(p50, forKey: .p50)
            try container.encode(p95, forKey: .p95)
        }
    }

    struct Latency: Encodable, Sendable {
        var firstTokenMs: Quantiles
        var turnMs: Quantiles
    }

    struct ErrorCount: Encodable, Sendable {
        var code: String
        var count: Int
        var rate: Double
    }

    struct FlagCount: Encodable, Sendable {
        var category: String
        var count: Int
    }

    struct Breaker: Encodable, Sendable {
        var name: String
        /// closed, open or half_open.
        var state: String
    }

    struct Index: Encodable, Sendable {
        var stories: Int
        var passages: Int
        /// The story change log's last change this node's index holds, on a shared database.
        var changePosition: Int64?

        enum CodingKeys: String, CodingKey { case stories, passages, changePosition }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(stories, forKey: .stories)
            try container.encode(passages, forKey: .passages)
            try container.encode(changePosition, forKey: .changePosition)
        }
    }

    var range: String
    var from: Date
    var to: Date
    var bucketSeconds: Int
    /// "fleet" when every node of a shared database writes the rollup, else "node".
    var scope: String
    var nodes: [String]
    var totals: Totals
    var series: [Point]
    var tokens: [Usage]
    var latency: Latency
    var errors: [ErrorCount]
    var flags: [FlagCount]
    var breakers: [Breaker]
    var index: Index

    init(range: DashboardRange, report: RollupReport, first: Int64, last: Int64, now: Date, shared: Bool,
         breakers: [CircuitBreaker.Snapshot], index: Index) {
        let total = report.total
        self.range = range.name
        from = Date(timeIntervalSince1970: TimeInterval(first))
        to = now
        bucketSeconds = range.resolution.rawValue
        scope = shared ? "fleet" : "node"
        nodes = report.nodes
        let rate = { (count: Int) in total.turns == 0 ? 0 : Double(count) / Double(total.turns) }
        totals = Totals(turns: total.turns, turnsPerMinute: Double(total.turns) / range.minutes, tokensIn: total.tokensIn,
                        tokensOut: total.tokensOut, errors: total.errors, errorRate: rate(total.errors), flags: total.flags,
                        crisis: total.crisis, rateLimited: total.rateLimited)
        series = report.series(from: first, through: last).map { bucket in
            Point(at: Date(timeIntervalSince1970: TimeInterval(bucket.start)), turns: bucket.turns, tokensIn: bucket.tokensIn,
                  tokensOut: bucket.tokensOut, errors: bucket.errors, flags: bucket.flags, rateLimited: bucket.rateLimited,
                  firstTokenP50Ms: Self.milliseconds(bucket.firstToken.percentile(0.5)),
                  latencyP95Ms: Self.milliseconds(bucket.latency.percentile(0.95)))
        }
        tokens = report.models.map { Usage(assistant: $0.assistant, model: $0.model, turns: $0.turns, tokensIn: $0.tokensIn, tokensOut: $0.tokensOut) }
        latency = Latency(firstTokenMs: Quantiles(total.firstToken), turnMs: Quantiles(total.latency))
        errors = report.errorCodes.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            .map { ErrorCount(code: $0.key, count: $0.value, rate: rate($0.value)) }
        flags = report.flags.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { FlagCount(category: $0.key, count: $0.value) }
        self.breakers = breakers.map { breaker in
            let state = switch breaker.state {
            case .closed: "closed"
            case .open: "open"
            case .halfOpen: "half_open"
            }
            return Breaker(name: breaker.name, state: state)
        }
        self.index = index
    }

    /// Milliseconds to a tenth.
    static func milliseconds(_ value: Double?) -> Double? {
        value.map { ($0 * 10).rounded() / 10 }
    }

    /// As the service's responses are encoded (`GriotRequestContext.responseEncoder`).
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
}

/// The dashboard as Server-Sent Events: the figures at once, then each time `changeKey` differs
/// (asked every `poll`), and `: keep-alive` every `keepAlive`. Stops at once when the client
/// hangs up, and when the server begins a graceful shutdown (or the node drains), so a drain never
/// waits on a dashboard left open.
struct DashboardStream: Sendable {
    struct Key: Equatable, Sendable {
        var activity: Int
        var bucket: Int64
        var breakers: [String]
        var passages: Int?
        var position: Int64?
    }

    enum Item: Sendable {
        case poll, keepAlive, end
    }

    let routes: DashboardRoutes
    let range: DashboardRange
    let first: Dashboard
    /// The change key read before `first`.
    let key: Key?
    let closed: EventLoopFuture<Void>?

    func write(to writer: inout any ResponseBodyWriter) async throws {
        try await EventStreamPump(keepAlive: routes.keepAlive, closed: closed, beat: Item.keepAlive, end: Item.end).run { [poll = routes.poll] continuation in
            while !Task.isCancelled {
                try? await Task.sleep(for: poll)
                continuation.yield(.poll)
            }
        } body: { items, continuation in
            try await stream(items, continuation: continuation, to: &writer)
        }
    }

    private func stream(_ items: AsyncStream<Item>, continuation: AsyncStream<Item>.Continuation, to writer: inout any ResponseBodyWriter) async throws {
        try await withGracefulShutdownHandler {
            var key = self.key
            try await writer.write(ByteBuffer(bytes: try Self.frame(first)))
            for await item in items {
                switch item {
                case .end:
                    return
                case .keepAlive:
                    try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                case .poll:
                    if routes.drain.isDraining || Task.isCancelled { return }
                    let now = Date(), next: Key, figures: Dashboard
                    do {
                        next = try await routes.changeKey(range, now: now)
                        guard next != key else { continue }
                        figures = try await routes.figures(range, now: now)
                    } catch {
                        routes.logger.warning("the dashboard stream could not read its figures; it tries again", metadata: ["error": "\(error)"])
                        continue
                    }
                    key = next
                    try await writer.write(ByteBuffer(bytes: try Self.frame(figures)))
                }
            }
        } onGracefulShutdown: {
            continuation.yield(.end)
        }
    }

    static func frame(_ dashboard: Dashboard) throws -> [UInt8] {
        let data = try Dashboard.encoder.encode(dashboard)
        return Array("event: dashboard\ndata: ".utf8) + Array(data) + Array("\n\n".utf8)
    }
}
