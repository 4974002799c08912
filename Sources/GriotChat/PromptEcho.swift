import Foundation
import GriotProviders
import GriotSafety
import GriotText

/// The echo stage: reply lines that recite what the model was given instead of answering from
/// it. A small model behind a chat template that dropped Griot's system messages (Gemma 3 270M
/// under llama.cpp, issue 36) answered with its instructions and the passage blocks word for
/// word, and the citation check counted the copied passages as verified quotes. Three kinds of
/// line are withheld:
///
/// - **instructions**: a run of `Thresholds.instructionRun` words of the system prompt or the
///   course's instructions, or a line most of whose words are such runs
/// - **passage**: a line whose own words (outside quotation marks and citation markers) are,
///   nearly all, a passage's text: a copy, where an answer would say something of its own and
///   quote the passage inside it
/// - **scaffolding**: the sources block's own lines: a heading, a passage's header
///   (`[2] "Title", told by …, at 0:53`), a quote fence and whatever the model writes inside one it
///   opened (a source block, copied or made up); and a line with a chat template's control
///   tokens (`[INST]`, `<start_of_turn>`) or the lines a provider folds system messages between
///
/// Words are Unicode words (`WordTokenizer`), compared in lower case; a script written without
/// spaces counts a word per two characters, so a run is as long in Chinese as in Polish. Text in
/// quotation marks is the reply quoting, as an answer should: it never makes a line a copy of a
/// passage. A quotation inside the instructions (words a coach wants said) is not protected.
///
/// It reads a reply line by line as the output gate releases it (a sentence, and each line of a
/// sentence that spans lines), and keeps what it needs across releases: open quotation marks
/// (`Quotations`), and whether the line before was withheld (an echo runs on, so a short line
/// right after one is judged as part of it).
///
/// ```swift
/// var echo = PromptEcho(instructions: [systemPrompt], passages: context.passages)
/// let reply = Array("Cite only the numbers you were given, right after the statement. Ida Mae rowed [1].".unicodeScalars)
/// echo.withheld(in: reply, upTo: reply.count)   // the first sentence's range, with the space after it
/// echo.findings.first?.kind                     // .instructions
/// ```
struct PromptEcho: Sendable {
    enum Kind: String, Sendable {
        case instructions, passage, scaffolding
    }

    /// One withheld line: what it repeated, and how much of it (the share of its words, or of the
    /// longest run over `instructionRun` for a long one).
    struct Finding: Sendable, Hashable {
        var kind: Kind
        /// The passage copied, or whose header it is.
        var passage: Int?
        var score: Double
    }

    /// Lengths in words (a character of a script without spaces is half a word) and shares.
    struct Thresholds: Sendable {
        /// A run this long of the instructions is an echo wherever it stands. Eight and nine words
        /// withheld replies that did as they were told in the instructions' own words ("…; this
        /// comes from general history, not from the family's stories", evals/echo/tuning.jsonl).
        var instructionRun = 10.0
        /// A line with at least `instructionLineWords` words, `instructionShare` of them in runs of
        /// `instructionPiece` words or more of the instructions, is an echo.
        var instructionLineWords = 4.0
        var instructionPiece = 3.0
        var instructionShare = 0.8
        /// A line with at least `copyWords` words outside quotation marks, `copyShare` of them in
        /// runs of `copyPiece` words or more of one passage (or the whole line), is a copy.
        var copyWords = 4.0
        var copyPiece = 3.0
        var copyShare = 0.9
        /// A header line: `headerShare` of its words in runs of two of a passage's header.
        var headerShare = 0.8

        static let standard = Thresholds()
    }

    let thresholds: Thresholds
    private let instructions: WordIndex
    private let passages: [(number: Int, text: WordIndex, header: WordIndex)]
    /// The headings of the system message and the sources block ("# Sources"), as words.
    private let headings: [[Int]]

    /// What has been withheld so far, in order.
    private(set) var findings: [Finding] = []
    /// The quotation marks open where the text read so far ends.
    private var quotations = Quotations()
    private var previousWithheld = false
    /// A withheld quote fence was opened and not yet closed.
    private var inFence = false
    /// Some of the reply has been read (and released or withheld) before.
    private var hasRead = false

    /// `instructions`: the system prompt and the course's or client's instructions, as the turn
    /// rendered them. The headings and the sources block's preamble `ContextAssembler` writes are
    /// added here; the lines a provider folds system messages between are scaffolding too.
    init(instructions: [String], passages: [GroundingPassage], thresholds: Thresholds = .standard) {
        self.thresholds = thresholds
        let scaffolding = ContextAssembler.systemMessage(prompt: "", instructions: "-", bio: "-", course: "-")
            + "\n" + ContextAssembler.sourcesMessage([])
        self.instructions = WordIndex(instructions + [scaffolding], maskingQuotations: true)
        self.passages = passages.map { passage in
            let label = ContextAssembler.passageBlock(passage).prefix { $0 != "\n" }
            return (passage.number, WordIndex([passage.text]), WordIndex([Self.withoutLeadingMarker(String(label))]))
        }
        headings = scaffolding.split(separator: "\n")
            .filter { $0.hasPrefix("#") }
            .map { Words(Array($0.unicodeScalars)).ids }
            .filter { !$0.isEmpty }
    }

    // MARK: Reading a reply

    /// Reads `scalars[..<cut]` (the text the gate is about to release; what follows it is read
    /// next time) and returns the ranges to withhold: each echoed line with the white space after
    /// it, in order.
    mutating func withheld(in scalars: [Unicode.Scalar], upTo cut: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var read = 0
        let templated = Self.templatedLines(in: scalars)
        for sentence in SentenceSplitter.sentences(in: scalars, from: 0, to: cut) {
            var start = sentence.start
            while start < sentence.end {
                var end = start
                while end < sentence.end, scalars[end] != "\n" { end += 1 }
                var last = end
                while last > start, scalars[last - 1].properties.isWhitespace { last -= 1 }
                if last > start {
                    readQuotes(scalars[read..<start])
                    // A line with a chat template's tokens goes whole, the (made-up) turn before
                    // them with them: "What did he do to get his job?  [/INST]".
                    let finding = templated.contains { $0.contains(start) } ? Finding(kind: .scaffolding, passage: nil, score: 1)
                        : judge(scalars[start..<last])
                    readQuotes(scalars[start..<last])
                    read = last
                    previousWithheld = finding != nil
                    if let finding {
                        findings.append(finding)
                        var through = last
                        while through < cut, scalars[through].properties.isWhitespace { through += 1 }
                        // The white space a reply opens with goes with its first line.
                        let from = !hasRead && scalars[..<start].allSatisfy(\.properties.isWhitespace) ? 0 : start
                        ranges.append(from..<through)
                    }
                }
                start = end
                while start < sentence.end, scalars[start].properties.isWhitespace { start += 1 }
            }
        }
        readQuotes(scalars[read..<cut])
        if cut > 0 { hasRead = true }
        // A withheld line may reach past the next one's start only through white space; ranges
        // that touch are joined.
        var joined: [Range<Int>] = []
        for range in ranges {
            if let previous = joined.last, previous.upperBound >= range.lowerBound {
                joined[joined.count - 1] = previous.lowerBound..<max(previous.upperBound, range.upperBound)
            } else {
                joined.append(range)
            }
        }
        return joined
    }

    /// What one line is an echo of, if anything; `quotations` is the state where it starts.
    private mutating func judge(_ line: ArraySlice<Unicode.Scalar>) -> Finding? {
        let text = String(String.UnicodeScalarView(line))
        if text == OpenAICompatibleProvider.foldedInstructionsOpening || text == OpenAICompatibleProvider.foldedInstructionsClosing
            || Self.chatTemplateMarkers.contains(where: text.contains) {
            return Finding(kind: .scaffolding, passage: nil, score: 1)
        }
        let shape = LineShape(line)
        if let fence = shape.fence {
            // ContextAssembler opens every passage's fence with "quote"; a bare fence is scaffolding
            // only where it closes one of those.
            if fence == "quote" {
                inFence = true
                return Finding(kind: .scaffolding, passage: nil, score: 1)
            }
            if fence.isEmpty, inFence || previousWithheld {
                inFence = false
                return Finding(kind: .scaffolding, passage: nil, score: 1)
            }
            return nil
        }
        let words = Words(Array(shape.body), quotedFrom: quotations)
        guard words.weight > 0 else { return nil }
        let runOn = previousWithheld || inFence
        if shape.isHeading, headings.contains(words.ids) { return Finding(kind: .scaffolding, passage: nil, score: 1) }
        // A header of ContextAssembler's form for a passage the model was not given (Gemma 3 270M:
        // `[7] "The Story of the First Sunday Supper", told by Ida Mae Carter, at 1:04`).
        if shape.leadingMarker, shape.endsWithPosition, let first = shape.body.first(where: { !$0.properties.isWhitespace }),
           "\"\u{201C}".unicodeScalars.contains(first) {
            return Finding(kind: .scaffolding, passage: nil, score: 1)
        }
        if shape.leadingMarker || shape.hasTimestamp {
            for passage in passages {
                let header = passage.header.cover(words, piece: 2, countingQuoted: true)
                if header.share >= thresholds.headerShare { return Finding(kind: .scaffolding, passage: passage.number, score: header.share) }
            }
        }
        let told = instructions.cover(words, piece: thresholds.instructionPiece, countingQuoted: true)
        if told.longest >= thresholds.instructionRun {
            return Finding(kind: .instructions, passage: nil, score: min(1, told.longest / words.weight))
        }
        if words.weight >= (runOn ? 2 : thresholds.instructionLineWords), told.share >= thresholds.instructionShare {
            return Finding(kind: .instructions, passage: nil, score: told.share)
        }
        if (inFence ? words.weight : words.unquotedWeight) >= (runOn ? 1 : thresholds.copyWords) {
            for passage in passages {
                // Inside a copied fence the passage's own quotation marks are copied too.
                let copied = passage.text.cover(words, piece: thresholds.copyPiece, countingQuoted: inFence)
                if copied.share >= thresholds.copyShare { return Finding(kind: .passage, passage: passage.number, score: copied.share) }
            }
        }
        // What a model writes inside a quote fence it opened as the sources block does is a source
        // block, copied or made up (Gemma 3 270M went on with a transcript of its own), until the
        // fence closes.
        if inFence { return Finding(kind: .scaffolding, passage: nil, score: 1) }
        return nil
    }

    /// The control tokens of the common chat templates (Llama 2, Gemma, ChatML, Llama 3, Zephyr).
    /// A small model that does not know where its turn begins writes them out, with the prompt
    /// around them (Gemma 3 270M base behind llama.cpp's Llama 2 template:
    /// "<</SYS>> What happened to the Carter house in the 1927 flood? [/INST]"); no answer has them.
    static let chatTemplateMarkers = [
        "[INST]", "[/INST]", "<<SYS>>", "<</SYS>>", "<start_of_turn>", "<end_of_turn>", "<|im_start|>", "<|im_end|>",
        "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|system|>", "<|user|>", "<|assistant|>", "</s>",
    ]

    /// The lines of `scalars` (the held text, beyond what is released now) holding a chat
    /// template's control tokens.
    private static func templatedLines(in scalars: [Unicode.Scalar]) -> [Range<Int>] {
        guard scalars.contains(where: { $0 == "[" || $0 == "<" }) else { return [] }
        var lines: [Range<Int>] = []
        var start = 0
        while start < scalars.count {
            let end = scalars[start...].firstIndex(of: "\n") ?? scalars.count
            let line = String(String.UnicodeScalarView(scalars[start..<end]))
            if chatTemplateMarkers.contains(where: line.contains) { lines.append(start..<end) }
            start = end + 1
        }
        return lines
    }

    private mutating func readQuotes(_ scalars: ArraySlice<Unicode.Scalar>) {
        for scalar in scalars { quotations.read(scalar) }
    }

    /// The stage's verdict on the reply read so far: how many lines were withheld, and what they repeated.
    var verdict: SafetyVerdict {
        guard !findings.isEmpty else {
            return SafetyVerdict(stage: "prompt_echo", score: 0, decision: .allow, reason: "no line repeats the instructions or copies the sources block")
        }
        var parts: [String] = []
        let told = findings.filter { $0.kind == .instructions }.count
        if told > 0 { parts.append("\(told) repeating the instructions") }
        let copies = findings.filter { $0.kind == .passage }
        if !copies.isEmpty {
            let numbers = Set(copies.compactMap(\.passage)).sorted().map { "[\($0)]" }
            parts.append("\(copies.count) copying passage\(numbers.count == 1 ? "" : "s") \(numbers.joined(separator: ", "))")
        }
        let scaffolding = findings.filter { $0.kind == .scaffolding }.count
        if scaffolding > 0 { parts.append("\(scaffolding) in the sources block's form (headings, passage headers, fences and what they fence, chat-template tokens)") }
        return SafetyVerdict(stage: "prompt_echo", score: findings.map(\.score).max() ?? 1, decision: .mask,
                             reason: "\(findings.count) line\(findings.count == 1 ? "" : "s") withheld: " + parts.joined(separator: "; "))
    }

    // MARK: A cited sentence

    /// Whether a cited sentence is a copy of its passage rather than an answer that uses it: its
    /// words outside quotation marks and markers (four or more) are, nearly all, the passage's.
    /// `CitationFinder` counts no such citation as verified.
    static func copies(_ claim: String, passage: String, thresholds: Thresholds = .standard) -> Bool {
        let words = Words(Array(LineShape(Array(claim.unicodeScalars)[...]).body))
        guard words.unquotedWeight >= thresholds.copyWords else { return false }
        return WordIndex([passage]).cover(words, piece: thresholds.copyPiece, countingQuoted: false).share >= thresholds.copyShare
    }

    /// A header as `ContextAssembler.passageBlock` writes it, without its "[n] ".
    private static func withoutLeadingMarker(_ label: String) -> String {
        guard label.hasPrefix("["), let close = label.firstIndex(of: "]") else { return label }
        return String(label[label.index(after: close)...])
    }
}

// MARK: - Words

/// The quotation marks open at a point of a text, read scalar by scalar: „…“ and „…” (German,
/// Polish), “…”, «…», 「…」, 『…』 and "…". A blank line closes them all (a quotation that runs on
/// into the next paragraph opens again there); a single line break does not (archive passages
/// break their lines inside sentences, and a reply quoting one keeps the breaks).
struct Quotations {
    private var open: [Unicode.Scalar] = []
    private var afterLineBreak = false

    var isOpen: Bool { !open.isEmpty }

    mutating func read(_ scalar: Unicode.Scalar) {
        switch scalar {
        case "\n":
            if afterLineBreak { open.removeAll() }
            afterLineBreak = true
            return
        case " ", "\t", "\r": return
        default: afterLineBreak = false
        }
        switch scalar {
        case "\u{201C}":
            if open.last == "\u{201E}" { open.removeLast() } else { open.append(scalar) }
        case "\u{201E}", "\u{00AB}", "\u{300C}", "\u{300E}": open.append(scalar)
        case "\u{201D}":
            if open.last == "\u{201C}" || open.last == "\u{201E}" { open.removeLast() }
        case "\u{00BB}": if open.last == "\u{00AB}" { open.removeLast() }
        case "\u{300D}": if open.last == "\u{300C}" { open.removeLast() }
        case "\u{300F}": if open.last == "\u{300E}" { open.removeLast() }
        case "\"":
            if open.last == "\"" { open.removeLast() } else { open.append(scalar) }
        default: break
        }
    }
}

/// A line's words as ids (the lower-cased word, or one character of a script without spaces),
/// with each one's weight in words and whether it stands inside quotation marks.
struct Words {
    var ids: [Int] = []
    var weights: [Double] = []
    var quoted: [Bool] = []

    var weight: Double { weights.reduce(0, +) }
    var unquotedWeight: Double { zip(weights, quoted).reduce(0) { $0 + ($1.1 ? 0 : $1.0) } }

    /// `quotations`: the quotation marks open where the text starts.
    init(_ scalars: [Unicode.Scalar], quotedFrom quotations: Quotations = Quotations()) {
        var quotations = quotations
        var read = 0
        for span in WordTokenizer.spans(in: scalars) {
            while read < span.start {
                quotations.read(scalars[read])
                read += 1
            }
            read = span.end
            let inside = quotations.isOpen
            if WordTokenizer.isSpaceless(scalars[span.start]) {
                for scalar in scalars[span.start..<span.end] {
                    ids.append(Int(scalar.value) &+ 0x5EED)
                    weights.append(0.5)
                    quoted.append(inside)
                }
            } else {
                var word = String(String.UnicodeScalarView(scalars[span.start..<span.end])).lowercased()
                if word.unicodeScalars.contains(where: { $0 == "\u{2019}" || $0 == "\u{02BC}" }) {
                    word = String(String.UnicodeScalarView(word.unicodeScalars.map { $0 == "\u{2019}" || $0 == "\u{02BC}" ? "'" : $0 }))
                }
                ids.append(word.hashValue)
                weights.append(1)
                quoted.append(inside)
            }
        }
    }
}

/// Texts a reply may repeat, as one sequence of word ids with where each id occurs. Runs never
/// cross from one text into the next, nor through a masked quotation.
struct WordIndex {
    private var ids: [Int] = []
    private var positions: [Int: [Int]] = [:]
    /// Stands between texts and for masked quotations; no word has it.
    private static let gap = Int.min

    init(_ texts: [String], maskingQuotations: Bool = false) {
        for text in texts {
            let words = Words(Array(text.unicodeScalars))
            for (id, quoted) in zip(words.ids, words.quoted) {
                if maskingQuotations, quoted {
                    if ids.last != Self.gap { ids.append(Self.gap) }
                    continue
                }
                positions[id, default: []].append(ids.count)
                ids.append(id)
            }
            ids.append(Self.gap)
        }
    }

    /// How much of `words` these texts hold: `longest`, the longest run (in words) of them found
    /// here; `share`, the weight of the words inside runs of at least `piece` words (or a run that
    /// is the whole line), over the weight of the words counted (all, or those outside quotation
    /// marks).
    func cover(_ words: Words, piece: Double, countingQuoted: Bool) -> (longest: Double, share: Double) {
        let count = words.ids.count
        guard count > 0 else { return (0, 0) }
        var prefix = [0.0]
        prefix.reserveCapacity(count + 1)
        for weight in words.weights { prefix.append(prefix.last! + weight) }
        var covered = [Bool](repeating: false, count: count)
        var longest = 0.0
        var reach = 0
        for start in 0..<count {
            var length = 0
            for position in positions[words.ids[start]] ?? [] {
                var matched = 1
                while start + matched < count, position + matched < ids.count, ids[position + matched] == words.ids[start + matched] { matched += 1 }
                length = max(length, matched)
                if start + length == count { break }
            }
            guard length > 0 else { continue }
            let weight = prefix[start + length] - prefix[start]
            longest = max(longest, weight)
            // A run inside one already counted adds nothing.
            guard start + length > reach else { continue }
            if weight >= piece || length == count {
                for index in start..<(start + length) { covered[index] = true }
                reach = start + length
            }
        }
        var total = 0.0, inside = 0.0
        for index in 0..<count where countingQuoted || !words.quoted[index] {
            total += words.weights[index]
            if covered[index] { inside += words.weights[index] }
        }
        return (longest, total > 0 ? inside / total : 0)
    }
}

/// A line's markdown and markers read off: a heading's "#", a list's "-" or "2.", a leading
/// "[n]" or "Passage [n]:", a fence; `body` is the rest with its markers blanked.
struct LineShape {
    var body: [Unicode.Scalar]
    var isHeading = false
    /// The line begins with a citation marker, alone or after one word ("Passage [2]:").
    var leadingMarker = false
    /// "0:53", "1:02:07": a header's position in the recording.
    var hasTimestamp = false
    /// A fence's info string ("quote", or empty), when the line is a fence.
    var fence: String?
    /// The line ends as a passage header does: ", at 0:53".
    var endsWithPosition = false

    init(_ line: ArraySlice<Unicode.Scalar>) {
        var scalars = Array(line)
        var start = 0
        func skipSpace() { while start < scalars.count, scalars[start].properties.isWhitespace { start += 1 } }
        skipSpace()
        if start + 2 < scalars.count, scalars[start] == "`", scalars[start + 1] == "`", scalars[start + 2] == "`" {
            var info = start
            while info < scalars.count, scalars[info] == "`" { info += 1 }
            let rest = String(String.UnicodeScalarView(scalars[info...])).trimmingCharacters(in: .whitespaces)
            fence = rest.unicodeScalars.allSatisfy(\.properties.isAlphabetic) ? rest.lowercased() : nil
            body = []
            if fence != nil { return }
        }
        while start < scalars.count, "#>*-•".unicodeScalars.contains(scalars[start]) {
            if scalars[start] == "#" { isHeading = true }
            start += 1
            skipSpace()
        }
        // "2. " or "2) " opening a list item.
        var digits = start
        while digits < scalars.count, scalars[digits].properties.numericType != nil, digits - start < 3 { digits += 1 }
        if digits > start, digits + 1 < scalars.count, scalars[digits] == "." || scalars[digits] == ")", scalars[digits + 1] == " " {
            start = digits + 1
            skipSpace()
        }
        let markers = Self.markers(in: scalars)
        if let first = markers.first {
            if first.lowerBound == start {
                leadingMarker = true
            } else {
                // One word before it: "Passage [2]", "Source [2]".
                let before = scalars[start..<first.lowerBound]
                let word = before.prefix { !$0.properties.isWhitespace }
                leadingMarker = !word.isEmpty && word.allSatisfy(\.properties.isAlphabetic)
                    && before.dropFirst(word.count).allSatisfy(\.properties.isWhitespace)
            }
        }
        for marker in markers {
            for index in marker { scalars[index] = " " }
        }
        if let first = markers.first, leadingMarker {
            for index in start..<first.lowerBound { scalars[index] = " " }
            // The ":" after "[2]".
            var after = first.upperBound
            while after < scalars.count, scalars[after] == " " { after += 1 }
            if after < scalars.count, scalars[after] == ":" { scalars[after] = " " }
        }
        for index in scalars.indices.dropFirst().dropLast() where scalars[index] == ":" {
            if scalars[index - 1].properties.numericType != nil, index + 2 < scalars.count,
               scalars[index + 1].properties.numericType != nil, scalars[index + 2].properties.numericType != nil {
                hasTimestamp = true
            }
        }
        body = Array(scalars[start...])
        let text = String(String.UnicodeScalarView(body)).trimmingCharacters(in: .whitespaces)
        if let at = text.range(of: ", at ", options: .backwards) {
            let position = text[at.upperBound...]
            endsWithPosition = position.contains(":") && position.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ":") }
        }
    }

    /// "[1]", "[1, 3]": ranges of citation markers in the line.
    static func markers(in scalars: [Unicode.Scalar]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "[" else {
                index += 1
                continue
            }
            var end = index + 1
            var digits = 0
            while end < scalars.count, scalars[end].properties.numericType != nil || scalars[end] == "," || scalars[end] == " " {
                if scalars[end].properties.numericType != nil { digits += 1 }
                end += 1
            }
            if end < scalars.count, scalars[end] == "]", digits > 0 {
                found.append(index..<(end + 1))
                index = end + 1
            } else {
                index += 1
            }
        }
        return found
    }
}
