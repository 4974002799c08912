/// The moderation classifier that runs in process: word lists and patterns over normalised
/// text (see `ModerationText`), with negation, quotation, reported speech and counter-speech
/// taken into account, so that condemning hate is not hate and naming a group is never enough;
/// Spanish crisis and threat phrases (`ModerationSpanish`), and French, German, Polish, Arabic and
/// Chinese ones (`ModerationOtherLanguages`); and, when the MiniLM model file is
/// there, a semantic layer (`ModerationSemantics`) that catches plain wording no rule lists.
///
/// ```swift
/// let result = LocalModerator().classify("this course is killing me")
/// result.blocks              // false
/// result.needsCrisisResponse // false
/// let semantic = LocalModerator(semantics: try ModerationSemantics(folder: ModerationSemantics.defaultModelFolder))
/// ```
public struct LocalModerator: Moderator {
    /// Nil: rules alone (the model file is missing, or a test of the rules).
    public let semantics: ModerationSemantics?
    public var thresholds: ModerationSemanticGate.Thresholds

    public init(semantics: ModerationSemantics? = nil, thresholds: ModerationSemanticGate.Thresholds = .calibrated) {
        self.semantics = semantics
        self.thresholds = thresholds
    }

    public func moderate(_ text: String) async -> ModerationResult { classify(text) }

    /// The words the rules read for a message, after every normalisation (`ModerationText`), one
    /// string: for `griot-bench moderation --explain`, to see why a disguise was or was not read back.
    public static func reading(_ text: String) -> String {
        ModerationText(text).tokens.map(\.text).joined(separator: " ")
    }

    public func classify(_ text: String) -> ModerationResult {
        let normalised = ModerationText(text)
        var reading = ModerationReading(normalised)
        var result = reading.result()
        result.raise(to: ModerationSpanish.reading(normalised))
        result.raise(to: ModerationOtherLanguages.reading(normalised))
        result.raise(to: ModerationPlainHarm.reading(normalised))
        if let semantics {
            result.raise(to: ModerationSemanticGate(semantics: semantics, thresholds: thresholds).reading(normalised, rules: result))
        }
        return result
    }
}

extension ModerationResult {
    /// Each score raised to `other`'s where that is higher, with its reasons added.
    mutating func raise(to other: ModerationResult) {
        harassment = max(harassment, other.harassment)
        hate = max(hate, other.hate)
        sexual = max(sexual, other.sexual)
        violence = max(violence, other.violence)
        selfHarm = max(selfHarm, other.selfHarm)
        for reason in other.reasons where !reasons.contains(reason) { reasons.append(reason) }
    }
}
