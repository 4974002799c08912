import GriotChat
import GriotSafety

/// Turns a finished turn's events into metrics: latency, time to first token, tokens in (the
/// ledger's exact prompt count) and out (the reply counted with the prompt's encoding).
struct TurnMetricsObserver: Sendable {
    let metrics: ServiceMetrics
    let counters: TokenCounters

    func finished(_ events: [TurnEvent]) {
        var meta: TurnMeta?
        var summary: TurnSummary?
        var ledger: TokenLedger?
        var failure: TurnFailure?
        for event in events {
            switch event {
            case .meta(let value): meta = value
            case .done(let value): summary = value
            case .budget(let value): ledger = value
            case .error(let value): failure = value
            default: break
            }
        }
        guard let meta, let summary else { return }
        let tokensOut = (try? counters.counter(for: ledger?.encoding))?.count(summary.text) ?? 0
        metrics.turn(assistant: meta.assistant, model: meta.model, summary: summary, tokensIn: ledger?.promptTokens,
                     tokensOut: tokensOut, failure: failure)
        for verdict in summary.verdicts {
            metrics.safetyVerdict(stage: verdict.stage, decision: verdict.decision.rawValue)
            if (verdict.stage == "moderation" && verdict.decision == .block) || verdict.stage == "crisis" {
                metrics.moderationFlag(category: summary.moderationCategory ?? verdict.stage)
            }
        }
    }

    /// Counts an edit's screening as a send's is counted: its verdicts, and a block or crisis as
    /// a moderation flag.
    func screened(_ verdicts: [SafetyVerdict], category: String?) {
        for verdict in verdicts {
            metrics.safetyVerdict(stage: verdict.stage, decision: verdict.decision.rawValue)
            if (verdict.stage == "moderation" && verdict.decision == .block) || verdict.stage == "crisis" {
                metrics.moderationFlag(category: category ?? verdict.stage)
            }
        }
    }
}
