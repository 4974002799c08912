import Foundation
import GriotChat
import GriotSafety
import GriotStore

/// Turns a finished turn's events into metrics: latency, time to first token, tokens in (the
/// ledger's exact prompt count) and out (the reply counted with the prompt's encoding); and into
/// the dashboard's rollup, written in the background (`TurnRollupRecorder`).
struct TurnMetricsObserver: Sendable {
    let metrics: ServiceMetrics
    let counters: TokenCounters
    var rollups: TurnRollupRecorder? = nil

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
        rollups?.record(Self.rollup(meta: meta, summary: summary, tokensIn: ledger?.promptTokens ?? 0, tokensOut: tokensOut,
                                    failure: failure, at: Date(), node: rollups?.node ?? ""))
    }

    /// What a finished turn adds to the dashboard: one turn, its tokens, its error (a blocked
    /// message is a flag, not an error; a stop is neither), its flags by category (a moderation
    /// block under its category), whether it was a crisis, and its latencies.
    static func rollup(meta: TurnMeta, summary: TurnSummary, tokensIn: Int, tokensOut: Int, failure: TurnFailure?, at: Date,
                       node: String) -> TurnRollup {
        var rollup = TurnRollup(at: at, node: node, assistant: meta.assistant, model: meta.model)
        rollup.turns = 1
        rollup.tokensIn = tokensIn
        rollup.tokensOut = tokensOut
        if let failure, failure.code != MessageGate.blockedCode {
            rollup.errors = 1
            rollup.errorCodes[failure.code] = 1
        }
        for flag in summary.flags { rollup.flags[flag.kind.rawValue, default: 0] += 1 }
        if summary.verdicts.contains(where: { $0.stage == "moderation" && $0.decision == .block }) {
            rollup.flags[summary.moderationCategory ?? "moderation", default: 0] += 1
        }
        if summary.flags.contains(where: { $0.kind == .crisis }) || summary.verdicts.contains(where: { $0.stage == "crisis" }) {
            rollup.crisis = 1
            if rollup.flags[SafetyFlag.Kind.crisis.rawValue] == nil { rollup.flags[SafetyFlag.Kind.crisis.rawValue] = 1 }
        }
        rollup.latency.record(milliseconds: summary.elapsedSeconds * 1_000)
        if let first = summary.firstTokenSeconds { rollup.firstToken.record(milliseconds: first * 1_000) }
        return rollup
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
