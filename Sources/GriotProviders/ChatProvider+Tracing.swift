import GriotTracing
import Synchronization
import Tracing

extension ChatProvider {
    /// `generate(_:into:)` inside a GenAI client span, "chat {model}" by the semantic conventions
    /// for generative AI: the operation, the provider, the requested model and settings, and once
    /// the reply ends, the model that answered, the finish reasons and the token usage. When the
    /// provider reports no usage (the offline responder), `countedUsage` gives Griot's own count,
    /// marked `griot.usage.counted`. Nothing of the messages or the reply is recorded.
    ///
    /// ```swift
    /// try await provider.generateTraced(request, model: "gpt-4o-mini", into: deliver)
    /// ```
    public func generateTraced(_ request: ChatRequest, model: String, into deliver: @escaping @Sendable (ProviderEvent) -> Void,
                               countedUsage: @Sendable () -> TokenUsage? = { nil }) async throws {
        let requestedModel = request.settings.model ?? model
        try await Traced.span("chat \(requestedModel)", kind: .client) { span in
            guard span.isRecording else { return try await generate(request, into: deliver) }
            span.updateAttributes { attributes in
                attributes[TraceAttribute.genAIOperationName] = "chat"
                attributes[TraceAttribute.genAIProviderName] = name
                attributes[TraceAttribute.genAISystem] = name
                attributes[TraceAttribute.genAIRequestModel] = requestedModel
                if let temperature = request.settings.temperature { attributes[TraceAttribute.genAIRequestTemperature] = temperature }
                if let maxTokens = request.settings.maxTokens { attributes[TraceAttribute.genAIRequestMaxTokens] = maxTokens }
            }
            let seen = Mutex(ModelCallOutcome())
            defer { seen.withLock { $0 }.describe(on: span, countedUsage: countedUsage) }
            try await generate(request) { event in
                switch event {
                case .model(let model): seen.withLock { $0.model = model }
                case .finished(let reason, let usage): seen.withLock { $0.finishReason = reason ?? "stop"; $0.usage = usage }
                case .text: seen.withLock { outcome in
                    if !outcome.firstText { outcome.firstText = true; Traced.note("generate:first_token") }
                }
                }
                deliver(event)
            }
        }
    }
}

/// What a model call's events said about it, for its span.
private struct ModelCallOutcome {
    var model: String?
    var finishReason: String?
    var usage: TokenUsage?
    var firstText = false

    func describe(on span: any Span, countedUsage: () -> TokenUsage?) {
        let usage = usage ?? countedUsage()
        span.updateAttributes { attributes in
            if let model { attributes[TraceAttribute.genAIResponseModel] = model }
            if let finishReason { attributes[TraceAttribute.genAIResponseFinishReasons] = [finishReason] }
            if let usage {
                attributes[TraceAttribute.genAIUsageInputTokens] = usage.promptTokens
                attributes[TraceAttribute.genAIUsageOutputTokens] = usage.completionTokens
                if self.usage == nil { attributes[TraceAttribute.usageCounted] = true }
            }
        }
    }
}
