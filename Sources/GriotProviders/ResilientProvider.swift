import Synchronization

/// Any provider, with retries before the first token and a circuit breaker around it.
///
/// ```swift
/// let breakers = CircuitBreakerRegistry()
/// let provider = await ResilientProvider(wrapping: OpenAICompatibleProvider(configuration: configuration), registry: breakers)
/// ```
/// A retryable failure (see `ProviderError.isRetryable`) before any text is retried after the
/// policy's backoff. Once text has been streamed the error is passed on as it is: the reader has
/// seen part of a reply, and a second, different reply appended to it would be worse than a
/// reply marked as cut off. Each attempt asks the breaker first and reports its outcome to it.
public struct ResilientProvider: ChatProvider {
    public let upstream: any ChatProvider
    public let breaker: CircuitBreaker
    public let retryPolicy: RetryPolicy

    public var name: String { upstream.name }
    public var defaultModel: String { upstream.defaultModel }

    /// Backoff sleeps use the breaker's clock, so one injected clock drives both.
    public init(wrapping upstream: any ChatProvider, breaker: CircuitBreaker, retryPolicy: RetryPolicy = RetryPolicy()) {
        self.upstream = upstream
        self.breaker = breaker
        self.retryPolicy = retryPolicy
    }

    /// Wraps `upstream` with the registry's breaker for its name.
    public init(wrapping upstream: any ChatProvider, registry: CircuitBreakerRegistry, retryPolicy: RetryPolicy = RetryPolicy()) async {
        self.init(wrapping: upstream, breaker: await registry.breaker(named: upstream.name), retryPolicy: retryPolicy)
    }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ProviderEvent, any Error> {
        let (events, continuation) = AsyncThrowingStream.makeStream(of: ProviderEvent.self)
        let task = Task { await self.run(request, into: continuation) }
        // Only a consumer that went away stops the attempt: after `.finished` the upstream may
        // still be reading the end of its body, so that its connection goes back to the pool.
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return events
    }

    private func run(_ request: ChatRequest, into continuation: AsyncThrowingStream<ProviderEvent, any Error>.Continuation) async {
        var attempt = 1
        while true {
            let permit: CircuitBreaker.Permit
            do {
                permit = try await breaker.admit()
            } catch {
                continuation.finish(throwing: error)
                return
            }

            // The upstream reads its reply in this task (`generate`), so a token crosses one task
            // boundary on its way to the consumer, not two.
            // At `.finished` the breaker hears of the success and then the consumer's stream ends,
            // while the upstream may still read the end of its body for the connection pool.
            let relay = AttemptRelay(continuation) { [breaker] in
                Task {
                    await breaker.record(.success, for: permit)
                    continuation.finish()
                }
            }
            do {
                try await upstream.generate(request, into: relay.forward)
                if relay.finished { return }
                // A cancelled consumer ends the upstream quietly, without an error.
                if Task.isCancelled {
                    await breaker.record(.abandoned, for: permit)
                    continuation.finish(throwing: CancellationError())
                } else {
                    await breaker.record(.success, for: permit)
                    continuation.finish()
                }
                return
            } catch {
                if relay.finished { return }
                if Task.isCancelled || error is CancellationError {
                    await breaker.record(.abandoned, for: permit)
                    continuation.finish(throwing: CancellationError())
                    return
                }
                let after = await breaker.record(CircuitBreaker.Outcome(error), for: permit)
                guard !relay.textSent, let providerError = error as? ProviderError, providerError.isRetryable,
                      attempt < retryPolicy.maximumAttempts else {
                    continuation.finish(throwing: error)
                    return
                }
                // This failure opened the breaker: waiting to retry would only meet it closed to us.
                if after.state == .open, let retryAt = after.retryAt {
                    continuation.finish(throwing: ProviderError.circuitOpen(provider: name, retryAfterSeconds: retryAt - breaker.clock.now()))
                    return
                }
                do {
                    try await breaker.clock.sleep(seconds: retryPolicy.delay(beforeRetry: attempt, retryAfter: providerError.retryAfterSeconds))
                } catch {
                    continuation.finish(throwing: CancellationError())
                    return
                }
                attempt += 1
            }
        }
    }
}

/// One attempt's events on their way to the consumer. The model is announced once: an attempt
/// that fails before any text may be followed by another that names it again, so it is held
/// back until text or the end arrives. `.finished` is passed on, then `whenFinished` is called.
private final class AttemptRelay: Sendable {
    private struct State {
        var textSent = false
        var finished = false
        var pendingModel: ProviderEvent?
    }

    private let continuation: AsyncThrowingStream<ProviderEvent, any Error>.Continuation
    private let state = Mutex(State())
    private let whenFinished: @Sendable () -> Void

    init(_ continuation: AsyncThrowingStream<ProviderEvent, any Error>.Continuation, whenFinished: @escaping @Sendable () -> Void) {
        self.continuation = continuation
        self.whenFinished = whenFinished
    }

    var textSent: Bool { state.withLock { $0.textSent } }
    var finished: Bool { state.withLock { $0.finished } }

    @Sendable func forward(_ event: ProviderEvent) {
        let finishedNow = state.withLock { state in
            switch event {
            case .model:
                if state.textSent { continuation.yield(event) } else { state.pendingModel = event }
            case .text, .finished:
                if let model = state.pendingModel { continuation.yield(model) }
                state.pendingModel = nil
                continuation.yield(event)
                if case .text = event { state.textSent = true }
                if case .finished = event, !state.finished {
                    state.finished = true
                    return true
                }
            }
            return false
        }
        if finishedNow { whenFinished() }
    }
}
