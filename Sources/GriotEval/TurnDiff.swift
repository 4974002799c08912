import Foundation
import GriotChat

/// What differs between a stored turn and its replay: settings, passages, text, citations,
/// flags, ledger, groundedness and status.
public struct TurnDiff: Codable, Sendable, Equatable {
    public struct Change: Codable, Sendable, Equatable {
        public var field: String
        public var before: String
        public var after: String
    }

    public struct Passage: Codable, Sendable, Equatable {
        public var passageID: String
        public var storyID: String
        public var rank: Int
    }

    public struct Move: Codable, Sendable, Equatable {
        public var passageID: String
        public var storyID: String
        public var from: Int
        public var to: Int
    }

    /// A run of words the two texts share, or that only one has.
    public struct TextPart: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable { case same, removed, added }
        public var kind: Kind
        public var text: String
    }

    /// Settings that differ: prompt version and hash, provider, model, index version, retrieval.
    public var settings: [Change]
    public var passagesAdded: [Passage]
    public var passagesRemoved: [Passage]
    public var passagesMoved: [Move]
    public var textChanged: Bool
    /// The answer as a word diff; empty when the texts are the same.
    public var text: [TextPart]
    /// Cited passages (`[n] passage-id`) only one side has.
    public var citationsAdded: [String]
    public var citationsRemoved: [String]
    public var flagsAdded: [String]
    public var flagsRemoved: [String]
    /// Ledger parts whose tokens differ, and the prompt's total.
    public var ledger: [Change]
    public var outcome: [Change]

    public var isEmpty: Bool {
        settings.isEmpty && passagesAdded.isEmpty && passagesRemoved.isEmpty && passagesMoved.isEmpty && !textChanged
            && citationsAdded.isEmpty && citationsRemoved.isEmpty && flagsAdded.isEmpty && flagsRemoved.isEmpty && ledger.isEmpty && outcome.isEmpty
    }

    public init(_ before: TurnSnapshot, _ after: TurnSnapshot) {
        func change(_ field: String, _ old: String?, _ new: String?) -> Change? {
            old == new ? nil : Change(field: field, before: old ?? "-", after: new ?? "-")
        }
        settings = [
            change("prompt_version", String(before.promptVersion), String(after.promptVersion)),
            change("prompt_hash", before.promptHash, after.promptHash),
            change("provider", before.provider, after.provider),
            change("model", before.model, after.model),
            change("index_version", before.indexVersion, after.indexVersion),
            change("retrieval", before.retrieval, after.retrieval.replacingOccurrences(of: " pinned", with: "")),
        ].compactMap { $0 }

        let old = Dictionary(before.passages.map { ($0.passageID, $0) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(after.passages.map { ($0.passageID, $0) }, uniquingKeysWith: { first, _ in first })
        passagesAdded = after.passages.filter { old[$0.passageID] == nil }.map { Passage(passageID: $0.passageID, storyID: $0.storyID, rank: $0.number) }
        passagesRemoved = before.passages.filter { new[$0.passageID] == nil }.map { Passage(passageID: $0.passageID, storyID: $0.storyID, rank: $0.number) }
        passagesMoved = after.passages.compactMap { passage in
            guard let was = old[passage.passageID], was.number != passage.number else { return nil }
            return Move(passageID: passage.passageID, storyID: passage.storyID, from: was.number, to: passage.number)
        }

        textChanged = before.text != after.text
        text = textChanged ? Self.wordDiff(before.text, after.text) : []

        func cited(_ snapshot: TurnSnapshot) -> [String] { snapshot.citations.map { "[\($0.number)] \($0.passageID)" } }
        citationsAdded = cited(after).filter { !cited(before).contains($0) }
        citationsRemoved = cited(before).filter { !cited(after).contains($0) }
        let oldFlags = before.flags.map(\.kind.rawValue), newFlags = after.flags.map(\.kind.rawValue)
        flagsAdded = newFlags.filter { !oldFlags.contains($0) }
        flagsRemoved = oldFlags.filter { !newFlags.contains($0) }

        var ledger: [Change] = []
        let parts = (before.ledger?.entries ?? []).map(\.part) + (after.ledger?.entries ?? []).map(\.part)
        var seen = Set<String>()
        for part in parts where seen.insert(part).inserted {
            let old = before.ledger?.entries.first { $0.part == part }.map { String($0.tokens) }
            let new = after.ledger?.entries.first { $0.part == part }.map { String($0.tokens) }
            if let difference = change(part, old, new) { ledger.append(difference) }
        }
        if let total = change("prompt_tokens", before.ledger.map { String($0.promptTokens) }, after.ledger.map { String($0.promptTokens) }) {
            ledger.append(total)
        }
        self.ledger = ledger
        outcome = [
            change("status", before.status?.rawValue, after.status?.rawValue),
            change("groundedness", before.groundedness.map { String(format: "%.2f", $0) }, after.groundedness.map { String(format: "%.2f", $0) }),
            change("failure", before.failure?.code, after.failure?.code),
        ].compactMap { $0 }
    }

    /// Words (with the white space after them) as runs of same, removed and added.
    static func wordDiff(_ old: String, _ new: String) -> [TextPart] {
        let a = words(old), b = words(new)
        let difference = b.difference(from: a)
        var removed = Set<Int>(), inserted = Set<Int>()
        for change in difference {
            switch change {
            case .remove(let offset, _, _): removed.insert(offset)
            case .insert(let offset, _, _): inserted.insert(offset)
            }
        }
        // Walk both sides: a removal is reported where the old word stood, an insertion where the new one does.
        var parts: [TextPart] = []
        func append(_ kind: TextPart.Kind, _ word: String) {
            if let last = parts.last, last.kind == kind { parts[parts.count - 1].text += word } else { parts.append(TextPart(kind: kind, text: word)) }
        }
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, removed.contains(i) {
                append(.removed, a[i]); i += 1
            } else if j < b.count, inserted.contains(j) {
                append(.added, b[j]); j += 1
            } else if i < a.count, j < b.count {
                append(.same, b[j]); i += 1; j += 1
            } else if i < a.count {
                append(.removed, a[i]); i += 1
            } else {
                append(.added, b[j]); j += 1
            }
        }
        return parts
    }

    /// Each word with the white space that follows it, so that joining them gives the text back.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inSpace = false
        for character in text {
            if character.isWhitespace {
                inSpace = true
            } else if inSpace {
                words.append(current)
                current = ""
                inSpace = false
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
