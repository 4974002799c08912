@testable import GriotSafety
import Testing

@Suite struct GroundedAnswerTests {
    @Test func markersAreTakenOutAndKeptPerSentence() {
        let answer = GroundedAnswer("She rowed to the levee [1]. Then [2-4] she left. [5] I hope this helps.")
        #expect(answer.sentences == ["She rowed to the levee.", "Then she left.", "I hope this helps."])
        #expect(answer.cited == [0: [0], 1: [1, 2, 3, 4]])
    }

    /// "[2-2]" once made the answer reader trap (a closed range from 3 to 2): a model's reply
    /// could end the process.
    @Test func aRangeFromANumberToItselfIsThatNumber() {
        #expect(GroundedAnswer("She rowed [2-2].").cited == [0: [1]])
        #expect(GroundedAnswer("She rowed [0\u{2013}0], [3-1].").cited == [0: [2, 0]])
    }

    @Test func hostileAnswersFinishWithCitationsInBounds() {
        let hostile = [
            "A claim [99999999999999999999]. Another [1-99999999999999999999999]. [9999-9999]",
            String(repeating: "[", count: 100_000) + "1]",
            String(repeating: "[1-", count: 20_000) + "]",
            "\u{0}[1]\u{1}[2\u{0}]\u{1B}[3]. \u{7F}[4]\r\n\r\n[5]",
            #""\ud800" [1]. "\udfff" [2]."#,
            String(repeating: "a", count: 1 << 20) + " [1].",
        ]
        for text in hostile {
            let answer = GroundedAnswer(text)
            for (sentence, passages) in answer.cited {
                #expect(answer.sentences.indices.contains(sentence))
                #expect(passages.allSatisfy { (0..<9_999).contains($0) })
            }
        }
    }
}
