/// cl100k_base's split pattern (GPT-4, GPT-3.5-turbo, text-embedding-3). Its quantifiers
/// are mostly possessive, so few alternatives ever need backing off; the exceptions are
/// ` ?` before punctuation and the whitespace alternatives, handled where they occur.
enum Cl100kSplitter: PieceSplitter {
    static let pattern = #"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"#

    static func pieceEnd(from start: Int, in text: ScalarReader) -> Int {
        let count = text.count
        let first = text[start]
        // '(?i:[sdmt]|ll|ve|re)
        if first == UInt8(ascii: "'"), let end = Contraction.end(at: start, in: text) { return end }

        let (cls, length) = text.class(at: start)
        // [^\r\n\p{L}\p{N}]?+\p{L}++ : the optional lead is taken whenever it can be, and
        // then letters must follow it (possessive: no retry without the lead).
        if cls.contains(.letter) { return letterRunEnd(from: start + length, in: text) }
        if cls.canLeadWord && text.scalar(at: start + length, isIn: .letter) {
            return letterRunEnd(from: start + length, in: text)
        }
        // \p{N}{1,3}+
        if cls.contains(.number) {
            var end = start + length
            for _ in 0..<2 {
                guard end < count else { break }
                let (next, nextLength) = text.class(at: end)
                guard next.contains(.number) else { break }
                end += nextLength
            }
            return end
        }
        // ` ?[^\s\p{L}\p{N}]++[\r\n]*+` : the space is kept only if punctuation follows it.
        var end = start
        if first == UInt8(ascii: " ") && start + 1 < count && text.class(at: start + 1).0.isOther {
            end = start + 1
        } else if !cls.isOther {
            return whitespaceEnd(from: start, length: length, in: text)
        }
        while end < count {
            let (next, nextLength) = text.class(at: end)
            guard next.isOther else { break }
            end += nextLength
        }
        while end < count && (text[end] == 0x0A || text[end] == 0x0D) { end += 1 }
        return end
    }

    /// The end of the run of letters from `offset` on.
    @inline(__always) private static func letterRunEnd(from offset: Int, in text: ScalarReader) -> Int {
        var end = offset
        while end < text.count {
            let (next, nextLength) = text.class(at: end)
            guard next.contains(.letter) else { break }
            end += nextLength
        }
        return end
    }

    /// `\s++$|\s*[\r\n]|\s+(?!\S)|\s` from a white-space scalar at `start`.
    private static func whitespaceEnd(from start: Int, length: Int, in text: ScalarReader) -> Int {
        var end = start
        var lastStart = start
        var afterLastBreak = -1
        while end < text.count {
            let (next, nextLength) = text.class(at: end)
            guard next.contains(.space) else { break }
            if next.contains(.lineBreak) { afterLastBreak = end + nextLength }
            lastStart = end
            end += nextLength
        }
        // \s++$ : the whole run when it ends the text.
        if end == text.count { return end }
        // \s*[\r\n] : \s* backs off until a line break ends the match, so up to the last one.
        if afterLastBreak >= 0 { return afterLastBreak }
        // \s+(?!\S) : backs off one scalar, leaving the last white space to join the next word.
        if lastStart > start { return lastStart }
        // \s
        return start + length
    }
}
