import Foundation
import GriotPrompts
import GriotSafety
import GriotStore

/// An edit the input moderation refused: the message keeps its text and its ETag. `failure` is
/// the same code and words a blocked send gets.
public struct MessageBlocked: Error, Sendable {
    public var failure: TurnFailure
    public var messageID: String
    /// The message's ETag, unchanged.
    public var currentETag: String
    /// The moderation stage's verdict, as a blocked send records it.
    public var verdicts: [SafetyVerdict]
    public var moderationCategory: String?
}

/// A message as an edit left it, with what the gate decided about the new text.
public struct EditedMessage: Sendable {
    public var message: MessageRecord
    public var decision: MessageGate.Decision
    /// The crisis flag (`escalate: true`) when the new text is about self-harm; else empty.
    public var flags: [SafetyFlag]
    /// The crisis reply the same text would have got as a sent message.
    public var crisisReply: String?
    /// The moderation and crisis stages' verdicts, as a send records them.
    public var verdicts: [SafetyVerdict]
    /// The moderation category a crisis or block counts under (for metrics).
    public var moderationCategory: String?
}

extension ChatEngine {
    /// Replaces the text of a user's message through the same gate as sending it
    /// (`MessageGate`): the same checks, input moderation and crisis routing, and the same audit.
    ///
    /// - A text that would be refused as a message is refused (`ChatError.invalid`).
    /// - A blocked text throws `MessageBlocked` with the send's code and words; the message, its
    ///   status and its ETag are unchanged; a `message.moderate` entry (`write: edit`) records
    ///   the scores and the user's warning count goes up, as for a blocked send.
    /// - A text about self-harm is stored (as a sent one is) and the result carries the crisis
    ///   reply and the crisis flag with `escalate: true`; its verdicts are stored with the
    ///   message's turn, so the escalation is on record as a send's is.
    /// - Otherwise the text is stored; the `message.update` entry carries the moderation result.
    ///
    /// Who may edit is decided before this is called (the HTTP service's `AccessPolicy`: only the
    /// message's author). `ifMatch` is checked before moderation and again when writing, so a
    /// stale edit is a conflict whatever its text.
    public func editMessage(id: String, content: String, ifMatch: String, by actorID: String) async throws -> EditedMessage {
        if let reason = MessageGate.refusal(content) { throw ChatError(.invalid, reason) }
        // Stored as a send stores it: without the white space around it.
        let content = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let message = try await chats.message(id: id), let thread = try await chats.thread(id: message.threadID) else {
            throw ChatStoreError.messageNotFound(id)
        }
        guard MessageETag.matches(ifMatch, id: id, version: message.version) else { throw ChatStoreError.stale(message, sent: ifMatch) }
        let template: PromptTemplate
        do {
            template = try await self.template(for: thread.assistant, label: "production")
        } catch {
            throw ChatError(.invalid, "The \(thread.assistant) assistant has no production prompt to moderate with (\(error)); publish one, then edit again.")
        }
        let gate = MessageGate(engine: self)
        let screening = await gate.screen(content, voice: false, stages: template.safety)
        let category = screening.moderation.score(screening.moderation.topCategory) > 0 ? screening.moderation.topCategory.rawValue : nil
        switch screening.decision {
        case .block:
            try await chats.recordModeration(messageID: id, moderation: screening.moderationJSON, decision: SafetyDecision.block.rawValue,
                                       blocked: false, write: "edit")
            try await recordEditVerdicts(screening.verdicts, message: message, thread: thread)
            let failure = try await gate.refuse(userID: thread.userID)
            throw MessageBlocked(failure: failure, messageID: id, currentETag: message.etag,
                                 verdicts: screening.verdicts, moderationCategory: category)
        case .allow, .crisis:
            let crisis = screening.decision == .crisis
                ? try await gate.crisisReply(assistant: assistants.declaration(for: thread.assistant), userID: thread.userID, userName: nil, selfHarm: screening.moderation.selfHarm)
                : nil
            let decision: SafetyDecision = crisis == nil ? .allow : .route
            let edited = try await chats.editMessage(id: id, content: content, ifMatch: ifMatch, by: actorID,
                                               moderation: screening.screened ? screening.moderationJSON : nil,
                                               decision: screening.screened ? decision.rawValue : nil)
            try await recordEditVerdicts(screening.verdicts, message: message, thread: thread)
            return EditedMessage(message: edited, decision: screening.decision, flags: crisis.map { [$0.flag] } ?? [], crisisReply: crisis?.text,
                                 verdicts: screening.verdicts, moderationCategory: crisis != nil ? ModerationCategory.selfHarm.rawValue : category)
        }
    }

    /// An edit's verdicts go with the turn that first sent the message, as that send's did.
    private func recordEditVerdicts(_ verdicts: [SafetyVerdict], message: MessageRecord, thread: ThreadRecord) async throws {
        guard let turnID = message.turnID, !verdicts.isEmpty else { return }
        let now = Date()
        try await chats.recordVerdicts(verdicts.map { verdict in
            SafetyVerdictRecord(at: now, turnID: turnID, threadID: thread.id, messageID: message.id, userID: thread.userID, ipHash: nil,
                                stage: verdict.stage, score: verdict.score, decision: verdict.decision.rawValue,
                                reason: "edit: " + verdict.reason)
        })
    }
}
