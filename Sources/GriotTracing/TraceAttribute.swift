/// The attribute names our spans use: OpenTelemetry's where one exists (HTTP, GenAI), `griot.*`
/// for ours. Every value is an id, a count, a duration, a model name, a status or a kind: the
/// text of a message, a passage, a prompt or a name never goes into a span.
public enum TraceAttribute {
    // Ours.
    public static let requestID = "griot.request_id"
    public static let turnID = "griot.turn_id"
    public static let threadID = "griot.thread_id"
    public static let assistant = "griot.assistant"
    public static let promptVersion = "griot.prompt_version"
    public static let status = "griot.status"
    public static let failureCode = "griot.failure_code"
    public static let flags = "griot.flags"
    public static let decision = "griot.decision"
    public static let passages = "griot.passages"
    public static let promptTokens = "griot.prompt_tokens"
    public static let droppedParts = "griot.dropped_parts"
    public static let groundedness = "griot.groundedness"
    public static let firstTokenSeconds = "griot.first_token_seconds"
    public static let cancelled = "griot.cancelled"
    /// The trail's crumbs when an error was recorded (`TraceTrail`).
    public static let lastActions = "griot.last_actions"
    /// The token counts are Griot's own count, not the provider's (the offline responder reports none).
    public static let usageCounted = "griot.usage.counted"

    // HTTP (semantic conventions 1.2x).
    public static let httpMethod = "http.request.method"
    public static let httpRoute = "http.route"
    public static let httpStatusCode = "http.response.status_code"

    // GenAI (semantic conventions for generative AI client spans).
    public static let genAIOperationName = "gen_ai.operation.name"
    public static let genAIProviderName = "gen_ai.provider.name"
    /// The older name of `gen_ai.provider.name`, which backends built before the rename still read.
    public static let genAISystem = "gen_ai.system"
    public static let genAIRequestModel = "gen_ai.request.model"
    public static let genAIRequestTemperature = "gen_ai.request.temperature"
    public static let genAIRequestMaxTokens = "gen_ai.request.max_tokens"
    public static let genAIResponseModel = "gen_ai.response.model"
    public static let genAIResponseFinishReasons = "gen_ai.response.finish_reasons"
    public static let genAIUsageInputTokens = "gen_ai.usage.input_tokens"
    public static let genAIUsageOutputTokens = "gen_ai.usage.output_tokens"
}
