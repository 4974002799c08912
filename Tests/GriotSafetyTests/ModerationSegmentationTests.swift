import Foundation
@testable import GriotSafety
import Testing

/// Issue 35, item 2, second round: how the moderator reads disguised words back. Spread-out
/// letters are cut by how common each word is, repeated and look-alike letters are read as the
/// likeliest known word, a capitalised word inside a disguise is not taken for a name, and every
/// word a rule looks for is one the readings know. Rules alone (no model file needed).
struct ModerationSegmentationTests {
    static func reading(_ text: String) -> String { LocalModerator.reading(text) }
    static func decision(_ text: String) -> String { ModerationTests.decision(LocalModerator().classify(text)) }

    @Test func spreadOutLettersAreCutIntoTheLikeliestWords() {
        #expect(ModerationText.segmented("thesea") == ["the", "sea"])
        #expect(ModerationText.segmented("arenumbered") == ["are", "numbered"])
        #expect(ModerationText.segmented("canjustfadeout") == ["can", "just", "fade", "out"])
        #expect(Self.reading("Y o u r d a y s a r e n u m b e r e d.") == "your days are numbered .")
        #expect(Self.reading("I'm g o i n g to w a l k into t h e s e a t o n i g h t") == "i am going to walk into the sea tonight")
        // Letters no word covers stay together: a name is not chopped into rare words.
        #expect(ModerationText.segmented("grandpaotis").last == "otis")
    }

    @Test func repeatedAndLookAlikeLettersReadAsTheLikeliestWord() {
        #expect(ModerationText.readBack("beeeeeen") == "been")
        #expect(ModerationText.readBack("offf") == "off")
        #expect(ModerationText.readBack("sooo") == "so")
        #expect(ModerationText.readBack("kkids") == "kids")
        #expect(ModerationText.readBack("feei") == "feel")
        // A common word is read as written, never "corrected" into a rarer one.
        #expect(ModerationText.readBack("still") == "still")
        #expect(ModerationText.readBack("will") == "will")
        #expect(Self.reading("Honestly my kkids wwwwooould be better ooff if I just waasnnnn't around.")
            == "honestly my kids would be better off if i just was not around .")
    }

    @Test func leetAndMarksAtTheStartOfAWord() {
        #expect(Self.reading("I want to $70p existing.") == "i want to stop existing .")
        #expect(Self.reading("drive my c4r !n7o the river") == "drive my car into the river")
        #expect(Self.decision("I want to $70p existing.") == "crisis")
        #expect(Self.decision("ready to \u{057D}n\u{03B1}\u{04CF}i\u{03BD}\u{0454}") == "crisis")
        #expect(Self.decision("reA'dY to u'naLiVe") == "crisis")
    }

    /// Mixed case is a disguise, not a name: "Kill TH-e tMu.x session" is the technical command
    /// it was before it was disguised, and a stop between letters ends no sentence.
    @Test func mixedCaseMakesNoNameAndAStopBetweenLettersEndsNoSentence() {
        for text in ["Kill TH-e tMu.x session.", "K.IlL Th.e tmux s'EsSIoN.", "I'd rather D_iE T.Han do AnO*thER burpee.", "I'll K'iLl it at the J*Ob InTeRV*iEw."] {
            #expect(Self.decision(text) == "allow", "\(text)")
        }
        #expect(ModerationText("Kill the sErVeR, then tell Sandra.").names == ["sandra"])
        #expect(!ModerationText("Nginx kills Th.e worker").names.contains("th"))
    }

    /// Every word a rule looks for is in the words the readings know, so "c o w o r k e r" is
    /// read back as the word the threat rule names. Fails when a rule file gains a word and
    /// scripts/make-segmentation-words.py was not run again.
    @Test func everyRuleWordIsKnownToTheReadings() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/GriotSafety")
        let pattern = try NSRegularExpression(pattern: #""([a-z]{2,})""#)
        var missing: [String] = []
        for name in ["ModerationPlainHarm", "ModerationCrisisSigns", "ModerationReading", "ModerationLexicon", "ModerationLexiconKnownWords"] {
            let source = try String(contentsOf: folder.appendingPathComponent("\(name).swift"), encoding: .utf8)
            for line in source.split(separator: "\n") {
                let code = String(line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                for match in pattern.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
                    let word = String(code[Range(match.range(at: 1), in: code)!])
                    if !ModerationSpelling.words.contains(word) { missing.append("\(name): \(word)") }
                }
            }
        }
        #expect(missing.isEmpty, "run python3 scripts/make-segmentation-words.py: \(missing.prefix(20))")
        #expect(Self.reading("I'll s t a b my c o w o r k e r if she takes my shift") == "i will stab my coworker if she takes my shift")
    }
}
