/// Breaks text into lines that fit a measure, using the font's real glyph widths.
///
/// Lines break at spaces; a word wider than the whole line is cut between characters rather
/// than overflowing the margin. Each newline in the text starts a new line, and an empty
/// paragraph stays as an empty line so blank lines the writer left are kept.
///
/// ```swift
/// let breaker = LineBreaker(font: .helvetica, size: 10.5, width: 494)
/// let lines = breaker.lines(for: "Aunt Lil ran the boarding house on Dumaine Street…")
/// // [[0x41, 0x75, …], …], each no wider than 494 points
/// ```
struct LineBreaker: Sendable {
    var font: StandardFont
    var size: Double
    /// The measure in points.
    var width: Double

    /// WinAnsi-encoded lines of `text`, paragraph by paragraph.
    func lines(for text: String) -> [[UInt8]] {
        text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .flatMap { lines(forParagraph: WinAnsiEncoding.bytes(for: String($0))) }
    }

    /// Lines of one paragraph of WinAnsi-encoded text (no line breaks in it).
    func lines(forParagraph bytes: [UInt8]) -> [[UInt8]] {
        let space = UInt8(ascii: " ")
        // Widths in thousandths of the font size, so the sums stay exact integers.
        let measure = width * 1000 / size
        var lines: [[UInt8]] = []
        var start = 0
        var index = 0
        var lineWidth = 0
        var lastSpace: Int?

        func endLine(at end: Int, resumingAt next: Int) {
            lines.append(trimmingTrailingSpaces(bytes[start..<end]))
            var resume = next
            while resume < bytes.count, bytes[resume] == space { resume += 1 }
            start = resume
            index = resume
            lineWidth = 0
            lastSpace = nil
        }

        while index < bytes.count {
            let byte = bytes[index]
            let advance = font.advance(of: byte)
            if Double(lineWidth + advance) > measure, index > start {
                if byte == space {
                    endLine(at: index, resumingAt: index)
                } else if let lastSpace, lastSpace > start {
                    endLine(at: lastSpace, resumingAt: lastSpace + 1)
                } else {
                    endLine(at: index, resumingAt: index)
                }
                continue
            }
            if byte == space { lastSpace = index }
            lineWidth += advance
            index += 1
        }
        if start < bytes.count || lines.isEmpty {
            lines.append(trimmingTrailingSpaces(bytes[start...]))
        }
        return lines
    }

    private func trimmingTrailingSpaces(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var line = Array(bytes)
        while line.last == UInt8(ascii: " ") { line.removeLast() }
        return line
    }
}
