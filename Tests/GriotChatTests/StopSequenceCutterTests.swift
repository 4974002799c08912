@testable import GriotChat
import Testing

/// OpenAI's `stop`, applied by the pipeline whatever the provider does with it.
@Suite struct StopSequenceCutterTests {
    /// Feeds `pieces` one by one, as a stream would, and returns what would be sent.
    func cut(_ pieces: [String], at stops: [String]) -> (text: String, reached: Bool) {
        var cutter = StopSequenceCutter(stops)!
        var sent = ""
        for piece in pieces {
            let (text, reached) = cutter.feed(piece)
            sent += text
            if reached { return (sent, true) }
        }
        return (sent + cutter.finish(), false)
    }

    @Test func aStopSplitAcrossPiecesIsFound() {
        #expect(cut(["Ida Mae sang.", "\n", "\nThe end"], at: ["\n\n"]) == ("Ida Mae sang.", true))
        #expect(cut(["Zofia Łukasie", "wicz. EN", "D and more"], at: ["END"]) == ("Zofia Łukasiewicz. ", true))
    }

    @Test func theEarliestStopWins() {
        #expect(cut(["李秀英 sang; then she danced. Done."], at: ["Done", ";"]) == ("李秀英 sang", true))
    }

    @Test func aHeldBackEndThatBeginsNoStopIsSentAtTheEnd() {
        #expect(cut(["The story ends E", "N"], at: ["END"]) == ("The story ends EN", false))
        #expect(cut(["No stop here."], at: ["###"]) == ("No stop here.", false))
    }

    @Test func emptyStopsCutNothing() {
        #expect(StopSequenceCutter([]) == nil)
        #expect(StopSequenceCutter([""]) == nil)
    }
}
