import Foundation
import GriotSafety
import GriotText

/// Holds the model's text back until a sentence ends, then runs the output stages on whole
/// sentences before any of it is sent: output moderation (a sentence over the policy is
/// replaced) and the PII scrubber (values the user did not share in this thread are masked).
/// A value therefore never leaks in a partial delta: the text a client sees, and the text that
/// is stored, has always been through both. Output moderation judges what the model wrote, not
/// the archive it quotes: a quotation found verbatim in one of the passages the model was given
/// (a 1937 interview in the words of its time) is set aside before the sentence is scored.
///
/// ```swift
/// var gate = OutputGate(scrubber: scrubber, shared: scrubber.sharedKeys(in: "call me on 415-555-0132"), moderator: nil)
/// gate.feed("Her number was 212-555-0199. She")   // "Her number was [PHONE]. "
/// gate.finish()                                   // "She"
/// ```
struct OutputGate: Sendable {
    let scrubber: PIIScrubber?
    let shared: Set<String>
    let moderator: LocalModerator?
    /// The passages the model was given, white space and quotation marks evened out.
    private let sources: [[Unicode.Scalar]]

    /// Text received and not yet passed (at most an unfinished sentence, or a long run without one).
    private(set) var held = ""
    private(set) var masked: [PIIType: Int] = [:]
    /// Values left as written because the user shared them in this thread.
    private(set) var kept = 0
    private(set) var removedSentences = 0
    private(set) var worstToxicity = 0.0
    private var mayEnd = false
    private static let enders: Set<Unicode.Scalar> = [".", "!", "?", "…", "\n"]

    /// Text without a sentence end is passed anyway past this many bytes, cut at the last space
    /// with no digit or `@` near it (the values this gate masks all hold one), else at the last space.
    static let longestHeld = 400
    static let removedSentence = "[This sentence was removed because it breaks the content policy.]"

    init(scrubber: PIIScrubber?, shared: Set<String>, moderator: LocalModerator?, sources: [String] = []) {
        self.scrubber = scrubber
        self.shared = shared
        self.moderator = moderator
        self.sources = moderator == nil ? [] : sources.map { VerbatimMatch.normalized(Array($0.unicodeScalars)).scalars }
    }

    /// Takes a piece of the model's text; returns the checked text of the sentences it completed.
    mutating func feed(_ piece: String) -> String? {
        held += piece
        // Sentence ends are looked for only once one may be in the held text: most pieces are a
        // word, and the splitter need not run for each.
        if !mayEnd { mayEnd = piece.unicodeScalars.contains { Self.enders.contains($0) } }
        guard mayEnd || held.utf8.count > Self.longestHeld else { return nil }
        let scalars = Array(held.unicodeScalars)
        var cut = 0
        let sentences = SentenceSplitter.sentences(in: scalars)
        // The last sentence may still grow ("3." may become "3.5"); everything before it is done.
        if sentences.count >= 2 { cut = sentences[sentences.count - 1].start }
        // A list item or heading on a new line ends what came before it (a single line break
        // does not: an address runs across one).
        cut = max(cut, Self.lastListBreak(in: scalars))
        if cut == 0, held.utf8.count > Self.longestHeld { cut = Self.quietSpace(in: scalars) }
        guard cut > 0 else { return nil }
        let done = String(String.UnicodeScalarView(scalars[..<cut]))
        held = String(String.UnicodeScalarView(scalars[cut...]))
        mayEnd = held.unicodeScalars.contains { Self.enders.contains($0) }
        return check(done)
    }

    /// The rest, checked: the reply has ended (or was stopped).
    mutating func finish() -> String? {
        guard !held.isEmpty else { return nil }
        let rest = held
        held = ""
        mayEnd = false
        return check(rest)
    }

    private mutating func check(_ text: String) -> String {
        var text = text
        if let moderator {
            let scalars = Array(text.unicodeScalars)
            var kept = ""
            var position = 0
            for span in SentenceSplitter.sentences(in: scalars) {
                let sentence = String(String.UnicodeScalarView(scalars[span.start..<span.end]))
                kept += String(String.UnicodeScalarView(scalars[position..<span.start]))
                var result = moderator.classify(sentence)
                if result.blocks, !sources.isEmpty {
                    let own = withoutSourceQuotations(sentence)
                    if own != sentence { result = moderator.classify(own) }
                }
                worstToxicity = max(worstToxicity, result.toxicity)
                if result.blocks {
                    kept += Self.removedSentence
                    removedSentences += 1
                } else {
                    kept += sentence
                }
                position = span.end
            }
            kept += String(String.UnicodeScalarView(scalars[position...]))
            text = kept
        }
        if let scrubber {
            let found = scrubber.matches(in: text)
            guard !found.isEmpty else { return text }
            let (scrubbed, maskedNow) = scrubber.scrub(text, keeping: shared)
            for match in maskedNow { masked[match.type, default: 0] += 1 }
            kept += found.count - maskedNow.count
            text = scrubbed
        }
        return text
    }

    /// The sentence with each quotation that is verbatim in a source passage replaced by "…".
    /// A quotation of several sentences reaches here cut in pieces: a closing mark with no
    /// opening one before it ends a quotation that began in an earlier sentence, and an opening
    /// mark with no closing one runs to the sentence's end.
    private func withoutSourceQuotations(_ sentence: String) -> String {
        var result = ""
        var rest = Substring(sentence)
        if let close = rest.firstIndex(of: "”"), !rest[..<close].contains("“") {
            result += isFromSources(String(rest[..<close])) ? "…" : String(rest[..<close])
            rest = rest[close...]
        }
        while let open = rest.firstIndex(where: { $0 == "“" || $0 == "\"" }) {
            let closer: Character = rest[open] == "“" ? "”" : "\""
            let inside = rest.index(after: open)
            let close = rest[inside...].firstIndex(of: closer)
            let quoted = String(rest[inside..<(close ?? rest.endIndex)])
            result += rest[..<open]
            if isFromSources(quoted) {
                result += "“…”"
            } else {
                result += close.map { rest[open...$0] } ?? rest[open...]
            }
            guard let close else { return result }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    private func isFromSources(_ quote: String) -> Bool {
        let needle = VerbatimMatch.normalized(Array(quote.unicodeScalars)).scalars
        guard needle.count >= 12 else { return false }
        return sources.contains { VerbatimMatch.contains(needle, in: $0) }
    }

    /// Just after the last line break followed by a list marker or heading; 0 when none.
    private static func lastListBreak(in scalars: [Unicode.Scalar]) -> Int {
        var index = scalars.count - 3
        while index >= 0 {
            if scalars[index] == "\n" {
                let next = scalars[index + 1]
                let after = scalars[index + 2]
                if (next == "-" || next == "*" || next == "•") && after == " " { return index + 1 }
                if next == "#" { return index + 1 }
                if next.properties.numericType != nil, after == "." || after == ")" { return index + 1 }
            }
            index -= 1
        }
        return 0
    }

    /// Just after the last space with no digit or `@` within 12 scalars either side; else just
    /// after the last space; 0 when there is none.
    private static func quietSpace(in scalars: [Unicode.Scalar]) -> Int {
        var fallback = 0
        var index = scalars.count - 2
        while index > 0 {
            if scalars[index].properties.isWhitespace {
                if fallback == 0 { fallback = index + 1 }
                let window = scalars[max(0, index - 12)..<min(scalars.count, index + 13)]
                if !window.contains(where: { $0 == "@" || $0.properties.numericType != nil }) { return index + 1 }
            }
            index -= 1
        }
        return fallback
    }
}
