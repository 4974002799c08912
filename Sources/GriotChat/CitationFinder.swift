import Foundation
import GriotProviders
import GriotStories
import GriotText

/// Finds the `[n]` markers of a reply and turns each into a citation with a verbatim quote from
/// the cited passage: the quote the reply gives when it is found in the passage, otherwise the
/// passage's sentence that best matches the claim before the marker.
///
/// ```swift
/// let finder = CitationFinder(sources: sources)
/// let citations = finder.citations(in: "She rowed to the levee [1].", after: 0)
/// ```
struct CitationFinder: Sendable {
    /// A numbered passage as the model saw it, with what is needed to open it.
    struct Source: Sendable {
        var grounding: GroundingPassage
        var passage: Passage
        var interviewee: String?
        var sourceType: String
    }

    var sources: [Int: Source]
    private let analyzer = TextAnalyzer()

    init(sources: [Source]) {
        self.sources = Dictionary(sources.map { ($0.grounding.number, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Markers that end at or after `start` (a character offset into `text`), with the citation of each.
    /// Markers may list several numbers: [1], [1, 3], [2][4].
    func markers(in text: String) -> [(number: Int, end: String.Index)] {
        var found: [(Int, String.Index)] = []
        var index = text.startIndex
        while let open = text[index...].firstIndex(of: "[") {
            guard let close = text[open...].firstIndex(of: "]") else { break }
            let inside = text[text.index(after: open)..<close]
            let numbers = inside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if !numbers.isEmpty, numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) && $0.count <= 3 }) {
                for number in numbers { found.append((Int(number)!, open)) }
            }
            index = text.index(after: open)
        }
        return found
    }

    func citation(number: Int, in text: String, at marker: String.Index) -> Citation? {
        guard let source = sources[number] else { return nil }
        let claim = Self.claim(before: marker, in: text)
        let passageText = source.passage.text
        let scalars = Array(passageText.unicodeScalars)
        var quoteRange: Range<Int>?

        // The reply's own quotation, when it is verbatim in the passage.
        if let quoted = Self.lastQuotation(in: claim), quoted.unicodeScalars.count >= 12,
           let range = passageText.range(of: quoted) {
            let start = passageText.unicodeScalars.distance(from: passageText.unicodeScalars.startIndex, to: range.lowerBound)
            quoteRange = start..<(start + quoted.unicodeScalars.count)
        }
        if quoteRange == nil {
            let claimTerms = Set(analyzer.terms(in: claim))
            var best: (score: Double, span: WordSpan)?
            for span in SentenceSplitter.sentences(in: scalars) {
                let sentence = String(String.UnicodeScalarView(scalars[span.start..<span.end]))
                let terms = Set(analyzer.terms(in: sentence))
                guard !terms.isEmpty else { continue }
                let overlap = Double(terms.intersection(claimTerms).count) / Double(terms.union(claimTerms).count)
                if best == nil || overlap > best!.score { best = (overlap, span) }
            }
            if let best { quoteRange = best.span.start..<min(best.span.end, best.span.start + 400) }
        }
        guard let quoteRange else { return nil }
        let quote = String(String.UnicodeScalarView(scalars[quoteRange])).trimmingCharacters(in: .whitespacesAndNewlines)
        return Citation(
            number: number, storyID: source.passage.storyID, passageID: source.passage.id, title: source.grounding.storyTitle,
            interviewee: source.interviewee, quote: quote,
            quoteStart: source.passage.startOffset + quoteRange.lowerBound, quoteEnd: source.passage.startOffset + quoteRange.upperBound,
            startSeconds: source.passage.startSeconds, sourceType: source.sourceType)
    }

    /// The text of the sentence a marker ends: back to the previous sentence end or marker.
    static func claim(before marker: String.Index, in text: String) -> String {
        var start = marker
        while start > text.startIndex {
            let previous = text.index(before: start)
            let character = text[previous]
            if character == "]" || character == "\n" { break }
            if ".!?".contains(character), start < marker, text[start] == " " {
                // A sentence end followed by a space; but not inside a quotation still open.
                let quotesOpen = text[start..<marker].filter { $0 == "“" }.count > text[start..<marker].filter { $0 == "”" }.count
                if !quotesOpen { break }
            }
            start = previous
        }
        return String(text[start..<marker]).trimmingCharacters(in: .whitespaces)
    }

    /// The last “…” or "…" quotation in a claim.
    static func lastQuotation(in claim: String) -> String? {
        for (open, close) in [("“", "”"), ("\"", "\"")] {
            guard let end = claim.range(of: close, options: .backwards),
                  let begin = claim[..<end.lowerBound].range(of: open, options: .backwards) else { continue }
            let quoted = claim[begin.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespaces)
            if !quoted.isEmpty { return quoted }
        }
        return nil
    }
}
