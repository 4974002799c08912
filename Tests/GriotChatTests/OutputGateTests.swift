@testable import GriotChat
import GriotSafety
import Testing

/// The output gate alone: what it holds back, and where it lets text through.
@Suite struct OutputGateTests {
    let scrubber = try! PIIScrubber()

    func pass(_ pieces: [String], gate: inout OutputGate) -> [String] {
        var out: [String] = []
        for piece in pieces { if let text = gate.feed(piece) { out.append(text) } }
        if let rest = gate.finish() { out.append(rest) }
        return out
    }

    @Test func onlyWholeSentencesPassAndTheLastWaitsForWhatFollows() {
        var gate = OutputGate(scrubber: scrubber, shared: [], moderator: nil)
        let first = gate.feed("They married in 1948.")
        #expect(first == nil, "“1948.” might still become “1948.5”")
        let second = gate.feed(" Then")
        #expect(second == "They married in 1948. ")
        let rest = gate.finish()
        #expect(rest == "Then")
    }

    @Test func aListItemOnANewLineEndsTheTextBeforeIt() {
        var gate = OutputGate(scrubber: scrubber, shared: [], moderator: nil)
        let first = gate.feed("Things to ask Grandpa:\n- where")
        #expect(first == "Things to ask Grandpa:\n")
        let second = gate.feed(" he was born\n- who")
        #expect(second == "- where he was born\n")
    }

    @Test func aLongRunWithoutASentenceEndIsCutAwayFromAnyDigits() throws {
        var gate = OutputGate(scrubber: scrubber, shared: [], moderator: nil)
        let words = Array(repeating: "and the river rose", count: 30).joined(separator: " ")
        let fed = gate.feed(words + " call 212-555-0199 now")
        let passed = try #require(fed)
        #expect(passed.count < words.count + 10)
        #expect(!passed.contains("212"))
        let rest = gate.finish()
        #expect(rest?.contains("[PHONE]") == true)
    }

    @Test func aSentenceOverThePolicyIsReplacedAndCounted() {
        var gate = OutputGate(scrubber: nil, shared: [], moderator: LocalModerator())
        let out = pass(["The flood came in May. ", "Shut up, you idiot. You are worthless trash. ", "We rebuilt."], gate: &gate).joined()
        #expect(out.hasPrefix("The flood came in May. "))
        #expect(out.contains(OutputGate.removedSentence))
        #expect(out.hasSuffix("We rebuilt."))
        #expect(gate.removedSentences >= 1)
    }

    @Test func aQuotationFromTheArchiveIsJudgedAsTheArchivesNotTheModels() {
        let words = "You are a worthless idiot and I will kill you and your whole family."
        let passage = "The night riders stopped at the gate. One of them said, \(words) Then they rode off."
        let quoting = "“\(words)” [1] "
        // Without the passage, the sentence is over the policy and goes.
        var unsourced = OutputGate(scrubber: nil, shared: [], moderator: LocalModerator())
        #expect(pass([quoting, "Papa never forgot it."], gate: &unsourced).joined().contains(OutputGate.removedSentence))
        // Quoted from a passage the model was given, it is the archive's record and stays.
        var gate = OutputGate(scrubber: nil, shared: [], moderator: LocalModerator(), sources: [passage])
        let kept = pass([quoting, "Papa never forgot it."], gate: &gate).joined()
        #expect(kept.hasPrefix(quoting), "\(kept)")
        #expect(gate.removedSentences == 0)
        // The same words as the model's own, not quoted, are removed even so.
        var own = OutputGate(scrubber: nil, shared: [], moderator: LocalModerator(), sources: [passage])
        #expect(pass([words + " ", "Done."], gate: &own).joined().contains(OutputGate.removedSentence))
    }
}
