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
