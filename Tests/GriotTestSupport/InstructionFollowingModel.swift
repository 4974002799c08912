import Foundation

/// A scripted model that reads the system prompt, for tests that need a reader of the prompt
/// (prompt releases, replays with another version) without a model server.
///
/// It follows one instruction a prompt can give, `reply with exactly: TEXT`, by replying TEXT.
/// Otherwise it does what the Griot's prompt asks: it quotes the two source sentences that share
/// the most words with the question and cites each (`… [1]`); when none shares a word it says the
/// stories do not cover the question.
///
/// ```swift
/// try await StubChatServer.with(answering: InstructionFollowingModel.reply) { server in … }
/// ```
public enum InstructionFollowingModel {
    public static let model = "instruction-follower"

    @Sendable public static func reply(_ index: Int, _ request: StubChatServer.Request) -> StubReply {
        .stream(pieces(of: answer(to: request.json)), model: model)
    }

    /// The reply to a chat-completions body.
    public static func answer(to body: [String: Any]) -> String {
        let messages = (body["messages"] as? [[String: Any]]) ?? []
        let system = messages.filter { $0["role"] as? String == "system" }.compactMap { $0["content"] as? String }.joined(separator: "\n")
        if let range = system.range(of: "reply with exactly:", options: .caseInsensitive) {
            let rest = system[range.upperBound...].drop { $0 == " " }
            return String(rest.prefix { $0 != "\n" }).trimmingCharacters(in: .whitespaces)
        }
        let sources = messages.compactMap { $0["content"] as? String }.flatMap(quotedSources)
        let question = messages.last { $0["role"] as? String == "user" }?["content"] as? String ?? ""
        // The source sentences that share the most words with the question, best first.
        let asked = words(question)
        let sentences = sources.flatMap { source in
            source.text.split(omittingEmptySubsequences: true) { ".!?".contains($0) }
                .map { (number: source.number, text: $0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        let ranked = sentences.map { ($0, words($0.text).intersection(asked).count) }.filter { $0.1 > 0 }.sorted { $0.1 > $1.1 }
        guard !ranked.isEmpty else { return "The family's stories do not cover this yet." }
        return ranked.prefix(2).map { "The story says: \($0.0.text) [\($0.0.number)]." }.joined(separator: " ")
    }

    private static func words(_ text: String) -> Set<String> {
        Set(text.lowercased().split { !$0.isLetter }.map(String.init).filter { $0.count > 3 })
    }

    /// The numbered sources of a message written as the context assembler writes them:
    /// `[n] "Title" …` on one line, then the text in a fence of backticks.
    static func quotedSources(_ message: String) -> [(number: Int, text: String)] {
        var found: [(Int, String)] = []
        let lines = message.components(separatedBy: "\n")
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("["), let close = line.firstIndex(of: "]"), let number = Int(line[line.index(after: line.startIndex)..<close]),
               index + 1 < lines.count, lines[index + 1].hasPrefix("```") {
                let fence = String(lines[index + 1].prefix { $0 == "`" })
                var body: [String] = []
                index += 2
                while index < lines.count, lines[index] != fence {
                    body.append(lines[index])
                    index += 1
                }
                found.append((number, body.joined(separator: "\n")))
            }
            index += 1
        }
        return found
    }

    /// The reply in pieces of a few words, as a model streams it.
    static func pieces(of text: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            current += (current.isEmpty && pieces.isEmpty ? "" : " ") + word
            if current.count > 12 {
                pieces.append(current)
                current = ""
            }
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }
}
