import GriotText

/// A short window of a passage around the words that matched, with those words located.
public struct Snippet: Sendable, Hashable, Codable {
    /// The window's text, with "…" where it was cut from a longer passage.
    public var text: String
    /// Unicode scalar ranges of the matched words within `text`.
    public var highlights: [WordSpan]

    /// The text with every matched word wrapped in `open` and `close`.
    public func marked(open: String = "**", close: String = "**") -> String {
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var cursor = 0
        for highlight in highlights {
            result.append(contentsOf: scalars[cursor..<highlight.start])
            result.append(contentsOf: open.unicodeScalars)
            result.append(contentsOf: scalars[highlight.start..<highlight.end])
            result.append(contentsOf: close.unicodeScalars)
            cursor = highlight.end
        }
        result.append(contentsOf: scalars[cursor...])
        return String(result)
    }
}

extension WordSpan: Codable {
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        self.init(start: try container.decode(Int.self), end: try container.decode(Int.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(start)
        try container.encode(end)
    }
}

/// Picks the window of a passage that holds the most distinct query terms (then the most
/// matches), about `windowWords` words long.
///
/// ```swift
/// let snippet = SnippetBuilder(analyzer: index.analyzer).snippet(of: passage.text, terms: ["flood"])
/// print(snippet.marked())
/// ```
public struct SnippetBuilder: Sendable {
    public var analyzer: TextAnalyzer
    public var windowWords = 36

    public init(analyzer: TextAnalyzer, windowWords: Int = 36) {
        self.analyzer = analyzer
        self.windowWords = windowWords
    }

    public func snippet(of text: String, terms: Set<String>) -> Snippet {
        let scalars = Array(text.unicodeScalars)
        let words = WordTokenizer.spans(in: scalars)
        guard !words.isEmpty else { return Snippet(text: text, highlights: []) }
        let wordTerms = words.map { analyzer.term(for: scalars[$0.start..<$0.end]) }
        let matched = wordTerms.map { $0.map(terms.contains) ?? false }
        let window = min(windowWords, words.count)
        // Candidate windows open a few words before each match (for context), clamped to the text.
        var bestStart = 0
        var bestKey = (distinct: -1, total: -1)
        var tried = Set<Int>()
        for position in words.indices where matched[position] || position == 0 {
            let start = max(0, min(position - 4, words.count - window))
            guard tried.insert(start).inserted else { continue }
            var distinct = Set<String>()
            var total = 0
            for index in start..<(start + window) where matched[index] {
                total += 1
                distinct.insert(wordTerms[index] ?? "")
            }
            if (distinct.count, total) > bestKey {
                bestKey = (distinct.count, total)
                bestStart = start
            }
        }
        let first = bestStart
        let last = first + window - 1
        let lower = first == 0 ? 0 : words[first].start
        var upper = last == words.count - 1 ? scalars.count : words[last].end
        while upper < scalars.count, upper < words[last].end + 1, isClosingPunctuation(scalars[upper]) { upper += 1 }
        let prefix = lower > 0 ? "…" : ""
        let suffix = upper < scalars.count ? "…" : ""
        var body = String.UnicodeScalarView()
        body.append(contentsOf: scalars[lower..<upper])
        let shift = prefix.unicodeScalars.count - lower
        let highlights = (first...last).filter { matched[$0] }.map {
            WordSpan(start: words[$0].start + shift, end: words[$0].end + shift)
        }
        let joined = prefix + String(body).replacingNewlines() + suffix
        return Snippet(text: joined, highlights: highlights)
    }

    private func isClosingPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        ".,;:!?\"')”’".unicodeScalars.contains(scalar)
    }
}

extension String {
    /// Newlines become spaces so a snippet reads as one line; offsets are unchanged.
    func replacingNewlines() -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
    }
}
