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

    @Test func withoutTheModelTheRulesAnswerAlone() {
        #expect(LocalModerator().semantics == nil)
        #expect(LocalModerator().classify("I want to end it all.").needsCrisisResponse)
    }
}
