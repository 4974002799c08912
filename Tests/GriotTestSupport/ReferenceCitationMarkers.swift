import Foundation

/// One number of a citation marker, with the marker's range, as `CitationFinder.markers(in:)`
/// reported it before `CitationMarkerScanner`.
public struct ReferenceMarker: Equatable {
    public var number: Int
    public var range: Range<String.Index>

    public init(number: Int, range: Range<String.Index>) {
        self.number = number
        self.range = range
    }
}

/// `CitationFinder.markers(in:)` as it was (quadratic: a "]" searched for after every "["): the
/// reading the scanner must agree with, for its tests and its fuzz target (scripts/fuzz.sh
/// compiles this file into Fuzz/CitationMarkers).
public func referenceCitationMarkers(in text: String) -> [ReferenceMarker] {
    var found: [ReferenceMarker] = []
    var index = text.startIndex
    while let open = text[index...].firstIndex(of: "[") {
        guard let close = text[open...].firstIndex(of: "]") else { break }
        let inside = text[text.index(after: open)..<close]
        let numbers = inside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if !numbers.isEmpty, numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } && $0.count <= 3 }) {
            for number in numbers { found.append(ReferenceMarker(number: Int(number)!, range: open..<text.index(after: close))) }
        }
        index = text.index(after: open)
    }
    return found
}
