import Foundation
import GriotSafety
import Testing

/// Issue 14: spellings crafted to slip past the word lists are read as plain words, rules alone
/// (no model file needed), and the same tricks on harmless words change nothing.
struct ModerationSpellingTests {
    static func decision(_ text: String) -> String { ModerationTests.decision(LocalModerator().classify(text)) }

    @Test func fullWidthLettersAreReadAsLatin() {
        #expect(Self.decision("ｉ ｗａｎｔ ｔｏ ｅｎｄ ｍｙ ｌｉｆｅ") == "crisis")
        #expect(Self.decision("ｍｙ ｇｒａｎｄｆａｔｈｅｒ ｆａｒｍｅｄ ｉｎ ｏｈｉｏ") == "allow")
    }

    @Test func zeroWidthCharactersInsideWordsAreDropped() {
        #expect(Self.decision("I want to k\u{200B}i\u{200B}l\u{200B}l myself") == "crisis")
        #expect(Self.decision("you pathetic wor\u{200C}thless id\u{2060}iot") == "block")
    }

    @Test func cyrillicLookAlikesAreFoldedButRussianWordsAreLeftAlone() {
        #expect(Self.decision("i \u{0430}m going to kill mys\u{0435}lf") == "crisis")
        #expect(Self.decision("I will sh\u{043E}\u{043E}t you") == "block")
        #expect(Self.decision("Мой друг написал письмо бабушке.") == "allow")
    }

    @Test func lettersSpeltOutWithDotsOrHyphensAreJoined() {
        #expect(Self.decision("I keep thinking about s-u-i-c-i-d-e, I'm going to do it") == "crisis")
        #expect(Self.decision("you are a p.a.t.h.e.t.i.c l.o.s.e.r and an idiot") == "block")
        #expect(Self.decision("We met in the U.S. in 1999.") == "allow")
    }

    @Test func censoredLettersAreFilledInFromTheLexicon() {
        #expect(Self.decision("I want to k*ll mys*lf") == "crisis")
        #expect(Self.decision("you f***ing st*pid moron") == "block")
        #expect(Self.decision("the c*ke at the reunion was lovely") == "allow")
    }

    @Test func euphemismsForSuicideAreReadAsWhatTheyMean() {
        #expect(Self.decision("i'm going to kms") == "crisis")
        #expect(Self.decision("I want to unalive myself") == "crisis")
        #expect(Self.decision("I ran 12 kms this morning before class") == "allow")
    }

    @Test func spanishCrisisAndThreatsAreCaughtAndIdiomsAllowed() {
        #expect(Self.decision("Ya no quiero vivir, quiero matarme.") == "crisis")
        #expect(Self.decision("Te voy a matar cuando salgas.") == "block")
        #expect(Self.decision("Me gusta matar el tiempo leyendo.") == "allow")
        #expect(Self.decision("Mi abuelo contaba que mataron a su hermano en 1936.") == "allow")
    }

    @Test func nonASCIILettersNoLongerHideAWord() {
        // Before issue 14 one non-ASCII letter split "matarte" or a Polish name into pieces.
        #expect(Self.decision("Zofia Łukasiewicz wrote to her son every week.") == "allow")
        #expect(Self.decision("李秀英 told us about the market.") == "allow")
    }
}
