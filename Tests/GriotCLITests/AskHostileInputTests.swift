import Foundation
import GriotTestSupport
import Testing

/// Bracketed text that looks like a citation marker, asked through `griot ask` and written back
/// by a model: every turn ends with an answer and exit 0, never with a trap (a number too long
/// for an Int in "[1-99999999999999999999999]" used to overflow in the marker reader).
@Suite struct AskHostileInputTests {
    static let messages = ["[1-99999999999999999999999]", "[0]", "[-1]", "[1,,,]", "[ ]",
                           "[1][2][3][4][5][6][7][8][9][10][", "[½] [٣] [Ⅻ]", "[99999999999999999999]"]

    @Test(arguments: messages)
    func aMarkerLikeQuestionGetsAnOfflineAnswer(_ message: String) throws {
        let sandbox = try GriotSandbox()
        let result = try sandbox.run(["ask", message, "--json"], useDefaultDatabase: true, environment: ["GRIOT_PROVIDER": "extractive"])
        #expect(result.status == 0, "\(message): \(result.errors.suffix(600))")
        #expect(result.output.contains("\"event\":\"done\""), "\(message)")
    }

    /// The shared hostile corpus (`HostileStrings`), as far as a command line can carry it: no
    /// NUL or lone surrogate, and at most 100 kB (Linux refuses a longer argument). Each ends in a
    /// `done` event and exit 0, or a refusal that says why and exit 1, never a crash.
    @Test func theHostileCorpusThroughGriotAsk() throws {
        let sandbox = try GriotSandbox()
        for hostile in HostileStrings.all {
            guard let text = hostile.text, !text.contains("\u{0}"), text.utf8.count <= 100_000,
                  !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { continue }
            let result = try sandbox.run(["ask", text, "--json"], useDefaultDatabase: true, environment: ["GRIOT_PROVIDER": "extractive"])
            // 0 with an answer, 1 with the turn's error event (a message too long for the budget),
            // or 64 with the usage error's words (over 40,000 characters); a signal (a trap) is none.
            #expect([0, 1, 64].contains(result.status), "\(hostile): status \(result.status) \(result.errors.suffix(400))")
            switch result.status {
            case 0: #expect(result.output.contains("\"event\":\"done\""), "\(hostile)")
            case 1: #expect(result.output.contains("\"event\":\"error\""), "\(hostile): \(result.output.suffix(400))")
            default: #expect(result.errors.contains("Error:"), "\(hostile): \(result.errors.suffix(400))")
            }
        }
    }

    @Test func aModelThatWritesMarkerLikeTextGetsThroughTheCitationStages() async throws {
        let sandbox = try GriotSandbox()
        let reply = ["Octavia kept bees [1-99999999999999999999999]. ", "Her hives [½] stood ", "by the fence [٣] [99999999999999999999]. ",
                     "She sold honey [1][2][3][4][5][6][7][8][9][10][."]
        try await StubChatServer.with({ _ in .stream(reply, model: "stub-model") }) { server in
            let result = try sandbox.run(["ask", "Who kept bees?", "--json"], useDefaultDatabase: true,
                                         environment: ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": "stub-model"])
            #expect(result.status == 0, "\(result.errors.suffix(600))")
            #expect(result.output.contains("\"event\":\"done\""))
        }
    }
}
