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
    public var readsInstructions: Bool { upstream.readsInstructions }

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
        let task = Task {
            do {
                try await self.generate(request) { continuation.yield($0) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return events
    }

    /// Each attempt's upstream reads its reply in this task (`ChatProvider.generate`), so that a
    /// token goes from the connection to `deliver` without crossing another task. Returns once
    /// the breaker has heard how the reply ended (after the upstream read the end of its body,
    /// normally in the same packet as `[DONE]`, for its connection pool).
    public func generate(_ request: ChatRequest, into deliver: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        var attempt = 1
        while true {
            let permit = try await breaker.admit()
            let relay = AttemptRelay(deliver)
            do {
                try await upstream.generate(request, into: relay.forward)
                // A cancelled consumer ends the upstream quietly, without an error.
                if Task.isCancelled && !relay.finished {
                    await breaker.record(.abandoned, for: permit)
                    throw CancellationError()
                }
                await breaker.record(.success, for: permit)
                return
            } catch {
                if Task.isCancelled || error is CancellationError {
                    await breaker.record(.abandoned, for: permit)
                    throw CancellationError()
                }
                let after = await breaker.record(CircuitBreaker.Outcome(error), for: permit)
                guard !relay.textSent, let providerError = error as? ProviderError, providerError.isRetryable,
                      attempt < retryPolicy.maximumAttempts else {
                    throw error
                }
                // This failure opened the breaker: waiting to retry would only meet it closed to us.
                if after.state == .open, let retryAt = after.retryAt {
                    throw ProviderError.circuitOpen(provider: name, retryAfterSeconds: retryAt - breaker.clock.now())
                }
                do {
                    try await breaker.clock.sleep(seconds: retryPolicy.delay(beforeRetry: attempt, retryAfter: providerError.retryAfterSeconds))
                } catch {
                    throw CancellationError()
                }
                attempt += 1
            }
        }
    }
}

/// One attempt's events on their way to the consumer. The model is announced once: an attempt
/// that fails before any text may be followed by another that names it again, so it is held
/// back until text or the end arrives.
private final class AttemptRelay: Sendable {
    private struct State {
        var textSent = false
        var finished = false
        var pendingModel: ProviderEvent?
    }

    private let deliver: @Sendable (ProviderEvent) -> Void
    private let state = Mutex(State())

    init(_ deliver: @escaping @Sendable (ProviderEvent) -> Void) {
        self.deliver = deliver
    }

    var textSent: Bool { state.withLock { $0.textSent } }
    var finished: Bool { state.withLock { $0.finished } }

    /// Called by the upstream, one event at a time, in its reading task.
    @Sendable func forward(_ event: ProviderEvent) {
        state.withLock { state in
            switch event {
            case .model:
                if state.textSent { deliver(event) } else { state.pendingModel = event }
            case .text, .finished:
                if let model = state.pendingModel { deliver(model) }
                state.pendingModel = nil
                if case .text = event { state.textSent = true }
                if case .finished = event { state.finished = true }
                deliver(event)
            }
        }
    }
}
