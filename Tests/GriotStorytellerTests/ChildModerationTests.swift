import Foundation
@testable import GriotStoryteller
import Testing

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// One labelled sentence of `evals/storyteller-moderation-*.jsonl`.
struct LabelledSentence: Decodable {
    var text: String
    var label: String
    var age: Int?
    var category: String?

    var unsafe: Bool { label == "unsafe" }

    static func load(_ name: String) throws -> [LabelledSentence] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("evals/\(name)"), encoding: .utf8)
        return try text.split(separator: "\n").filter { !$0.isEmpty }.map { try JSONDecoder().decode(LabelledSentence.self, from: Data($0.utf8)) }
    }
}

/// Precision and recall of "held back" (the unsafe label is the positive class).
struct ModerationFigures: CustomStringConvertible {
    var truePositives = 0, falsePositives = 0, falseNegatives = 0, trueNegatives = 0
    var misses: [String] = []

    init(_ lines: [LabelledSentence], moderation: ChildModeration = ChildModeration()) {
        for line in lines {
            let blocked = moderation.verdict(for: line.text, age: line.age).blocks
            switch (line.unsafe, blocked) {
            case (true, true): truePositives += 1
            case (false, true): falsePositives += 1; misses.append("held back, safe: \(line.text)")
            case (true, false): falseNegatives += 1; misses.append("let through, unsafe: \(line.text)")
            case (false, false): trueNegatives += 1
            }
        }
    }

    var precision: Double { Double(truePositives) / Double(max(1, truePositives + falsePositives)) }
    var recall: Double { Double(truePositives) / Double(max(1, truePositives + falseNegatives)) }
    var description: String {
        String(format: "precision %.3f (%d/%d), recall %.3f (%d/%d)", precision, truePositives, truePositives + falsePositives,
               recall, truePositives, truePositives + falseNegatives)
    }
}

@Suite struct ChildModerationTests {
    /// The held-out file was written and committed before any rule; only the tuning file was
    /// read while the rules were tuned. The floors sit just under the figures measured at the end.
    @Test func heldOutSentencesAreJudgedAboveTheMeasuredFloors() throws {
        let lines = try LabelledSentence.load("storyteller-moderation-heldout.jsonl")
        #expect(lines.count >= 60)
        let figures = ModerationFigures(lines)
        // Figures only: the held-out sentences a rule misses are not printed, so they are not tuned on.
        print("storyteller moderation, held-out: \(figures)")
        #expect(figures.precision >= ChildModerationTests.heldOutPrecisionFloor, "\(figures)")
        #expect(figures.recall >= ChildModerationTests.heldOutRecallFloor, "\(figures)")
    }

    /// Measured on the held-out file: before tuning, precision 0.941 (32/34) and recall 0.970
    /// (32/33); after tuning on the tuning file alone, precision 0.939 (31/33) and recall 0.939 (31/33).
    static let heldOutPrecisionFloor = 0.93
    static let heldOutRecallFloor = 0.93

    /// Every tuning sentence is judged as labelled (the rules were tuned until they were).
    @Test func tuningSentencesAreJudgedAsLabelled() throws {
        let figures = ModerationFigures(try LabelledSentence.load("storyteller-moderation-tune.jsonl"))
        print("storyteller moderation, tune: \(figures)")
        #expect(figures.misses.isEmpty, "\(figures.misses)")
    }

    @Test func ageBandsAllowMoreToOlderChildren() {
        let rules = ChildModeration()
        let petDied = "Our old dog had died in the night, and Noor cried a little."
        #expect(rules.verdict(for: petDied, age: 4).blocks)
        #expect(!rules.verdict(for: petDied, age: 10).blocks)
        #expect(ChildModeration.AgeBand(age: nil) == .little, "an age not given is read as the youngest")
        let parent = rules.verdict(for: "Her mother died, and the house was quiet.", age: 11)
        #expect(parent.blocks && parent.reason?.contains("the death or loss of a parent") == true)
        #expect(parent.reason?.contains("Ask for the story again") == true)
    }

    @Test func disguisedWordsAreReadAsWritten() {
        #expect(ChildModeration().verdict(for: "The man st@bbed the farmer.", age: 9).blocks)
        #expect(!ChildModeration().verdict(for: "The dragon roared, and the knight was brave.", age: 3).blocks)
    }

    @Test func theModeratorFormBlocksAsTheOutputStageReadsIt() async {
        let result = await ChildModerator(age: 6).moderate("The wolf ate the three little pigs one after another.")
        #expect(result.blocks)
        #expect(!(await ChildModerator(age: 6).moderate("The wolf huffed and puffed.")).blocks)
    }
}
