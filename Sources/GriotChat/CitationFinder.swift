import Foundation
import GriotProviders
import GriotSafety
import GriotStories
import GriotText

/// Finds the `[n]` markers of a reply and checks each cited sentence against the passage it
/// cites, and only that one: the sentence must be the reply's own, not the passage copied out
/// (a quote goes inside quotation marks), a quote the sentence gives must be verbatim in the passage, and
/// its names, numbers, dates, places and kinship words must be there too, without negating it
/// (`GroundedClaim`). A supported sentence's citation quotes the passage: the reply's own quote,
/// or else the passage's sentence that best supports the claim.
///
/// ```swift
/// let finder = CitationFinder(sources: sources)
/// for marker in finder.markers(in: reply) {
///     let claim = String(reply[CitationFinder.claimRange(before: marker.open, in: reply)])
///     if case .verified(let citation) = finder.check(number: marker.number, claim: claim) { … }
/// }
/// ```
struct CitationFinder: Sendable {
    /// A numbered passage as the model saw it, with what is needed to open it.
    struct Source: Sendable {
        var grounding: GroundingPassage
        var passage: Passage
        var interviewee: String?
        var sourceType: String
        /// The passage's story is public (anyone may read it, as archival text).
        var isPublic = false
        /// The passage's story is in the public domain: quoting it at length copies nobody's work.
        var isPublicDomain = false

        /// The story's description and recording date (`Story.description`, `creationDate`).
        var storyDescription: String?
        var storyDate: String?

        /// What the story says about itself: an answer may name it without inventing anything.
        var about: [String] {
            CitationCheck.about([grounding.storyTitle] + grounding.interviewees + grounding.people + grounding.places + (grounding.speaker.map { [$0] } ?? []),
                                description: storyDescription, date: storyDate)
        }
    }

    /// One `[n]` (or each number of `[1, 3]`) in a reply.
    struct Marker {
        var number: Int
        /// The `[` of the marker and just after its `]`.
        var open: String.Index
        var close: String.Index
    }

    var sources: [Int: Source]

    init(sources: [Source]) {
        self.sources = Dictionary(sources.map { ($0.grounding.number, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The markers of `text`, in order. Markers may list several numbers: [1], [1, 3], [2][4].
    func markers(in text: String) -> [Marker] {
        CitationMarkerScanner.markers(in: text).flatMap { marker in
            marker.numbers.map { Marker(number: $0, open: marker.range.lowerBound, close: marker.range.upperBound) }
        }
    }

    /// What a marker's citation came to.
    enum Check: Sendable {
        /// The citation, with a quote found verbatim in its passage, and the sentence supported by it.
        case verified(Citation)
        /// The sentence says what the passage does not (a fact or kinship word it lacks, its
        /// negation, or nothing it says): the citation goes out without a quote, marked unsupported.
        case unsupported(Citation, problems: [String])
        /// The reply quotes the passage, but the quote is not in it (after white space and
        /// quotation marks are evened out): the citation is left out.
        case fabricatedQuote(number: Int, quote: String)
        /// The reply cites a number that was not among the passages given.
        case outOfRange(number: Int)
        /// The passage has no sentence to quote (empty text).
        case unquotable(number: Int)
        /// The cited line is the passage's own text copied without quotation marks, not a sentence
        /// of the reply's that uses it (`PromptEcho.copies`; the echo stage withholds such lines):
        /// no citation, and not counted as verified.
        case copied(number: Int)
    }

    /// Checks the sentence `claim` (the text a marker ends, from `claimRange(before:in:)`) against
    /// passage `number`. A quote the claim gives (12 characters or more, and not the story's
    /// title) must be in the passage: the citation quotes it. Otherwise the claim must be
    /// supported by the passage, and the citation quotes the passage's sentence that supports it best.
    func check(number: Int, claim: String) -> Check {
        guard let source = sources[number] else { return .outOfRange(number: number) }
        let passageText = source.passage.text
        if PromptEcho.copies(claim, passage: passageText) { return .copied(number: number) }
        let scalars = Array(passageText.unicodeScalars)
        let judged = Self.judge(claim, passage: passageText, scalars: scalars, about: source.about, title: source.grounding.storyTitle)
        guard let verdict = judged.verdict else { return .fabricatedQuote(number: number, quote: judged.quoted ?? "") }
        var quoteRange = judged.quoteRange
        guard verdict.isSupported else {
            return .unsupported(citation(source, number: number, quote: "", range: 0..<0, unsupported: true), problems: verdict.problems)
        }
        if quoteRange == nil, let best = verdict.bestSentence { quoteRange = best.lowerBound..<min(best.upperBound, best.lowerBound + 400) }
        if quoteRange == nil, let first = SentenceSplitter.sentences(in: scalars).first { quoteRange = first.start..<min(first.end, first.start + 400) }
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
        return .verified(citation(source, number: number, quote: quote, range: quoteRange, unsupported: false))
    }

    /// The claim's quote found in the passage (nil verdict: a quote of 12 characters or more, not
    /// the story's title, that the passage does not have), and the claim checked around it.
    static func judge(_ claim: String, passage: String, scalars: [Unicode.Scalar], about: [String], title: String)
        -> (verdict: GroundedClaim.Verdict?, quoted: String?, quoteRange: Range<Int>?) {
        var quoteRange: Range<Int>?
        var quoted: String?
        if let quotation = Self.lastQuotation(in: claim).map(VerbatimMatch.trimmed), quotation.unicodeScalars.count >= 12, quotation != title {
            guard let range = VerbatimMatch.find(quotation, in: scalars) else { return (nil, quotation, nil) }
            quoteRange = range
            quoted = quotation
        }
        return (GroundedClaim.check(claim, passage: passage, about: about, quoted: quoted), quoted, quoteRange)
    }

    private func citation(_ source: Source, number: Int, quote: String, range: Range<Int>, unsupported: Bool) -> Citation {
        Citation(
            number: number, storyID: source.passage.storyID, passageID: source.passage.id, title: source.grounding.storyTitle,
            interviewee: source.interviewee, quote: quote,
            quoteStart: source.passage.startOffset + range.lowerBound, quoteEnd: source.passage.startOffset + range.upperBound,
            startSeconds: source.passage.startSeconds, sourceType: source.sourceType, unsupported: unsupported ? true : nil)
    }

    /// The range of the sentence a marker cites: back from the marker (past markers and white
    /// space right before it, and a sentence end: "She rowed. [1]" cites "She rowed.") to the
    /// previous sentence end, line break or marker.
    static func claimRange(before marker: String.Index, in text: String) -> Range<String.Index> {
        var end = marker
        while true {
            while end > text.startIndex, text[text.index(before: end)] == " " { end = text.index(before: end) }
            guard end > text.startIndex, text[text.index(before: end)] == "]",
                  let open = numberListOpen(closingAt: text.index(before: end), in: text) else { break }
            end = open
        }
        var start = end
        // A sentence end right before the marker belongs to the sentence it cites.
        if start > text.startIndex, ".!?".contains(text[text.index(before: start)]) { start = text.index(before: start) }
        // The quotation marks of text[start..<end], counted as `start` moves back (counting them
        // again at each sentence end made a long reply cost its length squared).
        var closingQuotes = text[start..<end].filter { $0 == "”" }.count
        var openingQuotes = text[start..<end].filter { $0 == "“" }.count
        while start > text.startIndex {
            let previous = text.index(before: start)
            let character = text[previous]
            if character == "]" || character == "\n" { break }
            if ".!?".contains(character), start < end, text[start] == " " {
                // A sentence end followed by a space; but not inside a quotation (one that closes
                // between here and the marker without opening there: “We left. Then we came back” [1]).
                let quotesOpen = closingQuotes > openingQuotes
                if !quotesOpen { break }
            }
            if character == "”" { closingQuotes += 1 } else if character == "“" { openingQuotes += 1 }
            start = previous
        }
        while start < end, text[start] == " " { start = text.index(after: start) }
        return start..<end
    }

    /// The "[" of a bracket of digits, commas and spaces that closes at `close`, found by walking
    /// back over those alone (not by searching the whole text before it for a "[").
    private static func numberListOpen(closingAt close: String.Index, in text: String) -> String.Index? {
        var index = close
        while index > text.startIndex {
            index = text.index(before: index)
            let character = text[index]
            if character == "[" { return index }
            guard character.isNumber || character == "," || character == " " else { return nil }
        }
        return nil
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
/// count as one space, curly and straight quotation marks and apostrophes as the same mark
/// (models write either), and a letter's case does not count (a quotation opening a sentence is
/// capitalised: “The water came slow”). Returns the match's range in the passage's scalars.
enum VerbatimMatch {
    /// The quote without the punctuation a writer puts inside the closing mark (“…slow.”,
    /// “…slow,” and then) or before the words (“…the water”), which the passage may not have there.
    static func trimmed(_ quote: String) -> String {
        let edges: Set<Unicode.Scalar> = [".", ",", ";", ":", "!", "?", "\u{2026}", " "]
        var scalars = Substring(quote).unicodeScalars[...]
        while let last = scalars.last, edges.contains(last) { scalars.removeLast() }
        while let first = scalars.first, edges.contains(first) { scalars.removeFirst() }
        return String(String.UnicodeScalarView(scalars))
    }

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
            default:
                // One scalar for one: a letter whose lower case is a single scalar folds to it.
                let lower = scalar.properties.lowercaseMapping.unicodeScalars
                out.append(lower.count == 1 ? lower.first! : scalar)
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

/// One cited sentence checked against one passage as a turn checks it (`CitationFinder.check`:
/// the quote, then the facts, kinship words and negation around it), for the benchmarks that
/// measure the check on the path a reply takes.
///
/// ```swift
/// CitationCheck.outcome(claim: "She said “the water came slow” [1].", passage: text, about: about, title: title)   // .verified
/// ```
public enum CitationCheck {
    public enum Outcome: String, Sendable {
        /// The citation goes out with its quote.
        case verified
        /// `citation_unsupported`: the citation goes out without a quote, and the turn is marked "AI may be inaccurate".
        case unsupported
        /// `citation_dropped`: the sentence is withheld, its quote not being in the passage.
        case fabricatedQuote = "fabricated_quote"
    }

    /// What a story says about itself that a cited sentence may state without the passage: its
    /// title, tellers, people, places and the passage's speaker (`about`), as the turn gives them.
    /// The story's description and recording date are what a reader has beside it too: an
    /// answer may say when the story was recorded ("in a 1976 recording") and who asked whom.
    public static func about(_ about: [String], description: String?, date: String?) -> [String] {
        about + [date, description].compactMap { $0?.isEmpty == false ? $0 : nil }
    }

    public static func outcome(claim: String, passage: String, about: [String], title: String) -> Outcome {
        let judged = CitationFinder.judge(claim, passage: passage, scalars: Array(passage.unicodeScalars), about: about, title: title)
        guard let verdict = judged.verdict else { return .fabricatedQuote }
        return verdict.isSupported ? .verified : .unsupported
    }
}
