import GriotChat
import Testing

/// Faithful answers a model writes are not flagged, and the same answers altered still are
/// (issue 35, item 1), checked as a turn checks a cited sentence (`CitationCheck`).
@Suite struct CitationCheckParaphraseTests {
    static let passage = """
    We were out on the Lamont place, about six miles east of Greenville off the Leland road. My daddy had \
    twelve acres of cotton there. I was seventeen, going on eighteen, and Amos was twenty-two. The water came \
    slow and then it came fast. Nobody knew it was going to break, but everybody was scared.
    """
    static let about = ["The Water Came Up", "Ida Mae Carter", "Ida Mae Carter", "Amos Carter", "Greenville, Mississippi", "Ida Mae Carter"]
    static let title = "The Water Came Up"

    static func outcome(_ claim: String, date: String? = "summer 1976") -> CitationCheck.Outcome {
        let about = CitationCheck.about(Self.about, description: "Ruth Carter asks her grandmother Ida Mae about the 1927 flood.", date: date)
        return CitationCheck.outcome(claim: claim, passage: passage, about: about, title: title)
    }

    @Test func theTellersKinIsTheirOwn() {
        #expect(Self.outcome("Ida Mae's father had twelve acres of cotton on the Lamont place.") == .verified)
        #expect(Self.outcome("Her father had twelve acres of cotton there.") == .verified)
        #expect(Self.outcome("Ida Mae's uncle had twelve acres of cotton on the Lamont place.") == .unsupported)
    }

    @Test func passageWordsInQuotationMarksAreTheirOwnWords() {
        #expect(Self.outcome("Ida Mae remembered it this way: “The water came slow and then it came fast.”") == .verified)
        #expect(Self.outcome("In Ida Mae's words, \"the water came slow and then it came fast,\" and the family never forgot it.") == .verified)
        #expect(Self.outcome("Ida Mae remembered it this way: “The water came slow and then the levee held.”") == .fabricatedQuote)
    }

    @Test func twoFactsOfThePassageJoinedInOneSentence() {
        #expect(Self.outcome("Ida Mae was seventeen and Amos was twenty-two, and nobody knew it was going to break.") == .verified)
        #expect(Self.outcome("Ida Mae was seventeen and Amos was twenty-two; the water came slow and then it came fast.") == .verified)
        #expect(Self.outcome("Ida Mae was seventeen and Amos was twenty-two, and everybody knew it was going to break.") == .unsupported)
        #expect(Self.outcome("Ida Mae was seventeen and Amos was twenty-two, and the water never came fast.") == .unsupported)
    }

    @Test func theRecordingDateComesFromTheStory() {
        #expect(Self.outcome("In a 1976 recording, Ida Mae said the water came slow and then it came fast.") == .verified)
        #expect(Self.outcome("In a 1986 recording, Ida Mae said the water came slow and then it came fast.") == .unsupported)
        #expect(Self.outcome("In a 1976 recording, Ida Mae said the water came slow and then it came fast.", date: nil) == .unsupported)
    }

    @Test func namesInEveryScriptAreCheckedAsWritten() {
        let passage = "Zofia Łukasiewicz taught piano in Kraków for thirty years. 李秀英 came to visit every spring."
        let about = CitationCheck.about(["Lessons", "Zofia Łukasiewicz", "李秀英"], description: nil, date: nil)
        #expect(CitationCheck.outcome(claim: "Zofia Łukasiewicz taught piano in Kraków for thirty years.", passage: passage, about: about, title: "Lessons") == .verified)
        #expect(CitationCheck.outcome(claim: "Zofia Łukasiewicz taught piano in Warsaw for thirty years.", passage: passage, about: about, title: "Lessons") == .unsupported)
    }
}
