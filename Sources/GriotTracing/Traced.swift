import Tracing

/// Spans the way Griot starts them: a child of the task's current span (or of `context`), with
/// the request id, and an error recorded by its kind, never its text, with the last actions of
/// the request's `TraceTrail`. Without a tracer (no `OTEL_EXPORTER_OTLP_ENDPOINT`) every span is
/// the no-op tracer's, which records nothing.
///
/// ```swift
/// let sources = try await Traced.span("retrieve") { span in
///     let sources = try retrieve()
///     span.attributes[TraceAttribute.passages] = sources.count
///     return sources
/// }
/// ```
public enum Traced {
    /// A span the caller ends. Prefer `span(_:kind:context:_:)`, which ends it and records errors.
    public static func start(_ name: String, kind: SpanKind = .internal, context: ServiceContext = ServiceContext.current ?? .topLevel) -> any Span {
        let span = startSpan(name, context: context, ofKind: kind)
        if span.isRecording, let id = context.requestID { span.attributes[TraceAttribute.requestID] = id }
        context.traceTrail?.note(name)
        return span
    }

    /// Runs `body` in a span named `name`, as the task's current span.
    public static func span<T, Failure: Error>(_ name: String, kind: SpanKind = .internal, context: ServiceContext = ServiceContext.current ?? .topLevel,
                                               _ body: (any Span) async throws(Failure) -> T) async throws(Failure) -> T {
        try await continuing(start(name, kind: kind, context: context), ending: true, body)
    }

    /// `span(_:kind:context:_:)` for synchronous work (a stage on the preparation lane's threads,
    /// which do not inherit the turn's task-locals: pass the turn's `context`).
    public static func span<T, Failure: Error>(_ name: String, kind: SpanKind = .internal, context: ServiceContext = ServiceContext.current ?? .topLevel,
                                               _ body: (any Span) throws(Failure) -> T) throws(Failure) -> T {
        try continuing(start(name, kind: kind, context: context), ending: true, body)
    }

    /// Runs `body` as more of `span`'s work (a stage whose parts run on different tasks or
    /// threads), recording an error it throws; ends the span after the body when `ending`, or
    /// when it throws.
    public static func continuing<T, Failure: Error>(_ span: any Span, ending: Bool,
                                                     _ body: (any Span) async throws(Failure) -> T) async throws(Failure) -> T {
        do {
            let value = try await ServiceContext.$current.withValue(span.context) { try await body(span) }
            if ending { span.end() }
            return value
        } catch {
            fail(span, error)
            span.end()
            // `withValue` rethrows what the body threw, which is a `Failure`.
            throw error as! Failure
        }
    }

    /// `continuing(_:ending:_:)` for synchronous work.
    public static func continuing<T, Failure: Error>(_ span: any Span, ending: Bool, _ body: (any Span) throws(Failure) -> T) throws(Failure) -> T {
        do {
            let value = try ServiceContext.$current.withValue(span.context) { try body(span) }
            if ending { span.end() }
            return value
        } catch {
            fail(span, error)
            span.end()
            throw error as! Failure
        }
    }

    /// Records `error` on `span` as an `exception` event and an error status. The event holds the
    /// error's type and its `TraceSummarizable.traceSummary` (else the type again), and the
    /// trail's last actions (`trail`, else the span's own); an error's own description can hold an upstream body or a user's
    /// words, so it is never written. A cancellation is not an error: it is marked, not recorded.
    public static func fail(_ span: any Span, _ error: any Error, trail: TraceTrail? = nil) {
        guard span.isRecording else { return }
        if error is CancellationError {
            span.attributes[TraceAttribute.cancelled] = true
            return
        }
        let kind = String(describing: type(of: error))
        let summary = (error as? any TraceSummarizable)?.traceSummary ?? kind
        let last = (trail ?? span.context.traceTrail)?.last ?? []
        span.recordError(RecordedError(summary: summary), attributes: [
            "exception.type": .string(kind), "exception.message": .string(summary), TraceAttribute.lastActions: .stringArray(last),
        ])
        span.attributes[TraceAttribute.lastActions] = last
        span.setStatus(SpanStatus(code: .error, message: summary))
    }

    /// Marks `span` failed with a code of ours (a turn that ended `failed`, a 5xx response),
    /// with the trail's last actions, when no thrown error is at hand.
    public static func fail(_ span: any Span, code: String, trail: TraceTrail? = nil) {
        guard span.isRecording else { return }
        let last = (trail ?? span.context.traceTrail)?.last ?? []
        span.attributes[TraceAttribute.failureCode] = code
        span.attributes[TraceAttribute.lastActions] = last
        span.setStatus(SpanStatus(code: .error, message: code))
    }

    /// Notes a crumb on the current request's trail (none without a recording span).
    public static func note(_ crumb: @autoclosure () -> String, context: ServiceContext? = ServiceContext.current) {
        context?.traceTrail?.note(crumb())
    }
}

/// What `Traced.fail` hands the tracer in place of the error itself.
struct RecordedError: Error, CustomStringConvertible {
    var summary: String
    var description: String { summary }
}
