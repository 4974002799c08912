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

    // MARK: - A value is never split

    /// Replies whose values run across what looks like a sentence end, or follow a cue word in the
    /// sentence before, or sit in a long run with no sentence end at all.
    static let replies: [String] = [
        "We lived at 12 Oak Rd. Apt. 4, Springfield, IL 62704 for years. Then we moved north.",
        "The shop was at 310 Market St. Ste. 200, Denver, CO 80202. We went there on Saturdays.",
        "Our first house was 9 Elm Pl. Apt. 2B, Albany, NY 12203. It had a porch.",
        "He rented 221B Baker Street, London NW1 6XE. It was small but warm.",
        "Write down her number. It was 555-0187 back then, and Papa knew it by heart.",
        "Her line was 412\u{2013}555\u{2013}0187. She answered every evening. Then she moved.",
        "Mail went to P.O. Box 1187, Tulsa, OK 74101. The box is gone now.",
        "Call ４１２－５５５－０１８７ or write ida.mae at example dot com. She will answer.",
        String(repeating: "and the river rose over the levee ", count: 11) + "so call 412-555-0187 or 555-0199 and ask for Ida at ida at example dot com before the water",
    ]

    func expected(_ reply: String) -> String { scrubber.scrub(reply).text }

    @Test(arguments: replies)
    func deltasCutAtEveryPositionGiveTheWholeTextsMasks(reply: String) {
        let scalars = Array(reply.unicodeScalars)
        let whole = expected(reply)
        #expect(whole != reply, "each reply holds a value")
        for cut in 1..<scalars.count {
            var gate = OutputGate(scrubber: scrubber, shared: [], moderator: nil)
            let first = String(String.UnicodeScalarView(scalars[..<cut]))
            let second = String(String.UnicodeScalarView(scalars[cut...]))
            let out = pass([first, second], gate: &gate).joined()
            #expect(out == whole, "cut at \(cut): \(first.debugDescription) | \(second.debugDescription)")
            if out != whole { return }
        }
    }

    @Test(arguments: replies)
    func oneScalarAtATimeGivesTheWholeTextsMasks(reply: String) {
        var gate = OutputGate(scrubber: scrubber, shared: [], moderator: nil)
        let pieces = reply.unicodeScalars.map { String($0) }
        #expect(pass(pieces, gate: &gate).joined() == expected(reply))
    }

    @Test func noPassedPieceHoldsPartOfAValue() {
        // Each piece the gate lets through is checked on its own: none may show a value's digits.
        let reply = "We lived at 12 Oak Rd. Apt. 4, Springfield, IL 62704 for years. Call 555-0187. Bye."
        var gate = OutputGate(scrubber: scrubber, shared: [], moderator: nil)
        for piece in reply.split(separator: " ", omittingEmptySubsequences: false).map({ $0 + " " }) {
            if let out = gate.feed(String(piece)) {
                #expect(!out.contains("62704") && !out.contains("Springfield") && !out.contains("0187") && !out.contains("Apt"), "\(out)")
            }
        }
        #expect(gate.finish().map { !$0.contains("0187") } ?? true)
    }

    @Test func aValueAtASentenceEndWaitsOnlyForTheNextSentence() {
        var gate = OutputGate(scrubber: scrubber, shared: [], moderator: nil)
        #expect(gate.feed("Her number was 212-555-0199. She") == nil, "the next sentence might continue the value")
        #expect(gate.feed(" moved away. Then") == "Her number was [PHONE]. She moved away. ", "one more whole sentence settles it")
        #expect(gate.finish() == "Then")
    }

    @Test func aValueTheUserSharedPassesAsWritten() {
        var gate = OutputGate(scrubber: scrubber, shared: scrubber.sharedKeys(in: "my cell is ２１２－５５５－０１９９"), moderator: nil)
        let out = pass(["Your number 212-555-", "0199 is saved. Mine is 412-555-0187. Bye."], gate: &gate).joined()
        #expect(out == "Your number 212-555-0199 is saved. Mine is [PHONE]. Bye.")
        #expect(gate.kept == 1 && gate.masked[.phone] == 1)
    }
}
