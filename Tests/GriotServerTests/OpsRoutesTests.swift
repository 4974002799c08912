import Foundation
import GriotAuth
import GriotChat
import GriotServer
import GriotStore
import GriotTestSupport
import HummingbirdTesting
import Testing

/// Operators list recent turns and replay them over HTTP.
@Suite struct OpsRoutesTests {
    @Test func operatorsListTurnsWithFiltersAndReplayThem() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya")
        let ops = try await service.headers("u-ops", role: .operator)
        try await service.test(.router) { client in
            let session = try await client.execute(uri: "/api/griot/chat", method: .post, headers: maya,
                                                   body: body(["message": "What happened in Kelly Ingram Park?"])) { response in
                try #require(json(response.body)["session_id"] as? String)
            }
            let turnID = try #require(try await service.engine.chats.turns(threadID: session).first?.id)

            try await client.execute(uri: "/api/ops/turns?assistant=griot&status=complete", method: .get, headers: ops) { response in
                #expect(response.status == .ok)
                let turns = json(response.body)["turns"] as? [[String: Any]] ?? []
                #expect(turns.map { $0["turn_id"] as? String } == [turnID])
                #expect(turns.first?["question"] as? String == "What happened in Kelly Ingram Park?")
                #expect((turns.first?["index_version"] as? String)?.hasPrefix("v") == true)
            }
            // Filters that the turn does not meet leave it out.
            for query in ["assistant=coach", "flag=crisis", "low_groundedness=true", "until=2000-01-01T00:00:00Z"] {
                try await client.execute(uri: "/api/ops/turns?\(query)", method: .get, headers: ops) { response in
                    #expect((json(response.body)["turns"] as? [Any])?.isEmpty == true, "\(query)")
                }
            }

            try await client.execute(uri: "/api/ops/replay", method: .post, headers: ops,
                                     body: body(["id": turnID, "cassette": true])) { response in
                #expect(response.status == .ok)
                let result = try #require((json(response.body)["results"] as? [[String: Any]])?.first)
                #expect(result["provider_source"] as? String == "played")
                let diff = try #require(result["diff"] as? [String: Any])
                #expect(diff["text_changed"] as? Bool == false)
                #expect((diff["settings"] as? [Any])?.isEmpty == true)
            }
            try await client.execute(uri: "/api/ops/replay", method: .post, headers: ops,
                                     body: body(["id": turnID, "index": "current", "provider": "extractive"])) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/ops/replay", method: .post, headers: maya, body: body(["id": turnID])) { response in
                #expect(response.status == .forbidden)
            }
            // Nothing was added to Maya's conversation, and each replay is in the audit log with who ran it.
            #expect(try await service.engine.chats.turns(threadID: session).count == 1)
            let replays = try await service.engine.chats.auditEntries(AuditFilter(actions: ["turn.replay"]))
            #expect(replays.count == 2)
            #expect(replays.allSatisfy { $0.actorID == "u-ops" && $0.userID == "u-maya" && $0.threadID == session })
        }
    }

    /// Issue 35, item 5: a thread whose replies carry an unsupported citation, a quote made up
    /// and a marker out of range, replayed from the cassette over HTTP, gives each stored reply
    /// byte for byte (with nothing to explain); a replay with another model says why the
    /// cassette was not played.
    @Test func aCassetteReplayOverHTTPGivesTheStoredRepliesByteForByte() async throws {
        try await StubChatServer.with({ n in
            n == 0
                ? .stream(["Ida Mae Carter carried the family north in 1927 [1]. She ran a bakery in Paris and ",
                           "flew airplanes for the navy in 1990 [1]. Take this with care."])
                : .stream(["Amos said \u{201C}we flew to the moon on a Tuesday\u{201D} [1]. ", "The family went north [9]. ",
                           "She cooked for everyone [2]."])
        }) { server in
            let service = try await TestService(provider: try RemoteProviderForTests.make(server.baseURL))
            let ruth = try await service.headers("u-ruth-carter", families: ["fam-carter"])
            let ops = try await service.headers("u-ops", role: .operator)
            try await service.test(.router) { client in
                let session = try await client.execute(uri: "/api/griot/chat", method: .post, headers: ruth,
                                                       body: body(["message": "Who was Ida Mae Carter?"])) { response in
                    try #require(json(response.body)["session_id"] as? String)
                }
                try await client.execute(uri: "/api/griot/chat", method: .post, headers: ruth,
                                         body: body(["message": "What happened in the 1927 flood?", "session_id": session])) { response in
                    #expect(response.status == .ok)
                }
                let stored = try await service.engine.chats.recentMessages(threadID: session, limit: 10).filter { $0.role == .assistant }.map(\.content)
                #expect(stored.count == 2)
                let flags = try await service.engine.chats.turns(threadID: session).map { try TurnSnapshot.decode($0.snapshot).flags.map(\.kind) }
                #expect(flags.joined().contains(.citationUnsupported) && flags.joined().contains(.citationDropped), "\(flags)")
                try await client.execute(uri: "/api/ops/replay", method: .post, headers: ops,
                                         body: body(["id": session, "cassette": true])) { response in
                    #expect(response.status == .ok)
                    let results = try #require(json(response.body)["results"] as? [[String: Any]])
                    #expect(results.count == 2)
                    for (result, message) in zip(results, stored) {
                        #expect(result["provider_source"] as? String == "played")
                        #expect(result["cassette_note"] == nil)
                        let original = try #require((result["original"] as? [String: Any])?["text"] as? String)
                        let replayed = try #require((result["replayed"] as? [String: Any])?["text"] as? String)
                        #expect(Array(original.utf8) == Array(message.utf8), "the snapshot holds the reply as stored")
                        #expect(Array(replayed.utf8) == Array(message.utf8))
                        #expect((result["diff"] as? [String: Any])?["text_changed"] as? Bool == false)
                        #expect((result["diff"] as? [String: Any])?["flags_added"] as? [String] == [])
                    }
                }
                // The offline responder is another provider: the cassette is not played, and the reply says so.
                try await client.execute(uri: "/api/ops/replay", method: .post, headers: ops,
                                         body: body(["id": session, "cassette": true, "provider": "extractive"])) { response in
                    #expect(response.status == .ok)
                    let results = try #require(json(response.body)["results"] as? [[String: Any]])
                    let note = results.first?["cassette_note"] as? String ?? ""
                    #expect(results.first?["provider_source"] as? String == "live")
                    #expect(note.contains("recorded from") && note.contains("griot-extractive"), "\(note)")
                }
            }
            #expect(server.requests.count == 2, "a cassette replay calls no model")
        }
    }
}
