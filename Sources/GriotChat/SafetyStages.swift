import Foundation
import GriotPrompts
import GriotSafety

/// The safety stages the pipeline runs, each a small type that scores text and returns its
/// verdict (score, decision, reason) and, when the client should know, a flag. They decide;
/// `TurnPipeline` does what follows (stores, counts, sends). `OutputGate` (PII and output
/// moderation, sentence by sentence) and `CitationFinder.check` (each cited sentence against
/// the passage it cites) are the stages that work on the reply as it streams.

/// Stage 0: input moderation and crisis routing, on the whole message (typed or a voice
/// transcript). Toxicity above 0.8 blocks; a self-harm score of 0.5 or more routes to the
/// crisis reply.
struct InputScreen: Sendable {
    enum Outcome: Equatable { case proceed, blocked, crisis }

    struct Screening {
        var moderation: ModerationResult
        var outcome: Outcome
        var verdicts: [SafetyVerdict]
    }

    let moderator: any Moderator
    let stages: Set<SafetyStage>

    var isOn: Bool { stages.contains(.moderation) || stages.contains(.crisis) }

    func screen(_ message: String, voice: Bool) async -> Screening {
        let result = await moderator.moderate(message)
        let blocked = stages.contains(.moderation) && result.blocks
        let crisis = !blocked && stages.contains(.crisis) && result.needsCrisisResponse
        var verdicts: [SafetyVerdict] = []
        if stages.contains(.moderation) {
            let scores = String(format: "toxicity %.2f (%@), self-harm %.2f", result.toxicity, result.topCategory.rawValue, result.selfHarm)
            verdicts.append(SafetyVerdict(
                stage: "moderation", score: result.toxicity, decision: blocked ? .block : .allow,
                reason: "\(voice ? "voice transcript" : "message"): \(scores) from \(result.source)"
                    + (result.reasons.isEmpty ? "" : "; " + result.reasons.joined(separator: ", "))))
        }
        if crisis {
            verdicts.append(SafetyVerdict(
                stage: "crisis", score: result.selfHarm, decision: .route,
                reason: String(format: "self-harm %.2f ≥ %.1f: the crisis reply instead of a model", result.selfHarm, ModerationResult.crisisThreshold)))
        }
        return Screening(moderation: result, outcome: blocked ? .blocked : (crisis ? .crisis : .proceed), verdicts: verdicts)
    }
}

/// Stage 4a: how well the passages the model saw support the answer. Below 0.4, or when any
/// cited sentence is not supported by the passage it cites (`CitationFinder`), the turn carries
/// "AI may be inaccurate".
struct GroundednessStage: Sendable {
    let scorer: GroundednessScorer

    /// `passages` as the model saw them (title, tellers, people and places, then the text), so
    /// an answer that names the story or its teller is not taken for inventing them; `question`
    /// lends its names and numbers the same way. `answer` is the model's text before masking;
    /// the offline responder's note on the reply's language is not a claim and is left out.
    func review(answer: String, passages: [String], question: String, unsupportedClaims: Int = 0)
        -> (score: GroundednessScore, verdict: SafetyVerdict, flag: SafetyFlag?) {
        let score = scorer.score(answer: ExtractiveResponder.withoutLanguageNote(answer), passages: passages, known: question)
        let claims = score.sentences.filter(\.isClaim)
        let weak = claims.filter { $0.score < GroundednessScore.threshold }
        let inaccurate = score.isLowGroundedness || unsupportedClaims > 0
        var reason = String(format: "answer %.2f over %d claims; %d below %.1f", score.answer, claims.count, weak.count, GroundednessScore.threshold)
        if unsupportedClaims > 0 {
            reason += "; \(unsupportedClaims) cited sentence\(unsupportedClaims == 1 ? "" : "s") not supported by the passage cited"
        }
        let verdict = SafetyVerdict(stage: "groundedness", score: score.answer, decision: inaccurate ? .flag : .allow, reason: reason)
        let flag = inaccurate ? SafetyFlag(kind: .lowGroundedness, message: "AI may be inaccurate", score: score.answer) : nil
        return (score, verdict, flag)
    }
}

/// Stage 4b: a run of the answer over 400 characters that copies a passage almost word for
/// word (similarity above 0.9) is flagged for coach review. Public-domain passages (the WPA
/// narratives) are not compared: quoting them at length copies nobody's work, and flagging it
/// only gave coaches flags with nothing to review.
struct CopyrightStage: Sendable {
    let check: CopyrightCheck

    /// `skipping`: indices into `passages` of public-domain text.
    func review(answer: String, passages: [String], skipping: Set<Int> = []) -> (verdict: SafetyVerdict, flag: SafetyFlag?) {
        let compared = passages.indices.filter { !skipping.contains($0) }
        let skipped = passages.count - compared.count
        let note = skipped == 0 ? "" : "; \(skipped) public-domain passage\(skipped == 1 ? "" : "s") not compared"
        guard let found = check.check(answer, passages: compared.map { passages[$0] }) else {
            return (SafetyVerdict(stage: "copyright", score: 0, decision: .allow, reason: "no run over 400 characters copies a passage" + note), nil)
        }
        let verdict = SafetyVerdict(
            stage: "copyright", score: found.similarity, decision: .flag,
            reason: String(format: "%d characters %.2f similar to passage [%d]", found.outputRange.count, found.similarity, compared[found.passage] + 1) + note)
        let flag = SafetyFlag(kind: .copyrightReview,
                              message: "Part of this reply copies a source passage almost word for word; it is flagged for coach review.",
                              score: found.similarity)
        return (verdict, flag)
    }
}
