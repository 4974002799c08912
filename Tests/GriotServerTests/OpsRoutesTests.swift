import Foundation
import GriotAuth
import GriotChat
import GriotServer
import GriotStore
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
}
