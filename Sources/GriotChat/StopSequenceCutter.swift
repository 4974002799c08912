/// Ends a streamed reply before the first of the client's stop sequences (OpenAI's `stop`),
/// whichever provider wrote it: a stop sequence split across two pieces of the stream is still
/// found, because the end of each piece that could begin one is held back until the next piece
/// (or the end of the reply) shows whether it does.
///
/// ```swift
/// var cutter = StopSequenceCutter(["\n\n"])
/// cutter.feed("Ida Mae sang.\n")      // ("Ida Mae sang.", false): "\n" is held back
/// cutter.feed("\nThe end")           // ("", true): the reply ends there
/// ```
struct StopSequenceCutter: Sendable {
    let sequences: [String]
    private var held = ""
    private(set) var reached = false

    /// Nil when there is nothing to cut at (no sequence, or only empty ones).
    init?(_ sequences: [String]) {
        let sequences = sequences.filter { !$0.isEmpty }
        guard !sequences.isEmpty else { return nil }
        self.sequences = sequences
    }

    /// The part of `piece` that may be sent now, and whether a stop sequence was reached (the
    /// reply ends with this text; later pieces give nothing).
    mutating func feed(_ piece: String) -> (text: String, reached: Bool) {
        guard !reached else { return ("", true) }
        let text = held + piece
        held = ""
        // The earliest stop sequence wins.
        if let cut = sequences.compactMap({ text.range(of: $0)?.lowerBound }).min() {
            reached = true
            return (String(text[..<cut]), true)
        }
        // Hold back the longest end of the text that a stop sequence could begin with.
        var keep = text.endIndex
        for sequence in sequences {
            var candidate = text.index(text.endIndex, offsetBy: -min(sequence.count - 1, text.count))
            while candidate < text.endIndex {
                if sequence.hasPrefix(text[candidate...]) {
                    keep = min(keep, candidate)
                    break
                }
                candidate = text.index(after: candidate)
            }
        }
        held = String(text[keep...])
        return (String(text[..<keep]), false)
    }

    /// What is still held back, once the reply has ended without reaching a stop sequence.
    mutating func finish() -> String {
        defer { held = "" }
        return reached ? "" : held
    }
}
