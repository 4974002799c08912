import Foundation

// libFuzzer harness for the citation markers of a reply: `CitationMarkerScanner` (the strict
// form `CitationFinder` reads, and the looser one `GroundedAnswer` reads) and `GroundedAnswer`
// with the sentence splitter under it. Built and run by scripts/fuzz.sh; any trap is a finding.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    checkReplyMarkers(in: text)
    checkAnswerMarkers(in: text)
    return 0
}

func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

func checkReplyMarkers(in text: String) {
    let markers = CitationMarkerScanner.markers(in: text)
    var previousEnd = text.startIndex
    for marker in markers {
        let range = marker.range
        require(range.lowerBound >= previousEnd && range.lowerBound < range.upperBound && range.upperBound <= text.endIndex,
                "marker out of order or out of the text")
        require(text[range.lowerBound] == "[" && text[text.index(before: range.upperBound)] == "]", "a marker is not bracketed")
        require(!marker.numbers.isEmpty && marker.numbers.allSatisfy { (0...999).contains($0) }, "marker numbers \(marker.numbers)")
        require(CitationMarkerScanner.markers(in: String(text[range])).map(\.numbers) == [marker.numbers], "a marker read alone reads otherwise")
        previousEnd = range.upperBound
    }
    // The scan it replaced is quadratic: compared on inputs it finishes quickly.
    if text.utf8.count <= 1_024 {
        let scanned = markers.flatMap { marker in marker.numbers.map { ReferenceMarker(number: $0, range: marker.range) } }
        require(scanned == referenceCitationMarkers(in: text), "the scanner disagrees with the scan it replaced")
    }
}

func checkAnswerMarkers(in text: String) {
    let answer = GroundedAnswer(text)
    for (sentence, passages) in answer.cited {
        require(answer.sentences.indices.contains(sentence), "a citation of sentence \(sentence) of \(answer.sentences.count)")
        require(passages.allSatisfy { (0..<9_999).contains($0) }, "passage indices \(passages)")
    }
    let scalars = Array(text.unicodeScalars)
    var opens = 0
    for start in scalars.indices where scalars[start] == "[" {
        opens += 1
        if opens > 2_000 { break }
        guard let (numbers, end) = CitationMarkerScanner.answerMarker(in: scalars, at: start, upper: scalars.count) else { continue }
        require(end > start && end <= scalars.count && end - start <= 40 && scalars[end - 1] == "]", "answer marker ends at \(end)")
        require(numbers.allSatisfy { (1...9_999).contains($0) } && numbers.count <= 40 * 50, "answer marker numbers \(numbers.count)")
    }
}
