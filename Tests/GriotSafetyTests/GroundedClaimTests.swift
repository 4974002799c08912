@testable import GriotSafety
import Testing

/// A cited sentence against the one passage it cites: what backs it and what gives it away.
@Suite struct GroundedClaimTests {
    let passage = """
        In the spring of 1931 my mother, Hattie Greer, took the train from Clarksdale to Chicago with three of us children. \
        Papa stayed behind to sell the mule. We did not have a coat among us, and my cousin Lonnie met us at the station.
        """
    let about = ["Leaving Clarksdale", "Minnie Greer", "Hattie Greer", "Clarksdale, Mississippi", "Chicago"]

    @Test(arguments: [
        "Her mother Hattie took the train from Clarksdale to Chicago in 1931 with three children.",
        "Her father stayed behind to sell the mule.",
        "They had no coat among them, and her cousin Lonnie met them at the station.",
        "According to the story, Minnie Greer recalled that Lonnie met them at the station.",
    ])
    func aSentenceThePassageSaysIsSupported(_ claim: String) {
        let verdict = GroundedClaim.check(claim, passage: passage, about: about)
        #expect(verdict.isSupported, "\(verdict.problems)")
        #expect(verdict.bestSentence != nil)
    }

    @Test(arguments: [
        ("a swapped year", "Her mother Hattie took the train from Clarksdale to Chicago in 1934 with three children."),
        ("a swapped place", "Her mother Hattie took the train from Clarksdale to Detroit in 1931 with three children."),
        ("a swapped number", "Her mother Hattie took the train from Clarksdale to Chicago in 1931 with five children."),
        ("a swapped name", "Her mother Odessa took the train from Clarksdale to Chicago in 1931 with three children."),
        ("a swapped kinship word", "Her aunt Hattie took the train from Clarksdale to Chicago in 1931 with three children."),
        ("a kinship word from another sentence", "Her cousin stayed behind to sell the mule."),
        ("a negation added", "Her father did not stay behind to sell the mule."),
        ("a negation taken out", "They had a coat among them, and her cousin Lonnie met them at the station."),
        ("a place opening the sentence", "Memphis was where her cousin Lonnie met them at the station."),
        ("nothing the passage says", "The family opened a barbecue stand on the South Side that summer."),
    ])
    func anAlteredSentenceIsNot(_ alteration: String, _ claim: String) {
        #expect(!GroundedClaim.check(claim, passage: passage, about: about).isSupported, "\(alteration)")
    }

    @Test func aMaskedValueIsNeitherCheckedNorHeldAgainstTheSentence() {
        let verdict = GroundedClaim.check("Lonnie met them at the station, [ADDRESS].", passage: passage, about: about)
        #expect(verdict.isSupported, "\(verdict.problems)")
    }

    @Test func aVerbatimQuoteIsThePassagesOwnWordsAndOnlyTheSentenceAroundItIsChecked() {
        let quote = "We did not have a coat among us"
        #expect(GroundedClaim.check("Minnie Greer recalled: “\(quote)”", passage: passage, about: about, quoted: quote).isSupported)
        #expect(!GroundedClaim.check("In 1950 Odessa recalled: “\(quote)”", passage: passage, about: about, quoted: quote).isSupported)
    }

    /// A 1930s transcript spells the household's titles as spoken; a retelling writes them out.
    @Test func aTitleRetoldInStandardSpellingIsNotAFactButTheNameAfterItIs() {
        let transcript = "Marse Ezra Pettibone and Mis'ess Dellie had a big house on de ridge. Ole Miss done give me a calico dress."
        #expect(GroundedClaim.check("Master Ezra Pettibone and Mistress Dellie had a big house on the ridge.", passage: transcript).isSupported)
        #expect(GroundedClaim.check("Elderly Miss gave her a calico dress.", passage: transcript).isSupported)
        #expect(!GroundedClaim.check("Master Ezra Whitcomb and Mistress Dellie had a big house on the ridge.", passage: transcript).isSupported)
    }
}
