import Tracing

extension ServiceContext {
    /// The id of the HTTP request this work is for (`X-Request-ID`), carried with the span
    /// context so that every span started under it, in any module, names its request.
    public var requestID: String? {
        get { self[RequestIDKey.self] }
        set { self[RequestIDKey.self] = newValue }
    }

    /// The request's (or turn's) last actions, for the span an error ends.
    public var traceTrail: TraceTrail? {
        get { self[TraceTrailKey.self] }
        set { self[TraceTrailKey.self] = newValue }
    }
}

private enum RequestIDKey: ServiceContextKey {
    typealias Value = String
    static let nameOverride: String? = "griot-request-id"
}

private enum TraceTrailKey: ServiceContextKey {
    typealias Value = TraceTrail
    static let nameOverride: String? = "griot-trace-trail"
}
