import Foundation
import Testing
@testable import GriotText

@Suite struct LiteralSearchTests {
    /// On normalised text the byte search finds what Foundation's `contains` finds, in every
    /// script, and the replacement gives what `replacingOccurrences` gives.
    @Test func findsAndReplacesAsFoundationDoesOnNormalisedText() {
        let texts = ["3 of the family's stories", "zofia łukasiewicz sang", "李秀英说我想死", "", "aaa", "she said “no” — twice", "a’b’c", "[PHONE] and [EMAIL]"]
        let needles = ["3 of the", "łukasiewicz", "我想死", "", "aa", "“no”", "’", "[PHONE]", "stories!", "z", "秀"]
        for text in texts {
            for needle in needles {
                #expect(text.containsLiteral(needle) == (needle.isEmpty || text.contains(needle)), "\(text) / \(needle)")
                if !needle.isEmpty {
                    #expect(text.replacingLiteral(needle, with: "'") == text.replacingOccurrences(of: needle, with: "'"), "\(text) / \(needle)")
                }
            }
        }
        #expect("aaaa".replacingLiteral("aa", with: "b") == "bb")
        #expect("x".replacingLiteral("", with: "b") == "x")
        #expect("aab".dropFirst().containsLiteral("ab"))
        #expect(!"aab".dropLast().containsLiteral("ab"))
    }
}
