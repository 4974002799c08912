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
/// for marker in finder.markers(in: reply) { if case .verified(let citation) = finder.check(number: marker.number, in: reply, at: marker.end) { … } }
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

    /// What a marker's citation came to.
    enum Check: Sendable {
        /// The citation, with a quote found verbatim in its passage.
        case verified(Citation)
        /// The reply quotes the passage, but the quote is not in it (after white space and
        /// quotation marks are evened out): the citation is left out.
        case fabricatedQuote(number: Int, quote: String)
        /// The reply cites a number that was not among the passages given.
        case outOfRange(number: Int)
        /// The passage has no sentence to quote (empty text).
        case unquotable(number: Int)
    }

    /// Turns a marker into a citation whose quote is verbatim in the cited passage: the quote the
    /// reply gives when there is one (12 characters or more) and it is in the passage; otherwise
    /// the passage's sentence that best matches the claim. A reply quote that is not in the
    /// passage is reported, never replaced by another sentence.
    func check(number: Int, in text: String, at marker: String.Index) -> Check {
        guard let source = sources[number] else { return .outOfRange(number: number) }
        let claim = Self.claim(before: marker, in: text)
        let passageText = source.passage.text
        let scalars = Array(passageText.unicodeScalars)
        var quoteRange: Range<Int>?

        if let quoted = Self.lastQuotation(in: claim), quoted.unicodeScalars.count >= 12 {
            guard let range = VerbatimMatch.find(quoted, in: scalars) else { return .fabricatedQuote(number: number, quote: quoted) }
            quoteRange = range
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
        guard var quoteRange else { return .unquotable(number: number) }
        // The quote a citation carries is trimmed, and its offsets with it.
        while quoteRange.lowerBound < quoteRange.upperBound, scalars[quoteRange.lowerBound].properties.isWhitespace {
            quoteRange = (quoteRange.lowerBound + 1)..<quoteRange.upperBound
        }
        while quoteRange.lowerBound < quoteRange.upperBound, scalars[quoteRange.upperBound - 1].properties.isWhitespace {
            quoteRange = quoteRange.lowerBound..<(quoteRange.upperBound - 1)
        }
        let quote = String(String.UnicodeScalarView(scalars[quoteRange]))
        // Checked again as a client would: the quote must be in the passage it names.
        guard VerbatimMatch.find(quote, in: scalars) != nil else { return .fabricatedQuote(number: number, quote: quote) }
        return .verified(Citation(
            number: number, storyID: source.passage.storyID, passageID: source.passage.id, title: source.grounding.storyTitle,
            interviewee: source.interviewee, quote: quote,
            quoteStart: source.passage.startOffset + quoteRange.lowerBound, quoteEnd: source.passage.startOffset + quoteRange.upperBound,
            startSeconds: source.passage.startSeconds, sourceType: source.sourceType))
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

/// Finds a quote in a passage "verbatim after white-space normalisation": runs of white space
/// count as one space, and curly and straight quotation marks and apostrophes as the same mark
/// (models write either). Returns the match's range in the passage's scalars.
enum VerbatimMatch {
    static func find(_ quote: String, in passage: [Unicode.Scalar]) -> Range<Int>? {
        let needle = normalized(Array(quote.unicodeScalars)).scalars
        let (haystack, origin) = normalized(passage)
        guard let start = firstOffset(of: needle, in: haystack) else { return nil }
        return origin[start]..<(origin[start + needle.count - 1] + 1)
    }

    /// Whether normalised `needle` occurs in normalised `haystack` (both from `normalized`).
    static func contains(_ needle: [Unicode.Scalar], in haystack: [Unicode.Scalar]) -> Bool {
        firstOffset(of: needle, in: haystack) != nil
    }

    private static func firstOffset(of needle: [Unicode.Scalar], in haystack: [Unicode.Scalar]) -> Int? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        var start = 0
        while start + needle.count <= haystack.count {
            if haystack[start] == needle[0], haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
            start += 1
        }
        return nil
    }

    /// The scalars with white space collapsed and quotation marks evened out, and where each came from.
    static func normalized(_ scalars: [Unicode.Scalar]) -> (scalars: [Unicode.Scalar], origin: [Int]) {
        var out: [Unicode.Scalar] = []
        var origin: [Int] = []
        out.reserveCapacity(scalars.count)
        origin.reserveCapacity(scalars.count)
        var lastWasSpace = true
        for (index, scalar) in scalars.enumerated() {
            if scalar.properties.isWhitespace {
                if !lastWasSpace {
                    out.append(" ")
                    origin.append(index)
                }
                lastWasSpace = true
                continue
            }
            lastWasSpace = false
            switch scalar {
            case "\u{2018}", "\u{2019}", "\u{02BC}": out.append("'")
            case "\u{201C}", "\u{201D}": out.append("\"")
            default: out.append(scalar)
            }
            origin.append(index)
        }
        if out.last == " " {
            out.removeLast()
            origin.removeLast()
        }
        return (out, origin)
    }
}
