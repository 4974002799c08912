import Foundation
import GriotProviders
import GriotText

/// The SelfFull coach's answer without a model: a reflection of what the person wrote and one
/// small next step, or for a command the summary of what they brought up, three exercises, or a
/// short self-check. The coach retrieves nothing, so nothing here reads passages.
///
/// ```swift
/// let coach = AssistantDeclaration(id: "coach", displayName: "the SelfFull coach", offline: CoachComposer())
/// CoachComposer().compose(request)   // "It sounds like you feel stuck with your routine. ..."
/// ```
public struct CoachComposer: OfflineComposer {
    /// The offline responder's name: no language model wrote the reply.
    public var modelName: String { ExtractiveResponder.model }

    public init() {}

    public func compose(_ request: ChatRequest) -> String {
        let grounding = request.grounding
        var reply = switch grounding.command {
        case "summary": summary(request.messages)
        case "resources": resources()
        case "quiz": quiz()
        default: reflection(grounding.question)
        }
        if let language = grounding.language, let note = ExtractiveResponder.languageNote(for: language) {
            reply = note + "\n\n" + reply
        }
        return reply
    }

    private func reflection(_ message: String) -> String {
        let first = Self.firstSentence(message)
        let reflected = Self.reflect(first)
        return """
            It sounds like \(reflected). Thank you for putting that into words.

            What would be one small step you could take on this before your next session? If it helps, bring what you notice this week to your coach.
            """
    }

    private func summary(_ messages: [ChatMessage]) -> String {
        let said = messages.filter { $0.role == .user }.map(\.content).filter { SlashCommand.parse($0) == nil }.suffix(5)
        guard !said.isEmpty else { return "There is nothing to summarise yet: this conversation has just begun. What would you like to work on?" }
        return (["Here is what you have brought up so far:"] + said.map { "- " + Self.firstSentence($0) }
                + ["Which of these would you like to take to your next session?"]).joined(separator: "\n")
    }

    private func resources() -> String {
        """
        Three exercises that often help between sessions:
        - A two-minute check-in each evening: what went well, what was hard, what you learned.
        - Writing down one small next step and when you will take it, where you will see it.
        - Noticing one moment this week when you felt most like yourself, and what made it so.
        Your coach can suggest readings that fit your course.
        """
    }

    private func quiz() -> String {
        """
        Here is a short self-check; answer one at a time.
        1. What has changed for you since the start of this course?
        2. What is one thing you are doing differently this week?
        3. What would you like your coach to know before your next session?
        """
    }

    static func firstSentence(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard let span = SentenceSplitter.sentences(in: scalars).first else { return text }
        return String(String.UnicodeScalarView(scalars[span.start..<span.end])).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// "I feel stuck with my routine." → "you feel stuck with your routine"
    static func reflect(_ sentence: String) -> String {
        let swaps = ["i": "you", "i'm": "you're", "i’m": "you’re", "i've": "you've", "i’ve": "you’ve", "i'd": "you'd", "i'll": "you'll",
                     "me": "you", "my": "your", "mine": "yours", "myself": "yourself", "am": "are", "was": "were", "we": "you", "our": "your", "us": "you"]
        let trimmed = sentence.trimmingCharacters(in: CharacterSet(charactersIn: ".!?").union(.whitespaces))
        let words = trimmed.split(separator: " ").map { word -> String in
            let bare = word.lowercased().trimmingCharacters(in: .punctuationCharacters)
            return swaps[bare] ?? String(word)
        }
        let text = words.joined(separator: " ")
        guard let first = text.first else { return "a lot is on your mind" }
        return first.lowercased() + text.dropFirst()
    }
}
