import Foundation
import GriotText
import GriotTestSupport
import Testing

@Suite struct CitationMarkerScannerTests {
    func numbers(_ text: String) -> [[Int]] { CitationMarkerScanner.markers(in: text).map(\.numbers) }

    @Test func aReplysMarkersAreReadWithTheirRanges() {
        let text = "She rowed [1, 3]. Then [2][4]."
        let markers = CitationMarkerScanner.markers(in: text)
        #expect(markers.map(\.numbers) == [[1, 3], [2], [4]])
        #expect(markers.map { String(text[$0.range]) } == ["[1, 3]", "[2]", "[4]"])
    }

    @Test func onlyListsOfUpToThreeDigitNumbersAreMarkers() {
        #expect(numbers("[1,,2] [,1] [1,] [ 12 ,  3 ] [007] [0] [1,\u{3000}2]") == [[1, 2], [1], [1], [12, 3], [7], [0], [1, 2]])
        #expect(numbers("[] [,] [ ] [1, ,2] [1 2] [1000] [99999999999999999999] [a] [1-3] [\u{661}] [１] [1\u{301}] [\u{301}1]").isEmpty)
        // Only the last "[" before a "]" opens one.
        #expect(numbers("[[1]] [see [2]]") == [[1], [2]])
    }

    @Test func hostileRepliesFinishWithMarkersInsideTheText() {
        let hostile = [
            String(repeating: "[", count: 100_000) + "]",
            String(repeating: "[", count: 50_000) + "1" + String(repeating: "]", count: 50_000),
            "[" + String(repeating: "9", count: 10_000) + "]",
            "\u{0}[1]\u{1}[2\u{0}]\u{1B}[3]\u{7F}[4]\r\n[5]",
            #""\ud800" [1] "\udfff" [2]"#,
            String(repeating: "a", count: 1 << 20) + "[1]",
            String(repeating: "[1", count: 100_000),
        ]
        for text in hostile {
            for marker in CitationMarkerScanner.markers(in: text) {
                #expect(marker.range.lowerBound >= text.startIndex && marker.range.upperBound <= text.endIndex)
                #expect(text[marker.range].first == "[" && text[marker.range].last == "]")
                #expect(!marker.numbers.isEmpty && marker.numbers.allSatisfy { (0...999).contains($0) })
            }
        }
        #expect(numbers(hostile[1]) == [[1]])
        #expect(numbers(hostile[3]) == [[1], [3], [4], [5]])
    }

    /// The reading `CitationFinder` had before the scanner, on random text made of what markers
    /// are made of and what confuses them: the scanner must read every such text the same way.
    @Test func readsRandomTextAsTheScanItReplacedDid() {
        let pieces = ["[", "]", ",", " ", "1", "23", "4567", "\t", "\u{3000}", "\u{200B}", "\u{A0}", "\u{301}", "\u{600}",
                      "a", ".", "\u{0}", "\n", "\r\n", "\u{661}", "-", "🇺🇸", "\u{200D}", "é"]
        var random = SplitMix64(seed: 25)
        for _ in 0..<3_000 {
            let text = (0..<Int(random.next() % 24)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            let scanned = CitationMarkerScanner.markers(in: text).flatMap { marker in marker.numbers.map { ReferenceMarker(number: $0, range: marker.range) } }
            #expect(scanned == referenceCitationMarkers(in: text), "\(text.unicodeScalars.map(\.value))")
        }
    }

    /// Work grows with the text, not with its square: 1 MB of "[" against 100 kB of it (the
    /// scan before took 100 times as long for 10 times the text; a linear one about 10 times).
    @Test func scanningIsLinearInTheText() {
        func fastest(_ text: String) -> Duration {
            (0..<3).map { _ in ContinuousClock().measure { _ = CitationMarkerScanner.markers(in: text) } }.min()!
        }
        let small = fastest(String(repeating: "[", count: 100_000) + "]")
        let large = fastest(String(repeating: "[", count: 1_000_000) + "]")
        #expect(large < small * 30, "100 kB took \(small), 1 MB \(large)")
    }
}

