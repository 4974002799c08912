import GriotText

/// An answer cut into sentences, with the `[n]` citation markers taken out of the text and
/// kept as passage indices (0-based) per sentence.
///
/// A marker that opens a sentence ("She rowed. [2] Then …" as some models write it) belongs
/// to the sentence before it, since that is the one it cites.
///
/// ```swift
/// let answer = GroundedAnswer("She rowed to the levee [1]. I hope this helps.")
/// answer.sentences   // ["She rowed to the levee.", "I hope this helps."]
/// answer.cited       // [0: [0]]
/// ```
struct GroundedAnswer {
    var sentences: [String] = []
    var cited: [Int: [Int]] = [:]

    init(_ text: String) {
        let scalars = Array(text.unicodeScalars)
        for span in SentenceSplitter.sentences(in: scalars) {
            var sentence = String.UnicodeScalarView()
            var markers: [Int] = []
            var index = span.start
            var leading = true
            while index < span.end {
                if scalars[index] == "[", case let (numbers, end)? = CitationMarkerScanner.answerMarker(in: scalars, at: index, upper: span.end) {
                    markers.append(contentsOf: numbers.map { $0 - 1 })
                    if leading, let last = sentences.indices.last {
                        cited[last, default: []].append(contentsOf: numbers.map { $0 - 1 })
                        markers.removeAll()
                    }
                    index = end
                    continue
                }
                if !scalars[index].properties.isWhitespace { leading = false }
                sentence.append(scalars[index])
                index += 1
            }
            let cleaned = Self.tidy(String(sentence))
            guard !cleaned.isEmpty else { continue }
            if !markers.isEmpty { cited[sentences.count, default: []].append(contentsOf: markers) }
            sentences.append(cleaned)
        }
    }

    /// Closes the gap a removed marker leaves before punctuation ("levee ." → "levee.").
    private static func tidy(_ sentence: String) -> String {
        var result = ""
        result.reserveCapacity(sentence.utf8.count)
        var pendingSpace = false
        for character in sentence {
            if character == " " || character == "\t" || character == "\n" {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace, !".,;:!?)".contains(character) { result.append(" ") }
            pendingSpace = false
            result.append(character)
        }
        return result
    }
}
