import Foundation
import GriotChat
import GriotProviders
import Hummingbird

/// `GET /healthz` (the process answers), `GET /readyz` (the index is loaded and keeps up with the
/// database's change log, the database would take a write, and the providers' circuit breakers),
/// both without a token and both writing nothing.
struct HealthRoutes: Sendable {
    let engine: ChatEngine
    let metrics: ServiceMetrics
    let drain: DrainState
    let follower: IndexFollower

    struct Liveness: ResponseEncodable {
        var status = "ok"
    }

    struct Readiness: ResponseEncodable {
        var status: String
        var indexedPassages: Int?
        var databaseWritable: Bool
        /// Where this node's index stands in the story change log (`applied`, `head`, `behind`).
        var changeLog: IndexFollower.Position
        var provider: String
        var breakers: [CircuitBreaker.Snapshot]
        var problems: [String]
    }

    func add(to router: Router<GriotRequestContext>) {
        router.get("healthz") { _, _ in Liveness() }
        router.get("readyz", use: readiness)
        router.get("openapi.yaml") { _, _ in OpenAPIDocument.response() }
        router.get("metrics") { _, _ in
            let text = metrics.render(breakers: await engine.breakers.snapshots())
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }

    @Sendable func readiness(_ request: Request, context: GriotRequestContext) async throws -> EditedResponse<Readiness> {
        var problems: [String] = []
        let passages: Int?
        do {
            passages = try await engine.archive.indexedPassageCount()
        } catch {
            passages = nil
            problems.append("the index could not be loaded: \(error)")
        }
        var writable = true
        do {
            // Takes and gives back the write lock: an anonymous probe must write nothing.
            try await engine.archive.store.checkWritable()
        } catch {
            writable = false
            problems.append("the database does not take writes: \(error)")
        }
        if let lag = follower.problem() { problems.append(lag) }
        if drain.isDraining { problems.append("the node is shutting down; its running replies are finishing") }
        let breakers = await engine.breakers.snapshots()
        // An open breaker is reported but does not make the node unready: the offline responder
        // and the rest of the API still work, and the breaker closes by itself.
        let ready = problems.isEmpty
        return EditedResponse(status: ready ? .ok : .serviceUnavailable, response: Readiness(
            status: ready ? "ready" : "not_ready", indexedPassages: passages, databaseWritable: writable, changeLog: follower.position,
            provider: engine.provider.name, breakers: breakers, problems: problems))
    }
}
