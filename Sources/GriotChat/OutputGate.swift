import Foundation
import GriotSafety
import GriotText

/// Holds the model's text back until a sentence ends, then runs the output stages on whole
/// sentences before any of it is sent: the echo stage (a line that recites the instructions or
/// copies the sources block is withheld, `PromptEcho`), output moderation (a sentence over the
/// policy is replaced) and the PII scrubber (values the user did not share in this thread are
/// masked). A value therefore never leaks in a partial delta: the text a client sees, and the
/// text that is stored, has always been through all three. Output moderation judges what the model wrote, not
/// the archive it quotes: a quotation found verbatim in one of the passages the model was given
/// (a 1937 interview in the words of its time) is set aside before the sentence is scored.
///
/// The scrubber never sees a value in two halves. It reads a window: the text held back plus the
/// end of what was already sent (so a cue word such as "call" in the sentence before still
/// counts). Text is released only up to a point that no value crosses, and a value that ends
/// just before that point is held too, since the next sentence may continue it ("12 Oak Rd." +
/// "Apt. 4, Springfield, IL 62704"). Street and unit abbreviations ("Rd.", "Apt.", "Pl.") do not
/// end a sentence here. A long run without a sentence end is cut only at a space with no value,
/// digit or "@" near it.
///
/// ```swift
/// var gate = OutputGate(scrubber: scrubber, shared: scrubber.sharedKeys(in: "call me on 415-555-0132"), moderator: nil)
/// gate.feed("Her number was 212-555-0199. She")   // nil: the phone ends the sentence, so it waits
/// gate.feed(" moved. Then")                       // "Her number was [PHONE]. She moved. "
/// gate.finish()                                   // "Then"
/// ```
struct OutputGate: Sendable {
    let scrubber: PIIScrubber?
    let shared: Set<String>
    let moderator: LocalModerator?
    /// The assistant's own, stricter screen of each sentence (the storyteller's, for a child's
    /// age), applied with output moderation: a sentence it blocks is left out as moderation's are.
    let screen: (@Sendable (String) -> Bool)?
    /// The passages the model was given, white space and quotation marks evened out.
    private let sources: [[Unicode.Scalar]]
    /// The echo stage, with what it has withheld so far.
    private(set) var echo: PromptEcho?
    /// The model's text as it wrote it, less what the echo stage withheld: what the answer says,
    /// before masking.
    private(set) var written = ""

    /// Text received and not yet passed (at most an unfinished sentence, a value that may go on,
    /// or a long run without a safe place to cut).
    private(set) var held = ""
    /// The end of the text already passed, as the model wrote it: the scrubber's left context.
    private var context: [Unicode.Scalar] = []
    private(set) var masked: [PIIType: Int] = [:]
    /// Values left as written because the user shared them in this thread.
    private(set) var kept = 0
    private(set) var removedSentences = 0
    private(set) var worstToxicity = 0.0
    private var mayEnd = false
    private static let enders: Set<Unicode.Scalar> = [".", "!", "?", "…", "\n"]

    /// Text without a sentence end is passed anyway past this many bytes, cut at a space with no
    /// value, digit or `@` near it; past `longestHeldForced`, at any space outside a value.
    static let longestHeld = 400
    static let longestHeldForced = 4000
    /// How much of the passed text the scrubber reads again as context (cue words, a street
    /// before its city), in scalars.
    static let contextLength = 96
    static let removedSentence = "[This sentence was removed because it breaks the content policy.]"

    /// Abbreviations of street types and units, of directions, rural routes, AP-style states and
    /// Canadian provinces ("N. Elm St.", "R.R. 3", "Macon, Ga. 31201", "Guelph, Ont.\nN1H 6J3"):
    /// a period after one does not end a sentence here.
    static let addressAbbreviations: Set<String> = [
        "apt", "ste", "rd", "st", "dr", "pl", "ave", "av", "blvd", "ln", "ct", "hwy", "pkwy", "cir", "ter", "trl", "sq",
        "no", "bldg", "fl", "rm", "mt", "ft", "str", "p.o", "o", "bd", "n", "s", "e", "w", "r.r", "r.f.d", "rte", "b.p",
        "ala", "ariz", "ark", "calif", "colo", "conn", "del", "fla", "ga", "ill", "ind", "kan", "kans", "ky", "la", "md",
        "mass", "mich", "minn", "miss", "mo", "mont", "neb", "nebr", "nev", "okla", "ore", "pa", "penn", "tenn", "tex",
        "vt", "va", "wash", "wis", "wyo", "n.h", "n.j", "n.m", "n.y", "n.c", "n.d", "s.c", "s.d", "r.i", "w.va", "d.c",
        "ont", "que", "man", "alta", "sask", "b.c", "n.s", "n.b", "p.e.i", "nfld",
    ]

    init(scrubber: PIIScrubber?, shared: Set<String>, moderator: LocalModerator?, sources: [String] = [], echo: PromptEcho? = nil,
         screen: (@Sendable (String) -> Bool)? = nil) {
        self.screen = screen
        self.scrubber = scrubber
        self.shared = shared
        self.moderator = moderator
        self.echo = echo
        self.sources = moderator == nil ? [] : sources.map { VerbatimMatch.normalized(Array($0.unicodeScalars)).scalars }
    }

    /// Takes a piece of the model's text; returns the checked text it lets through, if any.
    mutating func feed(_ piece: String) -> String? {
        held += piece
        // Sentence ends are looked for only once one may be in the held text: most pieces are a
        // word, and the splitter need not run for each.
        if !mayEnd { mayEnd = piece.unicodeScalars.contains { Self.enders.contains($0) } }
        guard mayEnd || held.utf8.count > Self.longestHeld else { return nil }
        let scalars = Array(held.unicodeScalars)
        var cut = Self.lastSentenceStart(in: scalars)
        // A list item or heading on a new line ends what came before it (a single line break
        // does not: an address runs across one).
        cut = max(cut, Self.lastListBreak(in: scalars))
        let long = held.utf8.count > Self.longestHeld
        let window = scan(scalars)
        if cut > 0 {
            let safe = window.safeCut(before: cut, in: scalars)
            // Held back to a value: the sentence it is in waits whole, so output moderation
            // still reads whole sentences.
            if safe < cut { cut = Self.sentenceStart(atOrBefore: safe, in: scalars) }
        }
        if cut == 0, long { cut = window.quietSpace(in: scalars, forced: held.utf8.count > Self.longestHeldForced) }
        guard cut > 0 else {
            mayEnd = true
            return nil
        }
        let done = release(scalars, upTo: cut, window: window)
        mayEnd = held.unicodeScalars.contains { Self.enders.contains($0) }
        return done
    }

    /// The rest, checked: the reply has ended (or was stopped).
    mutating func finish() -> String? {
        guard !held.isEmpty else { return nil }
        let scalars = Array(held.unicodeScalars)
        let done = release(scalars, upTo: scalars.count, window: scan(scalars))
        mayEnd = false
        return done
    }

    // MARK: - The scrub window

    /// The values the scrubber finds in the context and the held text, as scalar ranges of the
    /// held text (a value that began in the context starts before 0).
    struct Window {
        var values: [(range: Range<Int>, match: PIIMatch)] = []

        /// The latest cut at or before `cut` that no value crosses, and that no value ends just
        /// before (only spaces and punctuation between): the next sentence may continue it.
        func safeCut(before cut: Int, in scalars: [Unicode.Scalar]) -> Int {
            var cut = cut
            for (range, _) in values.reversed() where range.lowerBound < cut {
                let crosses = range.upperBound > cut
                let abuts = !crosses && scalars[max(0, range.upperBound)..<cut].allSatisfy {
                    $0.properties.isWhitespace || ".,;:!?)]\"'\u{2019}\u{201D}".unicodeScalars.contains($0)
                }
                if crosses || abuts { cut = max(0, range.lowerBound) }
            }
            return cut
        }

        /// Just after the last space with no value, digit (outside a word), `@` or number word
        /// within 24 scalars either side; when `forced`, after the last space outside a value; 0
        /// when none.
        func quietSpace(in scalars: [Unicode.Scalar], forced: Bool) -> Int {
            var fallback = 0
            var index = scalars.count - 2
            while index > 0 {
                defer { index -= 1 }
                guard scalars[index].properties.isWhitespace,
                      !values.contains(where: { $0.range.lowerBound - 2 <= index + 1 && index < $0.range.upperBound + 2 }) else { continue }
                if fallback == 0 { fallback = index + 1 }
                let window = scalars[max(0, index - 24)..<min(scalars.count, index + 25)]
                if !window.contains("@"), !OutputGate.hasFreeDigit(window), !OutputGate.hasValueWords(window) {
                    return index + 1
                }
            }
            return forced ? fallback : 0
        }
    }

    private func scan(_ scalars: [Unicode.Scalar]) -> Window {
        guard let scrubber else { return Window() }
        let text = String(String.UnicodeScalarView(context + scalars))
        let found = scrubber.matches(in: text)
        guard !found.isEmpty else { return Window() }
        // UTF-16 offsets of the window to scalar offsets of the held text.
        var utf16Starts: [Int] = []
        utf16Starts.reserveCapacity(context.count + scalars.count + 1)
        var offset = 0
        for scalar in context + scalars {
            utf16Starts.append(offset)
            offset += scalar.utf16.count
        }
        utf16Starts.append(offset)
        func scalarIndex(_ utf16: Int) -> Int {
            var low = 0, high = utf16Starts.count - 1
            while low < high {
                let middle = (low + high) / 2
                if utf16Starts[middle] < utf16 { low = middle + 1 } else { high = middle }
            }
            return low - context.count
        }
        var window = Window()
        for match in found {
            let range = scalarIndex(match.range.lowerBound)..<scalarIndex(match.range.upperBound)
            // A value wholly inside the context was dealt with when it was passed.
            if range.upperBound > 0 { window.values.append((range, match)) }
        }
        return window
    }

    /// Passes the held text up to `cut`: echoed lines left out, values in the rest masked (the
    /// part of one that began in the context too), then each sentence through output moderation.
    private mutating func release(_ scalars: [Unicode.Scalar], upTo cut: Int, window: Window) -> String {
        // The echo stage reads the model's words, before masking: a masked value would break a
        // copied run in two.
        var withheld = echo?.withheld(in: scalars, upTo: cut) ?? []
        var text = String.UnicodeScalarView()
        var model = String.UnicodeScalarView()
        // Appends `range` less the withheld ranges (sorted by their start; they may overlap).
        func keep(_ range: Range<Int>) {
            var from = range.lowerBound
            for left in withheld where left.upperBound > from {
                guard left.lowerBound < range.upperBound else { break }
                if left.lowerBound > from {
                    text.append(contentsOf: scalars[from..<left.lowerBound])
                    model.append(contentsOf: scalars[from..<left.lowerBound])
                }
                from = left.upperBound
                if from >= range.upperBound { return }
            }
            text.append(contentsOf: scalars[from..<range.upperBound])
            model.append(contentsOf: scalars[from..<range.upperBound])
        }
        var position = 0
        for (range, match) in window.values where range.lowerBound < cut {
            let lower = max(0, range.lowerBound), upper = min(cut, range.upperBound)
            guard lower >= position, upper > lower else { continue }
            keep(position..<lower)
            position = upper
            // A value in a withheld line goes with it, and is not counted as masked or kept.
            if withheld.contains(where: { $0.overlaps(lower..<upper) }) {
                withheld.append(lower..<upper)
                withheld.sort { $0.lowerBound < $1.lowerBound }
                continue
            }
            model.append(contentsOf: scalars[lower..<upper])
            if shared.contains(PIIScrubber.key(match)) {
                kept += 1
                text.append(contentsOf: scalars[lower..<upper])
            } else {
                masked[match.type, default: 0] += 1
                text.append(contentsOf: "[\(match.type.rawValue)]".unicodeScalars)
            }
        }
        keep(position..<cut)
        written += String(model)
        context = Array((context + scalars[..<cut]).suffix(Self.contextLength))
        held = String(String.UnicodeScalarView(scalars[cut...]))
        return moderate(String(text))
    }

    private mutating func moderate(_ text: String) -> String {
        guard let moderator else { return text }
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
            if result.blocks || screen?(sentence) == true {
                kept += Self.removedSentence
                removedSentences += 1
            } else {
                kept += sentence
            }
            position = span.end
        }
        kept += String(String.UnicodeScalarView(scalars[position...]))
        return kept
    }

    /// Where the last sentence starts (everything before it is done; it may still grow: "3." may
    /// become "3.5"); a boundary right after a street or unit abbreviation does not count.
    static func lastSentenceStart(in scalars: [Unicode.Scalar]) -> Int {
        let sentences = SentenceSplitter.sentences(in: scalars)
        var index = sentences.count - 1
        while index >= 1 {
            if !endsWithAddressAbbreviation(scalars, sentences[index - 1]) { return sentences[index].start }
            index -= 1
        }
        return 0
    }

    /// The start of the sentence holding `offset` (0 when it is the first).
    static func sentenceStart(atOrBefore offset: Int, in scalars: [Unicode.Scalar]) -> Int {
        var start = 0
        let sentences = SentenceSplitter.sentences(in: scalars)
        for (index, sentence) in sentences.enumerated() where index > 0 && sentence.start <= offset {
            if !endsWithAddressAbbreviation(scalars, sentences[index - 1]) { start = sentence.start }
        }
        return start
    }

    /// "… 12 Oak Rd." or "… Apt.": the sentence ends with an abbreviation an address uses; or
    /// "… 10 ." of an IPv4 address read out ("10 . 0 . 0 . 42").
    static func endsWithAddressAbbreviation(_ scalars: [Unicode.Scalar], _ sentence: WordSpan) -> Bool {
        var end = sentence.end
        guard end > sentence.start, scalars[end - 1] == "." else { return false }
        if end - sentence.start >= 3, scalars[end - 2] == " ", scalars[end - 3].properties.numericType != nil { return true }
        end -= 1
        var start = end
        while start > sentence.start, scalars[start - 1].properties.isAlphabetic || scalars[start - 1] == "." { start -= 1 }
        guard end - start <= 4, end > start else { return false }
        let word = String(String.UnicodeScalarView(scalars[start..<end])).lowercased()
        return addressAbbreviations.contains(word)
    }

    /// A digit that is not part of a word ("word12", "mp3" are words; "412", "(412" are not).
    static func hasFreeDigit(_ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
        var inWord = false
        for scalar in scalars {
            let properties = scalar.properties
            if properties.numericType != nil {
                if !inWord { return true }
            } else {
                inWord = properties.isAlphabetic
            }
        }
        return false
    }

    /// Words a value may be spelled out in, which the text still to come could complete: a
    /// number word ("five five five …"), "at" or "dot" ("ida at example dot com").
    static func hasValueWords(_ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
        let words = String(String.UnicodeScalarView(scalars)).lowercased().split { !$0.isLetter }
        return words.contains { valueWords.contains($0) }
    }

    private static let valueWords: Set<Substring> = ["zero", "oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                                                     "at", "dot"]

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

}
