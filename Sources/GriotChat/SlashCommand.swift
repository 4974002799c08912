/// `/quiz`, `/summary` and `/resources` at the start of a message: each picks the prompt's
/// matching variant and is announced to the client with a chips event.
///
/// ```swift
/// SlashCommand.parse("/quiz the flood story")   // (command: .quiz, rest: "the flood story")
/// ```
public enum SlashCommand: String, Sendable, Hashable, Codable, CaseIterable {
    case quiz, summary, resources

    /// The command and the rest of the message, or nil when the message is not a known command
    /// (an unknown `/word` is an ordinary message, so "/etc/hosts?" is still a question).
    public static func parse(_ message: String) -> (command: SlashCommand, rest: String)? {
        let trimmed = message.drop(while: { $0.isWhitespace })
        guard trimmed.first == "/" else { return nil }
        let word = trimmed.dropFirst().prefix(while: { $0.isLetter })
        guard let command = SlashCommand(rawValue: word.lowercased()) else { return nil }
        let after = trimmed.dropFirst(1 + word.count)
        guard after.isEmpty || after.first!.isWhitespace else { return nil }
        return (command, String(after.drop(while: { $0.isWhitespace })))
    }
}
