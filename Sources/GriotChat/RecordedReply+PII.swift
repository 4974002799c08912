import Foundation
import GriotProviders
import GriotSafety

extension RecordedReply {
    /// The recording with the personal data the output gate masked masked here too, so that a
    /// turn's snapshot never holds a value the user was not shown. Values the user shared stay
    /// (the gate left them too). The text pieces keep their boundaries, except that a boundary
    /// inside a masked value moves to the mask's end; played back through the gate, the pieces
    /// give the same reply text (a mask has nothing left to mask).
    func maskingPersonalData(with scrubber: PIIScrubber, keeping shared: Set<String>) -> RecordedReply {
        let pieces = events.compactMap { event -> String? in
            if case .text(let text) = event { return text }
            return nil
        }
        let whole = pieces.joined()
        let (masked, found) = scrubber.scrub(whole, keeping: shared)
        guard !found.isEmpty else { return self }
        // Where each original UTF-16 offset lands in the masked text.
        func mapped(_ offset: Int) -> Int {
            var shift = 0
            for match in found {
                let mask = "[\(match.type.rawValue)]".utf16.count
                if offset >= match.range.upperBound {
                    shift += mask - match.range.count
                } else if offset > match.range.lowerBound {
                    return match.range.lowerBound + shift + mask
                } else {
                    break
                }
            }
            return offset + shift
        }
        let units = Array(masked.utf16)
        var recorded = self
        recorded.events = []
        var start = 0, original = 0, piece = 0
        for event in events {
            guard case .text = event else {
                recorded.events.append(event)
                continue
            }
            original += pieces[piece].utf16.count
            piece += 1
            let end = piece == pieces.count ? units.count : mapped(original)
            if end > start {
                recorded.events.append(.text(String(decoding: units[start..<end], as: UTF16.self)))
                start = end
            }
        }
        return recorded
    }
}
