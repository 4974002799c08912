@testable import GriotChat
import GriotSafety
import GriotTestSupport
import Testing

/// The sentence gate on hostile text (issue 25): whatever the text and however the model's
/// stream cuts it, the gate returns, and with no stage that changes text it passes every
/// character once, in order: it loses nothing and adds nothing.
@Suite struct OutputGatePropertyTests {
    /// The corpus's texts up to 50 kB (a reply is bounded far below that), each with a seed.
    static let cases: [Int] = HostileStrings.all.indices.filter { (HostileStrings.all[$0].text?.utf8.count ?? .max) <= 50_000 }

    static func pieces(of text: String, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        var pieces: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            let length = Int.random(in: 1...64, using: &random)
            pieces.append(String(rest.prefix(length)))
            rest = rest.dropFirst(length)
        }
        return pieces
    }

    @Test(arguments: cases)
    func withNoStageTheGatePassesEveryCharacterOnce(_ index: Int) throws {
        let text = try #require(HostileStrings.all[index].text)
        for seed in 1...3 as ClosedRange<UInt64> {
            var gate = OutputGate(scrubber: nil, shared: [], moderator: nil)
            var out = ""
            for piece in Self.pieces(of: text, seed: seed) { out += gate.feed(piece) ?? "" }
            out += gate.finish() ?? ""
            #expect(Array(out.unicodeScalars) == Array(text.unicodeScalars), "\(HostileStrings.all[index]), seed \(seed)")
        }
    }

    @Test(arguments: cases)
    func withTheScrubberTheGateEndsAndHoldsNothingBack(_ index: Int) throws {
        let text = try #require(HostileStrings.all[index].text)
        var gate = OutputGate(scrubber: try PIIScrubber(), shared: [], moderator: nil)
        var out = ""
        for piece in Self.pieces(of: text, seed: 7) { out += gate.feed(piece) ?? "" }
        out += gate.finish() ?? ""
        #expect(gate.held.isEmpty || gate.finish() == nil)
        // Masks only shorten or keep a value's length give or take its label: nothing runs away.
        #expect(out.utf8.count <= text.utf8.count + 64 * max(1, gate.masked.values.reduce(0, +)), "\(HostileStrings.all[index])")
    }
}
