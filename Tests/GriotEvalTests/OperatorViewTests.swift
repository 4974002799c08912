@testable import GriotEval
import Testing

/// The pieces of the operators' rule that work on text, in any script.
@Suite struct OperatorViewTests {
    @Test func namesAreMaskedAsWholeWordsInAnyScript() {
        let people = ["Zofia Łukasiewicz", "李秀英", "Amos Carter"]
        #expect(OperatorView.names("Zofia Łukasiewicz told it; Łukasiewiczowa did not.", people: people)
            == "[PERSON] told it; Łukasiewiczowa did not.")
        #expect(OperatorView.names("李秀英说她母亲的故事。", people: people) == "[PERSON]说她母亲的故事。")
        #expect(OperatorView.names("Amos rowed; Amosville is a town. Carter's boat.", people: people)
            == "[PERSON] rowed; Amosville is a town. [PERSON]'s boat.")
    }

    @Test func aSentenceQuotingAPassageSharesARunOfWordsWithItInAnyScript() {
        let passage = "The levee broke at Mounds Landing and we spent two nights on the church roof."
        #expect(!OperatorView.runs(of: passage).isDisjoint(with: OperatorView.runs(of: "She said “we spent two nights on the church roof” then.")))
        #expect(OperatorView.runs(of: passage).isDisjoint(with: OperatorView.runs(of: "The levee held that year at the landing.")))
        let han = "一九五二年父亲把四十封信藏在厨房的地板下面。"
        #expect(!OperatorView.runs(of: han).isDisjoint(with: OperatorView.runs(of: "她说信藏在厨房的地板下面。")))
    }

    @Test func markersAreReadWithTheirNumbers() {
        #expect(OperatorView.markers(in: "It broke [1]. Both [2, 3] agree; [PHONE] is not one.") == [1, 2, 3])
    }
}
