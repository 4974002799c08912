import Foundation

/// Replays as an operator reads them: per turn what changed, with the answer as a word diff
/// (`[-removed-]{+added+}`, long unchanged runs shortened).
public enum ReplayText {
    public static func render(_ results: [ReplayResult]) -> String {
        results.map(render).joined(separator: "\n")
    }

    static func render(_ result: ReplayResult) -> String {
        let diff = result.diff
        var lines = ["turn \(result.turnID) (thread \(result.threadID)): \(quoted(result.question, limit: 80))"]
        let source = switch result.providerSource {
        case "played": "the recorded reply (cassette)"
        case "live": "the live provider \(result.replayed.provider)"
        default: "no model call"
        }
        lines.append("  reply from: \(source)")
        if let note = result.cassetteNote { lines.append("  cassette: \(note)") }
        lines.append("  settings: " + (diff.settings.isEmpty ? "same" : diff.settings.map(describe).joined(separator: "; ")))
        var passages: [String] = []
        passages += diff.passagesAdded.map { "+[\($0.rank)] \($0.storyID) \($0.passageID)" }
        passages += diff.passagesRemoved.map { "-[\($0.rank)] \($0.storyID) \($0.passageID)" }
        passages += diff.passagesMoved.map { "\($0.storyID) \($0.passageID) [\($0.from)]→[\($0.to)]" }
        lines.append("  passages: " + (passages.isEmpty ? "same \(result.replayed.passages.count)" : ""))
        lines += passages.map { "    " + $0 }
        if diff.textChanged {
            lines.append("  answer: changed")
            lines.append("    " + wordDiff(diff.text).replacingOccurrences(of: "\n", with: "\n    "))
        } else {
            lines.append("  answer: same text (\(result.replayed.text.utf8.count) bytes)")
        }
        let citations = diff.citationsAdded.map { "+" + $0 } + diff.citationsRemoved.map { "-" + $0 }
        lines.append("  citations: " + (citations.isEmpty ? "same \(result.replayed.citations.count)" : citations.joined(separator: ", ")))
        let flags = diff.flagsAdded.map { "+" + $0 } + diff.flagsRemoved.map { "-" + $0 }
        lines.append("  flags: " + (flags.isEmpty ? (result.replayed.flags.isEmpty ? "none" : "same") : flags.joined(separator: ", ")))
        lines.append("  ledger: " + (diff.ledger.isEmpty ? "same" : diff.ledger.map(describe).joined(separator: "; ")))
        if !diff.outcome.isEmpty { lines.append("  outcome: " + diff.outcome.map(describe).joined(separator: "; ")) }
        return lines.joined(separator: "\n")
    }

    static func describe(_ change: TurnDiff.Change) -> String {
        func short(_ value: String) -> String { value.hasPrefix("sha256:") ? String(value.prefix(19)) + "…" : value }
        return "\(change.field) \(short(change.before)) → \(short(change.after))"
    }

    /// The word diff with unchanged runs over `context * 2` characters shortened to their ends.
    static func wordDiff(_ parts: [TurnDiff.TextPart], context: Int = 40) -> String {
        var out = ""
        for (index, part) in parts.enumerated() {
            switch part.kind {
            case .removed: out += "[-\(part.text)-]"
            case .added: out += "{+\(part.text)+}"
            case .same:
                let text = part.text
                guard text.count > context * 2 else { out += text; continue }
                let head = index == 0 ? "" : String(text.prefix(context))
                let tail = index == parts.count - 1 ? "" : String(text.suffix(context))
                out += head + "…" + tail
            }
        }
        return out
    }

    static func quoted(_ text: String, limit: Int) -> String {
        let line = text.replacingOccurrences(of: "\n", with: " ")
        return "“" + (line.count > limit ? line.prefix(limit) + "…" : line) + "”"
    }
}
