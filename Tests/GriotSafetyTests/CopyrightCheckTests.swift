import GriotSafety
import Testing

/// A fictional passage of about 900 characters.
private let source = """
The summer my father came home from the mill for good, he built the smokehouse behind the garden with \
lumber he took off the old Hadley barn, board by board, straightening every nail on the anvil in the \
yard. My brothers and I carried water and mixed the mortar for the chimney, and when it was done he \
hung the first hams in November and would not let anyone open the door until Christmas Eve. Mother \
said he was prouder of that smokehouse than of any of us, and she only half meant it as a joke. The \
neighbors came by with their own meat to cure, and he never once took money for it; he said a \
smokehouse was like a church, it did more good full than empty. When the county road came through in \
the sixties they moved it twenty feet, and he stood there the whole day watching the men lift it onto \
the truck as if it were his own house going.
"""

private let others = [
    "Grandma Ada taught school in a one-room building where the stove smoked so badly the children wrote with their coats on.",
    "The church choir sang at the county fair every August, and the year the tent blew down they finished the hymn in the rain.",
]

struct CopyrightCheckTests {
    let check = CopyrightCheck()

    /// `length` characters of the source from its start, cut at a word boundary.
    func copy(_ length: Int) -> String {
        let prefix = String(source.prefix(length))
        return String(prefix[..<(prefix.lastIndex(of: " ") ?? prefix.endIndex)])
    }

    @Test func aNearVerbatimCopyOf450CharactersIsFlagged() throws {
        let copied = copy(460)
            .replacingOccurrences(of: "My brothers and I", with: "Her brothers and she")
            .replacingOccurrences(of: "lumber", with: "wood")
        #expect(copied.count >= 450)
        let output = "Here is what the story says. " + copied + " I hope this helps."
        let finding = try #require(check.check(output, passages: others + [source]))
        #expect(finding.passage == 2)
        #expect(finding.similarity > 0.9)
        // The run is the copy, give or take the few characters of a shingle at each end.
        let utf16 = output.utf16
        let run = String(output[utf16.index(utf16.startIndex, offsetBy: finding.outputRange.lowerBound)..<utf16.index(utf16.startIndex, offsetBy: finding.outputRange.upperBound)])
        #expect(run.contains("The summer my father"))
        #expect(!run.contains("what the story"))
        #expect(!run.contains("hope"))
    }

    @Test func aVerbatimCopyOf300CharactersIsNotFlagged() {
        let output = "Here is what the story says. " + copy(300)
            + " Later the family moved the building when the road was widened, and everyone remembered the day."
        #expect(output.count > 400)
        #expect(check.check(output, passages: others + [source]) == nil)
    }

    @Test func aLooseSummaryIsNotFlagged() {
        let summary = """
        After leaving the mill, her father put up a smokehouse using boards salvaged from the Hadley barn, \
        and the children helped with water and mortar. He kept the first hams shut away from November \
        until Christmas Eve. He cured the neighbors' meat for free, comparing the smokehouse to a church. \
        When the county road was built in the sixties, the building was moved twenty feet while he watched \
        all day, as though his own home were leaving.
        """
        #expect(summary.count > 400)
        #expect(check.check(summary, passages: others + [source]) == nil)
    }

    @Test func shortOutputsAreNeverFlagged() {
        #expect(check.check(copy(390), passages: [source]) == nil)
    }
}
