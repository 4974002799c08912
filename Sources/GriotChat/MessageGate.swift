import Foundation
import GriotPrompts
import GriotSafety
import GriotStore

/// The one gate a user's words pass before they stand in a thread as theirs, whether they are
/// sent (a turn, `TurnPipeline.screen`) or written over an earlier message (an edit,
/// `ChatEngine.editMessage`). Both call the same checks, the same moderation and crisis routing,
/// and take the same consequences, so no way of writing text goes around moderation.
///
/// ```swift
/// let gate = MessageGate(engine: engine)
/// if let reason = MessageGate.refusal(text) { throw ChatError(.invalid, reason) }
/// let screening = await gate.screen(text, voice: false, stages: template.safety)
/// ```
public struct MessageGate: Sendable {
    /// What the gate decided about a text: stored and answered, refused, or answered with the
    /// crisis reply (stored, and a coach brought in).
    public enum Decision: String, Sendable, Hashable, Codable {
        case allow, block, crisis
    }

    /// The moderation of one text and what follows from it.
    public struct Screening: Sendable {
        public var decision: Decision
        public var moderation: ModerationResult
        /// The moderation and crisis stages' verdicts (none when both stages are off).
        public var verdicts: [SafetyVerdict]
        /// `moderation` as JSON, as the audit log keeps it.
        public var moderationJSON: String
        /// Whether any screening stage ran (an assistant may switch both off).
        public var screened: Bool
    }

    /// The crisis reply and the flag that brings in a coach.
    public struct CrisisReply: Sendable {
        public var text: String
        public var flag: SafetyFlag
        /// `template:<assistant>@<version>`, in place of a model's name.
        public var model: String
    }

    let engine: ChatEngine

    public init(engine: ChatEngine) {
        self.engine = engine
    }

    /// Why `text` cannot be stored as a message at all (empty, a NUL character, over the length
    /// limit), in words that say what to do, or nil when it can.
    public static func refusal(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return "The message is empty; type a question or a command such as /summary." }
        if let reason = StorableText.unstorableReason(trimmed, what: "message") { return reason }
        guard trimmed.count <= ChatEngine.maximumMessageCharacters else {
            return "The message is \(trimmed.count) characters long; the limit is \(ChatEngine.maximumMessageCharacters). Shorten it or split it into several messages."
        }
        return nil
    }

    /// Input moderation and crisis routing of a whole text (typed, a voice transcript, or an
    /// edit), with the stages the assistant switched on.
    public func screen(_ text: String, voice: Bool, stages: Set<SafetyStage>) async -> Screening {
        let screen = InputScreen(moderator: engine.safety.moderator, stages: stages)
        guard screen.isOn else {
            return Screening(decision: .allow, moderation: ModerationResult(source: "off"), verdicts: [], moderationJSON: "{}", screened: false)
        }
        let screening = await screen.screen(text, voice: voice)
        let decision: Decision = switch screening.outcome {
        case .proceed: .allow
        case .blocked: .block
        case .crisis: .crisis
        }
        return Screening(decision: decision, moderation: screening.moderation, verdicts: screening.verdicts,
                         moderationJSON: TurnPipeline.json(screening.moderation), screened: true)
    }

    /// The refusal of a blocked text, the same for a send and an edit. Counts one more warning
    /// for the user, whose number the words name.
    public func refuse(userID: String) async throws -> TurnFailure {
        let warnings = try await engine.chats.addModerationWarning(userID: userID)
        return TurnFailure(
            code: Self.blockedCode,
            message: "Message violates policy. It was not sent to the assistant (warning \(warnings)); rephrase it without insults, threats or slurs.")
    }

    /// The error code of a blocked message, on every route that writes one.
    public static let blockedCode = "message_blocked"

    /// The crisis template as the reply to `userID`'s message in an `assistant` thread, and the
    /// flag a coaching UI uses to bring in a coach. Never improvised: without a production
    /// crisis template this throws, and the caller says so.
    func crisisReply(assistant: AssistantDeclaration, userID: String, userName: String?, selfHarm: Double?) async throws -> CrisisReply {
        guard let template = try? await engine.template(for: Self.crisisTemplate, label: "production") else {
            throw TurnStageFailure(code: "crisis_template_missing",
                                   message: "This message needs the crisis reply, but prompts/\(Self.crisisTemplate) has no production version; publish one.")
        }
        let profile = try? await engine.chats.profile(userID: userID)
        let text = try template.systemPrompt(role: nil, command: nil, values: [
            "user_name": userName ?? profile?.displayName ?? "",
            "assistant_name": assistant.displayName,
        ])
        let flag = SafetyFlag(kind: .crisis, message: "This message may be about self-harm; the crisis resources were sent instead of an answer. A coach should follow up.",
                              score: selfHarm, escalate: true)
        return CrisisReply(text: text, flag: flag, model: "template:\(template.assistant)@\(template.version)")
    }

    /// The prompt folder of the crisis reply (`kind: response`).
    static let crisisTemplate = "crisis"
}
