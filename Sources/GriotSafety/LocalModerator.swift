/// The moderation classifier that runs in process: word lists and patterns over normalised
/// text (see `ModerationText`), with negation, quotation, reported speech and counter-speech
/// taken into account, so that condemning hate is not hate and naming a group is never enough.
///
/// ```swift
/// let result = LocalModerator().classify("this course is killing me")
/// result.blocks              // false
/// result.needsCrisisResponse // false
/// ```
public struct LocalModerator: Moderator {
    public init() {}

    public func moderate(_ text: String) async -> ModerationResult { classify(text) }

    public func classify(_ text: String) -> ModerationResult {
        var reading = ModerationReading(ModerationText(text))
        return reading.result()
    }
}
