import Foundation
@testable import GriotSafety
import Testing

/// Issue 35, item 2: a message the service stops as written is still stopped when it is
/// disguised by any of the techniques the moderation benchmark fuzzes with; the same readings
/// leave harmless text and other scripts as they were. Rules alone (no model file needed).
struct ModerationDisguiseTests {
    static func decision(_ text: String) -> String { ModerationTests.decision(LocalModerator().classify(text)) }

    @Test func eachTechniqueOnACrisisMessageIsStillACrisis() {
        #expect(Self.decision("I want to kill myself") == "crisis")
        let disguised = [
            "spaced-out letters": "I w a n t to k i l l m y s e l f",
            "leetspeak": "I w4nt to k1ll my5e1f",
            "homoglyphs": "I want to \u{043A}\u{03B9}\u{04CF}l mys\u{0435}lf",
            "invisible characters": "I want to k\u{00AD}i\u{200D}ll my\u{FE0F}self",
            "a mark between letters": "I want to k/i/l/l myself",
            "mixed case, a mark inside the word": "I want to Ki.Ll mYsElf",
            "repeated letters": "I wwant to kiilll myseeelf",
        ]
        for (technique, text) in disguised {
            #expect(Self.decision(text) == "crisis", "\(technique): \(text)")
        }
    }

    @Test func eachTechniqueOnAThreatIsStillBlocked() {
        #expect(Self.decision("I will shoot you in the face") == "block")
        let disguised = [
            "spaced-out letters": "I will s h o o t y o u in the face",
            "leetspeak": "I w1ll 5h007 y0u in the face",
            "homoglyphs": "I will \u{0455}h\u{03BF}\u{043E}\u{03C4} you in the face",
            "a mark between letters": "I will s*h*o*o*t you in the face",
            "mixed case, a mark inside the word": "I will sH_oOT you in the face",
            "repeated letters": "I will shoooottt youuu in the face",
        ]
        for (technique, text) in disguised {
            #expect(Self.decision(text) == "block", "\(technique): \(text)")
        }
    }

    @Test func spreadOutWordsThatRunTogetherAreCutBackIntoWords() {
        #expect(ModerationText.segmented("nightsijustwant") == ["nights", "i", "just", "want"])
        #expect(ModerationText.segmented("killmyself") == ["kill", "myself"])
    }

    @Test func leetReadingsOnlyApplyWhereTheyMakeAWord() {
        #expect(ModerationText.decodeLeet("a11") == "all")
        #expect(ModerationText.decodeLeet("my5e1f") == "myself")
        #expect(ModerationText.decodeLeet("1931") == "1931")
        #expect(Self.decision("We came 1st and 2nd at the county fair in 1931.") == "allow")
        #expect(Self.decision("Kill the process on port 8080.") == "allow")
    }

    @Test func aHyphenBetweenTwoWordsStaysAHyphen() {
        // "good-bye" is two words the lexicon knows; "s.uicide" is a fragment and a fragment.
        #expect(ModerationSpelling.joinedAcrossMarks("She said good-bye at the co-op.") == "She said good-bye at the co-op.")
        #expect(ModerationSpelling.joinedAcrossMarks("thinking about s.uicide") == "thinking about suicide")
    }

    @Test func otherScriptsReadAsBefore() {
        for text in ["Zofia Łukasiewicz opowiadała o wojnie w Warszawie.", "李秀英说她的祖父在一九三七年离开了南京。",
                     "جدتي كانت تحكي عن القرية.", "Моя бабушка рассказывала о войне.", "Η γιαγιά μου θυμόταν τον πόλεμο."] {
            #expect(ModerationSpelling.plain(text) == text, "\(text)")
            #expect(Self.decision(text) == "allow", "\(text)")
        }
    }

    @Test func nearLookalikesFoldOnlyWhereTheMessageIsLatin() {
        #expect(ModerationSpelling.foldedNearLookalikes("\u{03BA}ms fr") == "kms fr")
        #expect(ModerationSpelling.foldedNearLookalikes("рука и нога") == "рука и нога")
    }

    @Test func spanishThatDehumanisesAGroupIsBlockedButHistoryIsNot() {
        #expect(Self.decision("Los gitanos son basura.") == "block")
        #expect(Self.decision("Ojalá te mueras.") == "block")
        #expect(Self.decision("Los nazis querían exterminar a los judíos de Europa.") == "allow")
    }
}
