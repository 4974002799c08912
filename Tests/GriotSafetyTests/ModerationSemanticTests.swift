import Foundation
import GriotSafety
import Testing

/// Issue 14: the semantic layer (MiniLM word-piece vectors against the prototype bank) keeps
/// every own case right, and its context gate keeps history and idioms allowed.
struct ModerationSemanticTests {
    static let moderator = LocalModerator(semantics: try! ModerationSemantics(folder: ModerationSemantics.defaultModelFolder))

    @Test func everyOwnCaseStillPassesWithTheSemanticLayer() throws {
        var failures: [String] = []
        for item in try ModerationTests.loadCases() {
            let result = Self.moderator.classify(item.text)
            if ModerationTests.decision(result) != item.expect { failures.append("\(item): \(result.reasons)") }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func aPrototypeIsClosestToItsOwnKind() throws {
        let semantics = try #require(Self.moderator.semantics)
        #expect(semantics.matches("I want to kill myself")[.selfHarm]?.similarity ?? 0 > 0.99)
        let threat = semantics.matches("I am going to kill you")
        #expect((threat[.threat]?.similarity ?? 0) > (threat[.insult]?.similarity ?? 1))
    }

    @Test func historyToldByOthersStaysAllowedHoweverCloseItsWords() {
        let result = Self.moderator.classify("My grandmother told us the overseer said he would kill her brother, in 1936.")
        #expect(!result.blocks && !result.needsCrisisResponse)
    }

    @Test func theLearnedHeadsLoadForThisModel() throws {
        let semantics = try #require(Self.moderator.semantics)
        #expect(semantics.learnedLayerInputs?.count == 16)
    }

    /// In-sample on purpose: the Swift features must be the training script's, or the heads
    /// read noise. Read at the lines the script generated (margins 0; the service adds the
    /// calibrated margins on top), the layer routes well over 40 % of the first training file's
    /// harmful lines that the rules alone let through; this asks for 40 %, as a guard: a mismatch
    /// in tokenising, pooling or hashing would read other features.
    @Test func theLearnedHeadsReadTheirTrainingLinesAsTheScriptDid() throws {
        struct Line: Decodable { var text: String; var label: String }
        let url = ModerationTests.casesURL.deletingLastPathComponent().appendingPathComponent("semantic-training.jsonl")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        let rules = LocalModerator()
        let missed = lines.filter { $0.label != "benign" && ModerationTests.decision(rules.classify($0.text)) == "allow" }
        var atGeneratedLines = ModerationSemanticGate.Thresholds.calibrated
        atGeneratedLines.learnedSelfHarmMargin = 0
        atGeneratedLines.learnedHarmMargin = 0
        let heads = LocalModerator(semantics: try #require(Self.moderator.semantics), thresholds: atGeneratedLines)
        let caught = missed.filter { ModerationTests.decision(heads.classify($0.text)) != "allow" }
        #expect(missed.count > 20)
        #expect(caught.count * 5 >= missed.count * 2, "the layer routes \(caught.count) of the \(missed.count) harmful training lines the rules let through")
    }

    @Test func withoutTheModelTheRulesAnswerAlone() {
        #expect(LocalModerator().semantics == nil)
        #expect(LocalModerator().classify("I want to end it all.").needsCrisisResponse)
    }
}

/// Issue 14's acceptance points that the stage meets, on the held-out files (figures only in
/// the messages, never a line, so the files stay held out for whoever tunes next).
struct ModerationHeldOutTests {
    static func load(_ name: String) throws -> [ModerationTests.Case] {
        let url = ModerationTests.casesURL.deletingLastPathComponent().appendingPathComponent(name)
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }
            .map { try JSONDecoder().decode(ModerationTests.Case.self, from: Data($0.utf8)) }
    }

    @Test func everyHardHistoryLineOfTheHeldOutFileIsAllowed() throws {
        let history = try Self.load("holdout.jsonl").filter { $0.category == "hard_history" }
        let allowed = history.filter { ModerationTests.decision(ModerationSemanticTests.moderator.classify($0.text)) == "allow" }.count
        #expect(history.count >= 30)
        #expect(allowed == history.count, "\(allowed) of \(history.count) hard-history lines allowed")
    }

    @Test func atLeastNinetyPercentOfTheCraftedSpellingsAreCaught() throws {
        let harmful = try Self.load("crafted.jsonl").filter { $0.expect != "allow" }
        let caught = harmful.filter { ModerationTests.decision(ModerationSemanticTests.moderator.classify($0.text)) != "allow" }.count
        #expect(harmful.count >= 40)
        #expect(Double(caught) >= 0.9 * Double(harmful.count), "\(caught) of \(harmful.count) crafted harmful lines caught")
    }
}
