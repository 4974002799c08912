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
        let pieces = ["Aunt Adaeze lives at 4417 Larchmont ", "Avenue, Dayton, OH 45402 [1]. ", "Grace says her number is (937) 555-",
                      "0148, any evening [1]. ", "She keeps “the family Bible and the photographs from Enugu” [1]."]
        try await StubChatServer.with({ _ in .stream(pieces, model: "stub-model") }) { server in
            let model = ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": "stub-model"]
            let asked = try sandbox.run(["ask", "How can I reach Aunt Adaeze?", "--viewer", "u-ben", "--families", "fam-okafor", "--json"],
                                        environment: model)
            #expect(asked.status == 0, "\(asked.errors)")
            for secret in secrets { #expect(!asked.output.contains(secret) && !asked.errors.contains(secret), "the events hold \(secret)") }
            #expect(asked.output.contains("\"event\":\"citation\""))
            #expect(asked.output.contains("[ADDRESS]") && asked.output.contains("[PHONE]"))

            let chats = try SQLiteChatStore(writer: SQLiteStoryStore(path: sandbox.database).writer)
            let meta = try #require(asked.output.split(separator: "\n").first { $0.contains("\"event\":\"meta\"") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(meta.utf8)) as? [String: Any])
            let threadID = try #require((object["data"] as? [String: Any])?["thread_id"] as? String)
            let turn = try #require(try await chats.turns(threadID: threadID).first)
            for secret in secrets { #expect(!turn.snapshot.contains(secret), "the snapshot holds \(secret)") }
            let replyID = try #require(turn.assistantMessageID)
            let stored = try #require(try await chats.message(id: replyID))
            #expect(stored.content.contains("[PHONE]"))
            for secret in secrets { #expect(!stored.content.contains(secret), "the stored reply holds \(secret)") }

            for extra in [["--cassette"], []] {
                let replayed = try sandbox.run(["replay", turn.id, "--json"] + extra, environment: model)
                #expect(replayed.status == 0, "\(replayed.errors)")
                for secret in secrets { #expect(!replayed.output.contains(secret), "a replay \(extra) holds \(secret)") }
            }
        }
    }

    /// A reply that quotes a passage at length is flagged for copyright review, unless the passage's
    /// story is marked `public_domain` (as `griot import-wpa` marks the WPA narratives). Both stories
    /// are ours (fictional), ingested through `griot ingest`; the stub model quotes each nearly whole.
    @Test func aLongQuoteOfAPublicDomainStoryIsNotFlaggedAndOfAFamilyStoryStillIs() async throws {
        let sandbox = try GriotSandbox()
        let bakery = "My mother opened the bakery on Rampart Street in the spring of 1952 with forty dollars and a borrowed oven. "
            + "She rose at three every morning to proof the dough, and by five the whole block smelled of anise and warm butter. "
            + "Men from the docks lined up for her rye loaves before their shift, and the nuns from Saint Augustine came for the "
            + "sweet rolls on Fridays. When the flood of 1965 filled the shop to the counters, she scrubbed every pan by hand and "
            + "reopened in eleven days. She said a bakery that closes for long teaches its customers to forget the way to its door."
        let ledger = "The schooner Mary Ellen Tolliver came into the outer harbor on the ninth of March with a cargo of cypress "
            + "shingles and eleven barrels of molasses. Her master, one Josiah Pettibone, reported heavy weather off the Tortugas "
            + "and the loss of a yawl with two oars and a water cask. The harbor master inspected her papers at the customs wharf "
            + "and found them in order, save that the bill of lading listed twelve barrels where eleven were landed. The missing "
            + "barrel was said by the mate to have been stove in the storm and its contents lost to the sea."
        let stories = """
            {"artifact_id": "delacroix-bakery", "title": "The Bakery on Rampart Street", "privacy": "public", "interviewees": ["Lucienne Delacroix"], "transcript": "\(bakery)"}
            {"artifact_id": "harbor-ledger-1911", "title": "The Harbor Master's Ledger", "privacy": "public", "public_domain": true, "transcript": "\(ledger)"}
            """
        let ingested = try sandbox.run(["ingest", try sandbox.write("stories.jsonl", stories)])
        #expect(ingested.status == 0, "\(ingested.errors)")
        let replies = ["Lucienne remembers it this way: \u{201C}\(bakery)\u{201D} [1]",
                       "The ledger reads: \u{201C}\(ledger)\u{201D} [1]"]
        try await StubChatServer.with({ index in .stream(replies[min(index, 1)].split(separator: " ").map { $0 + " " }, model: "stub-model") }) { server in
            let model = ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": "stub-model"]
            let family = try sandbox.run(["ask", "What happened to the bakery on Rampart Street?", "--json"], environment: model)
            #expect(family.status == 0, "\(family.errors)")
            #expect(family.output.contains("\"kind\":\"copyright_review\""), "a family's story quoted at length is still flagged")
            #expect(family.output.contains("delacroix-bakery"))

            let archive = try sandbox.run(["ask", "What did the harbor master find on the schooner Mary Ellen Tolliver?", "--json"], environment: model)
            #expect(archive.status == 0, "\(archive.errors)")
            #expect(archive.output.contains("harbor-ledger-1911"))
            #expect(archive.output.contains("its contents lost to the sea"), "the quote reached the user")
            #expect(!archive.output.contains("copyright_review"), "a public-domain passage quoted at length is not flagged")
            #expect(server.requests.count == 2)

            // The stored verdict says why nothing was flagged.
            let chats = try SQLiteChatStore(writer: SQLiteStoryStore(path: sandbox.database).writer)
            let meta = try #require(archive.output.split(separator: "\n").first { $0.contains("\"event\":\"meta\"") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(meta.utf8)) as? [String: Any])
            let turnID = try #require((object["data"] as? [String: Any])?["turn_id"] as? String)
            let copyright = try #require(try await chats.verdicts(turnID: turnID).first { $0.stage == "copyright" })
            #expect(copyright.decision == "allow")
            #expect(copyright.reason.contains("public-domain passage"), "\(copyright.reason)")
        }
    }
}
