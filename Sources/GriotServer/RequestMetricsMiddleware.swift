import Hummingbird

/// Counts every request and its duration by method, route pattern and status.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = GriotRequestContext
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.request(method: request.method.rawValue, route: context.endpointPath ?? "unmatched", status: response.status.code, seconds: seconds)
        return response
    }
}
