/// Cuts text into the pieces that byte-pair encoding then merges one at a time, exactly as
/// an encoding's split regex (`pattern`, tiktoken's `pat_str`) finds its matches left to
/// right. Each conformer is that regex written out by hand over Unicode scalars: Swift
/// Regex and NSRegularExpression are about a hundred times slower at it.
///
///     var start = 0
///     while start < text.count {
///         let end = Cl100kSplitter.pieceEnd(from: start, in: text)   // text[start..<end] is one piece
///         start = end
///     }
///
/// Every scalar matches some alternative of both patterns, so the pieces cover the text.
protocol PieceSplitter {
    /// The regex this splitter reproduces, as tiktoken writes it.
    static var pattern: String { get }

    /// The byte offset where the piece that starts at `start` (before `text.count`) ends.
    static func pieceEnd(from start: Int, in text: ScalarReader) -> Int
}

/// The English contractions both patterns split off: `'(?i:[sdmt]|ll|ve|re)` in cl100k and
/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` in o200k, the same set. Case-insensitive matching in
/// tiktoken's regex crate uses Unicode simple case folding, under which `s` also matches
/// ſ (U+017F, LATIN SMALL LETTER LONG S): o200k encodes " I'ſ" as " I'" and "ſ". The other
/// letters here have no such partner.
enum Contraction {
    /// The end of the contraction starting at `start` (an apostrophe), or nil.
    @inline(__always) static func end(at start: Int, in text: ScalarReader) -> Int? {
        guard start + 1 < text.count else { return nil }
        let first = text[start + 1]
        switch first | 0x20 {  // ASCII lower case; only a letter's byte can fold to one
        case UInt8(ascii: "s"), UInt8(ascii: "d"), UInt8(ascii: "m"), UInt8(ascii: "t"):
            return start + 2
        default: break
        }
        guard start + 2 < text.count else { return nil }
        let second = text[start + 2] | 0x20
        switch (first | 0x20, second) {
        case (UInt8(ascii: "l"), UInt8(ascii: "l")), (UInt8(ascii: "v"), UInt8(ascii: "e")), (UInt8(ascii: "r"), UInt8(ascii: "e")):
            return start + 3
        default:
            return first == 0xC5 && text[start + 2] == 0xBF ? start + 3 : nil  // ſ
        }
    }
}
