/// What one safety stage decided about one piece of text: a score in [0, 1], a decision and
/// the reason in words. Stored with the turn and counted in metrics.
public struct SafetyVerdict: Codable, Sendable, Hashable {
    /// Which stage: `moderation`, `crisis`, `pii`, `citations`, `groundedness`, `copyright`, `output_moderation`, `prompt_echo`.
    public var stage: String
    public var score: Double
    public var decision: SafetyDecision
    public var reason: String

    public init(stage: String, score: Double, decision: SafetyDecision, reason: String) {
        self.stage = stage
        self.score = score
        self.decision = decision
        self.reason = reason
    }
}

public enum SafetyDecision: String, Codable, Sendable, Hashable {
    /// Nothing to do.
    case allow
    /// Let through, with a flag for the user or a coach.
    case flag
    /// Let through with parts replaced (PII masked, a sentence removed).
    case mask
    /// Not let through: nothing reaches the model.
    case block
    /// Answered by a fixed template instead of the model (crisis).
    case route
    /// Left out (a citation whose quote is not in its passage).
    case drop
}
