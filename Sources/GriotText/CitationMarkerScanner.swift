/// A citation marker in a model's reply: `[3]`, or `[1, 3]` citing several passages at once.
public struct CitationMarker: Hashable, Sendable {
    /// The passage numbers as written (1-based, so 0 is possible and means no passage), in order.
    public var numbers: [Int]
    /// From the `[` to just after the `]`.
    public var range: Range<String.Index>

    public init(numbers: [Int], range: Range<String.Index>) {
        self.numbers = numbers
        self.range = range
    }
}

/// Reads the citation markers of a model's reply, in one pass over the text, whatever the text:
/// a reply is untrusted, and "[" repeated a million times before one "]" must cost a million
/// steps, not a million squared; a marker's numbers have at most three digits, so none overflows.
///
/// ```swift
/// CitationMarkerScanner.markers(in: "She rowed [1, 3]. Then [2][4].").map(\.numbers)
/// // [[1, 3], [2], [4]]
/// ```
/// A reply marker is `[`, then numbers of one to three ASCII digits separated by commas, with
/// spaces around them allowed, then `]`. Empty places in a list are skipped ("[1,,2]"); a blank
/// one ("[1, ,2]") is not a marker.
public enum CitationMarkerScanner {
    /// The digits a reply marker's number may have: no passage list reaches 1,000, and so few
    /// digits cannot overflow.
    public static let maximumDigits = 3

    /// The markers of `text`, in order.
    public static func markers(in text: String) -> [CitationMarker] {
        var found: [CitationMarker] = []
        // The UTF-8 bytes are searched for "[" (fast), and only the text from a "[" to where its
        // marker ends or fails is read as characters (slow, as the grapheme rules are). A marker
        // holds no "[", so those stretches do not overlap: each character is read once at most.
        let utf8 = text.utf8
        var from = utf8.startIndex
        while let byte = utf8[from...].firstIndex(of: UInt8(ascii: "[")) {
            from = utf8.index(after: byte)
            // The "[" must be a character by itself ("[" with a combining mark is not a bracket).
            guard let open = String.Index(byte, within: text), text[open] == "[" else { continue }
            var candidate = Candidate()
            var index = text.index(after: open)
            reading: while index < text.endIndex {
                let character = text[index]
                if character == "[" { break }
                let next = text.index(after: index)
                switch candidate.read(character) {
                case .more:
                    index = next
                case .closed:
                    found.append(CitationMarker(numbers: candidate.numbers, range: open..<next))
                    break reading
                case .refused:
                    break reading
                }
            }
        }
        return found
    }

    /// The looser form a grounded answer is read with: `[1]`, `[1, 3]`, `[1 3]`, `[2-4]` (or an
    /// en dash), starting at the `[` at `start` and ending within 40 scalars and before `upper`.
    /// Returns the numbers (a range as all its numbers, 0 left out) and the offset after `]`, or
    /// nil for other brackets. A number may have four digits; a range at most 50 numbers.
    public static func answerMarker(in scalars: [Unicode.Scalar], at start: Int, upper: Int) -> (numbers: [Int], end: Int)? {
        var numbers: [Int] = []
        var current: Int?
        var rangeStart: Int?
        var index = start + 1
        while index < upper, index < start + 40 {
            let scalar = scalars[index]
            if scalar.isASCII, scalar.value &- 48 < 10 {
                let digit = Int(scalar.value) - 48
                // No passage list is that long: "[1-99999999999999999999999]" is not a citation,
                // and its number would overflow.
                guard (current ?? 0) < 1_000 else { return nil }
                current = (current ?? 0) * 10 + digit
            } else if scalar == "," || scalar == " " || scalar == "]" || scalar == "-" || scalar == "\u{2013}" {
                if let value = current {
                    if let from = rangeStart, from <= value, value - from < 50 {
                        // Half-open: "[2-2]" is 2 (already in), and `(from + 1)...value` trapped on it.
                        numbers.append(contentsOf: (from + 1)..<(value + 1))
                        rangeStart = nil
                    } else {
                        numbers.append(value)
                    }
                    if scalar == "-" || scalar == "\u{2013}" { rangeStart = value }
                    current = nil
                }
                if scalar == "]" { return numbers.isEmpty ? nil : (numbers.filter { $0 > 0 }, index + 1) }
            } else {
                return nil
            }
            index += 1
        }
        return nil
    }

    /// A "[" and what followed it so far.
    private struct Candidate {
        enum Step { case more, closed, refused }

        var numbers: [Int] = []
        /// The list place being read: its number so far, its digits, and what it has held.
        var value = 0
        var digits = 0
        var placeIsEmpty = true
        var spaceAfterNumber = false

        mutating func read(_ character: Character) -> Step {
            if let ascii = character.asciiValue, character.unicodeScalars.count == 1, ascii &- 48 < 10 {
                // "1 2" is not a list, and "[1000]" not a marker.
                guard !spaceAfterNumber, digits < CitationMarkerScanner.maximumDigits else { return .refused }
                value = value * 10 + Int(ascii - 48)
                digits += 1
                placeIsEmpty = false
                return .more
            }
            if character == "," || character == "]" {
                if digits > 0 {
                    numbers.append(value)
                } else if !placeIsEmpty {
                    return .refused
                }
                value = 0
                digits = 0
                placeIsEmpty = true
                spaceAfterNumber = false
                if character == "]" { return numbers.isEmpty ? .refused : .closed }
                return .more
            }
            if character.unicodeScalars.allSatisfy(Self.isSpace) {
                placeIsEmpty = false
                if digits > 0 { spaceAfterNumber = true }
                return .more
            }
            return .refused
        }

        /// Foundation's `CharacterSet.whitespaces` (the spaces around a number): tab, the
        /// Unicode space separators, and the zero-width space.
        static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
        }
    }
}
