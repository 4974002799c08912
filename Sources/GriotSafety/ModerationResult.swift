/// The categories the moderation stage scores, named as they are stored and reported.
public enum ModerationCategory: String, Codable, Sendable, CaseIterable {
    case harassment, hate, sexual, violence, selfHarm = "self_harm"
}

/// Scores in [0, 1] for one message or reply sentence, where they came from, and why.
///
/// ```swift
/// let result = await moderator.moderate("I want to end it all")
/// if result.needsCrisisResponse { … answer with the crisis template … }
/// else if result.blocks { … refuse … }
/// ```
public struct ModerationResult: Codable, Sendable, Equatable {
    public var harassment: Double
    public var hate: Double
    public var sexual: Double
    public var violence: Double
    public var selfHarm: Double
    /// "local", "remote <model>", or "local (remote failed: <why>)".
    public var source: String
    /// Short explanations in words of what fired; never a quotation of a slur.
    public var reasons: [String]
    /// Categories a remote moderator flagged (its own `categories` booleans), whatever their
    /// scores: the stricter reading wins, so a flagged category blocks (self-harm routes to the
    /// crisis reply) even where its score is under our thresholds. Nil for local readings.
    public var flagged: [ModerationCategory]?

    public init(harassment: Double = 0, hate: Double = 0, sexual: Double = 0, violence: Double = 0, selfHarm: Double = 0,
                source: String = "local", reasons: [String] = []) {
        self.harassment = harassment
        self.hate = hate
        self.sexual = sexual
        self.violence = violence
        self.selfHarm = selfHarm
        self.source = source
        self.reasons = reasons
    }

    /// Self-harm is left out on purpose: it routes to the crisis template, it is not refused.
    public var toxicity: Double { max(harassment, hate, violence, sexual) }
    public static let blockThreshold = 0.8
    public static let crisisThreshold = 0.5
    public var blocks: Bool { toxicity > Self.blockThreshold || (flagged ?? []).contains { $0 != .selfHarm } }
    public var needsCrisisResponse: Bool { selfHarm >= Self.crisisThreshold || (flagged ?? []).contains(.selfHarm) }

    public func score(_ category: ModerationCategory) -> Double {
        switch category {
        case .harassment: harassment
        case .hate: hate
        case .sexual: sexual
        case .violence: violence
        case .selfHarm: selfHarm
        }
    }

    /// The highest-scoring category; ties go to the earlier one in `ModerationCategory.allCases`.
    public var topCategory: ModerationCategory {
        var best = ModerationCategory.harassment
        for category in ModerationCategory.allCases where score(category) > score(best) { best = category }
        return best
    }
}

/// Scores a piece of text for the moderation stage.
///
/// ```swift
/// let moderator: any Moderator = LocalModerator()
/// let result = await moderator.moderate(message)
/// if result.blocks { … }
/// ```
public protocol Moderator: Sendable {
    func moderate(_ text: String) async -> ModerationResult
}
