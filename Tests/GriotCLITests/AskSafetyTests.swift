import Foundation
import GriotStore
import GriotTestSupport
import Testing

/// The safety stages end to end through `griot ask` and a stub model on loopback: what the
/// user sees on the terminal, and what the model was (or was not) sent.
@Suite struct AskSafetyTests {
    func run(_ sandbox: GriotSandbox, _ server: StubChatServer, _ arguments: [String]) throws -> GriotRun {
        try sandbox.run(["ask"] + arguments, useDefaultDatabase: true,
                        environment: ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": "stub-model"])
    }

    @Test func aPhoneNumberTheUserDidNotShareIsMaskedAndOneTheyDidStays() async throws {
        let sandbox = try GriotSandbox()
        // The model repeats the user's own number (written another way) and adds one they never gave.
        let pieces = ["You can reach Aunt Ida's neighbor at 601-", "555-0147 most ", "evenings. Your own number, ",
                      "(415) 555-0132, is ", "on the family sheet too."]
        try await StubChatServer.with({ _ in .stream(pieces, model: "stub-model", pause: 0.01) }) { server in
            let result = try run(sandbox, server, ["My number is 415-555-0132. Who was Ida Mae Carter's neighbor?"])
            #expect(result.status == 0, "\(result.errors)")
            #expect(!result.output.contains("601-555-0147"))
            #expect(!result.output.contains("0147"), "no part of the value leaks in a partial delta")
            #expect(result.output.contains("at [PHONE] most evenings."))
            #expect(result.output.contains("(415) 555-0132"), "the number the user shared stays as written")
            #expect(result.errors.contains("[pii_masked]"))
            #expect(server.requests.count == 1)
        }
    }

    @Test func aSelfHarmMessageGetsTheCrisisTemplateAndFlagWithoutAModel() async throws {
        let sandbox = try GriotSandbox()
        try await StubChatServer.with({ _ in .stream(["This should never be sent."], model: "stub-model") }) { server in
            let result = try run(sandbox, server, ["I can't go on anymore, I want to kill myself.", "--json"])
            #expect(result.status == 0, "\(result.errors)")
            let template = try String(contentsOf: GriotSandbox.packageRoot.appendingPathComponent("prompts/crisis/1.md"), encoding: .utf8)
            #expect(template.contains("988"))
            #expect(result.output.contains("\"event\":\"flag\""))
            #expect(result.output.contains("\"kind\":\"crisis\""))
            #expect(result.output.contains("\"escalate\":true"))
            #expect(result.output.contains("call or text 988"))
            #expect(result.output.contains("template:crisis@1"))
            #expect(!result.output.contains("This should never be sent."))
            #expect(server.requests.isEmpty, "the model is not asked to improvise")
        }
    }

    @Test func aToxicMessageIsBlockedBeforeTheProviderIsCalled() async throws {
        let sandbox = try GriotSandbox()
        try await StubChatServer.with({ _ in .stream(["This should never be sent."], model: "stub-model") }) { server in
            let typed = try run(sandbox, server, ["Shut up, you idiot. You are worthless trash and everyone hates you."])
            #expect(typed.status == 3)
            #expect(typed.errors.contains("error (message_blocked): Message violates policy"))
            #expect(typed.errors.contains("warning 1"))
            // A voice transcript passes the same filter, and the warnings add up.
            let spoken = try run(sandbox, server, ["shut up you idiot you are worthless trash and everyone hates you", "--voice"])
            #expect(spoken.status == 3)
            #expect(spoken.errors.contains("warning 2"))
            #expect(server.requests.isEmpty, "the stub records no request")
        }
    }
    /// A family-only story holds a relative's phone number and address; a family member asks
    /// about her and the model repeats both, citing the story. No unmasked value reaches the
    /// terminal (any event), the stored reply and turn snapshot, or a replay of the turn.
    @Test func aPrivateStorysPhoneAndAddressLeakNowhereAfterTheGateMasksThem() async throws {
        let sandbox = try GriotSandbox()
        let story = #"{"artifact_id": "okafor-aunt-adaeze", "title": "Where Aunt Adaeze Lives Now", "privacy": "family_only", "owner_user_id": "u-grace", "family_group_ids": ["fam-okafor"], "interviewees": ["Grace Okafor"], "people": ["Adaeze Okafor"], "transcript": "My sister Adaeze Okafor lives at 4417 Larchmont Avenue, Dayton, OH 45402 since the spring. You can call her at (937) 555-0148 any evening after supper. She keeps the family Bible and the photographs from Enugu in a cedar chest."}"#
        #expect(try sandbox.run(["ingest", try sandbox.write("okafor.json", story)]).status == 0)
        let secrets = ["555-0148", "5550148", "4417 Larchmont", "Larchmont Avenue", "45402"]
        let pieces = ["Aunt Adaeze lives at 4417 Larchmont ", "Avenue, Dayton, OH 45402 [1]. ", "You can call her at (937) 555-",
                      "0148 any evening [1]. ", "She keeps “the family Bible and the photographs from Enugu” [1]."]
        try await StubChatServer.with({ _ in .stream(pieces, model: "stub-model") }) { server in
            let model = ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": "stub-model"]
            let asked = try sandbox.run(["ask", "How can I reach Aunt Adaeze?", "--viewer", "u-ben", "--families", "fam-okafor", "--json"],
                                        environment: model)
            #expect(asked.status == 0, "\(asked.errors)")
            for secret in secrets { #expect(!asked.output.contains(secret) && !asked.errors.contains(secret), "the events hold \(secret)") }
            #expect(asked.output.contains("\"event\":\"citation\""))
            #expect(asked.output.contains("[ADDRESS]") && asked.output.contains("[PHONE]"))

            let chats = try ChatStore(writer: StoryStore(path: sandbox.database).writer)
            let meta = try #require(asked.output.split(separator: "\n").first { $0.contains("\"event\":\"meta\"") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(meta.utf8)) as? [String: Any])
            let threadID = try #require((object["data"] as? [String: Any])?["thread_id"] as? String)
            let turn = try #require(try chats.turns(threadID: threadID).first)
            for secret in secrets { #expect(!turn.snapshot.contains(secret), "the snapshot holds \(secret)") }
            let replyID = try #require(turn.assistantMessageID)
            let stored = try #require(try chats.message(id: replyID))
            #expect(stored.content.contains("[PHONE]"))
            for secret in secrets { #expect(!stored.content.contains(secret), "the stored reply holds \(secret)") }

            for extra in [["--cassette"], []] {
                let replayed = try sandbox.run(["replay", turn.id, "--json"] + extra, environment: model)
                #expect(replayed.status == 0, "\(replayed.errors)")
                for secret in secrets { #expect(!replayed.output.contains(secret), "a replay \(extra) holds \(secret)") }
            }
        }
    }
}
