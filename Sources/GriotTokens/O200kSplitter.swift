/// o200k_base's split pattern (GPT-4o, GPT-4.1, o-series). Unlike cl100k's, its
/// quantifiers are greedy but not possessive, so a word alternative that fails with the
/// optional lead character is tried again without it, and the case classes back off to
/// the last scalar both classes share (Lm, Lo, marks). Each alternative below follows the
/// order in which a backtracking engine (tiktoken's fancy-regex) tries the choices.
enum O200kSplitter: PieceSplitter {
    static let pattern = [
        #"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"#,
        #"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"#,
        #"\p{N}{1,3}"#,
        #" ?[^\s\p{L}\p{N}]+[\r\n/]*"#,
        #"\s*[\r\n]+"#,
        #"\s+(?!\S)"#,
        #"\s+"#,
    ].joined(separator: "|")

    static func pieceEnd(from start: Int, in text: ScalarReader) -> Int {
        let count = text.count
        let (cls, length) = text.class(at: start)
        let caseClasses: ScalarClass = [.upperish, .lowerish]
        // The two word alternatives, each first with the lead scalar taken, then without.
        if cls.canLeadWord, let end = lowerEndingWordEnd(from: start + length, in: text) { return end }
        if !cls.isDisjoint(with: caseClasses), let end = lowerEndingWordEnd(from: start, in: text) { return end }
        if cls.canLeadWord, let end = upperWordEnd(from: start + length, in: text) { return end }
        if cls.contains(.upperish), let end = upperWordEnd(from: start, in: text) { return end }
        // \p{N}{1,3}
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
        // ` ?[^\s\p{L}\p{N}]+[\r\n/]*` : the space is kept only if punctuation follows it.
        var end = start
        if text[start] == UInt8(ascii: " ") && start + 1 < count && text.class(at: start + 1).0.isOther {
            end = start + 1
        } else if !cls.isOther {
            return whitespaceEnd(from: start, in: text)
        }
        while end < count {
            let (next, nextLength) = text.class(at: end)
            guard next.isOther else { break }
            end += nextLength
        }
        while end < count && (text[end] == 0x0A || text[end] == 0x0D || text[end] == UInt8(ascii: "/")) { end += 1 }
        return end
    }

    /// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|…)?` from `offset`.
    /// When the upper run is not followed by a lower scalar, the star backs off to the
    /// last scalar of the run that is in both classes, which then ends the word.
    @inline(__always) private static func lowerEndingWordEnd(from offset: Int, in text: ScalarReader) -> Int? {
        var end = offset
        var afterLastShared = -1
        while end < text.count {
            let (next, nextLength) = text.class(at: end)
            guard next.contains(.upperish) else { break }
            end += nextLength
            if next.contains(.lowerish) { afterLastShared = end }
        }
        if text.scalar(at: end, isIn: .lowerish) {
            while end < text.count {
                let (next, nextLength) = text.class(at: end)
                guard next.contains(.lowerish) else { break }
                end += nextLength
            }
            return contractionEnd(from: end, in: text)
        }
        return afterLastShared >= 0 ? contractionEnd(from: afterLastShared, in: text) : nil
    }

    /// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|…)?` from `offset`.
    @inline(__always) private static func upperWordEnd(from offset: Int, in text: ScalarReader) -> Int? {
        guard text.scalar(at: offset, isIn: .upperish) else { return nil }
        var end = offset
        while end < text.count {
            let (next, nextLength) = text.class(at: end)
            guard next.contains(.upperish) else { break }
            end += nextLength
        }
        while end < text.count {
            let (next, nextLength) = text.class(at: end)
            guard next.contains(.lowerish) else { break }
            end += nextLength
        }
        return contractionEnd(from: end, in: text)
    }

    /// The optional contraction after a word.
    @inline(__always) private static func contractionEnd(from offset: Int, in text: ScalarReader) -> Int {
        guard offset < text.count, text[offset] == UInt8(ascii: "'") else { return offset }
        return Contraction.end(at: offset, in: text) ?? offset
    }

    /// `\s*[\r\n]+|\s+(?!\S)|\s+` from a white-space scalar at `start`.
    private static func whitespaceEnd(from start: Int, in text: ScalarReader) -> Int {
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
        // \s*[\r\n]+ : \s* backs off until a line break ends the match, so up to the last one.
        if afterLastBreak >= 0 { return afterLastBreak }
        // \s+(?!\S) : the whole run at the end of the text, else all but its last scalar.
        if end == text.count { return end }
        if lastStart > start { return lastStart }
        // \s+ (a single white space before a non-space)
        return end
    }
}
