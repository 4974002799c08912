import Foundation
import Testing

extension ClusterAcceptanceTests {
    /// Issue 34: a prompt version promoted against the shared database is production on every
    /// node: `griot prompts promote` (there is no HTTP route for it) moves the label in
    /// PostgreSQL, and within about a second (each node reads the labels at most once a second)
    /// a turn on nodes B and C, and through nginx, runs with it: the stream's `meta` event names
    /// the version and its text's hash.
    @Suite struct PromptPromotionTests {
        /// The `meta` event of a turn asked through `base`, after reading its stream to the end.
        static func meta(through base: String, token: String) async throws -> (version: Int, hash: String) {
            let reply = try await ClusterRequests.post("\(base)/api/griot/chat/stream", token: token,
                                                       json: ["message": "Who rang the bell at the ferry landing?"])
            guard reply.status == 200, let meta = reply.events.first(where: { $0.name == "meta" })?.json,
                  let version = meta["prompt_version"] as? Int, let hash = meta["prompt_hash"] as? String else {
                throw ClusterError("a turn through \(base) answered \(reply.status) without a meta event: \(reply.text.prefix(400))")
            }
            #expect(reply.events.last?.name == "done", "the turn through \(base) ran to its end")
            return (version, hash)
        }

        @Test func aVersionPromotedAgainstTheSharedDatabaseIsProductionOnNodesBAndC() async throws {
            let cluster = try await ClusterFixture.shared.running()
            let admin = try await cluster.token(user: "u-promote-admin", role: .admin)
            let story: [String: Any] = ["artifact_id": "promote-bell", "title": "The Ferry Bell", "privacy": "public",
                                        "people": ["Octavia Reyes"],
                                        "transcript": "Octavia Reyes rang the brass bell at the ferry landing every morning at six, so the farmers across the river knew the boat was coming."]
            try await ClusterRequests.ingest([story], through: cluster.node(1), token: admin)
            let reader = try await cluster.token(user: "u-promote-reader")
            try await ClusterRequests.waitUntilEveryNodeFinds("promote-bell", query: "ferry bell", in: cluster, token: reader)

            // One caller per place asked, so the polling below stays clear of the message limit.
            let places = [cluster.node(2), cluster.node(3), cluster.balancer]
            var tokens: [String: String] = [:]
            for (index, base) in places.enumerated() { tokens[base] = try await cluster.token(user: "u-promote-\(index)") }
            var before: [String: (version: Int, hash: String)] = [:]
            for base in places { before[base] = try await Self.meta(through: base, token: tokens[base]!) }
            #expect(places.allSatisfy { before[$0]?.version == 1 }, "production is v1 before the promotion: \(before)")

            let evals = cluster.layout.directory.appendingPathComponent("promote-evals.yaml")
            try """
                name: cluster-promotion
                database: wpa
                gates: {hit_at_5: 1.0, must_contain_pass: 1.0, privacy_violations: 0}
                cases:
                  - id: bell
                    kind: fact
                    question: Who rang the bell at the ferry landing?
                    expect: {stories: [promote-bell], must_contain: [Octavia]}
                """.write(to: evals, atomically: true, encoding: .utf8)
            let promote = try await cluster.griot(["prompts", "promote", "griot", "2", "--prompts", cluster.prompts, "--eval", evals.path,
                                                   "--database", cluster.databaseURL, "--provider", "extractive", "--by", "cluster-acceptance"])
            let promoted = ContinuousClock.now
            try #require(promote.status == 0, "griot prompts promote exited \(promote.status):\n\(promote.output.suffix(3000))")
            #expect(promote.output.contains("promoted griot v2 to production (was v1)"), "\(promote.output.suffix(1000))")

            var seen: [String: (version: Int, hash: String, after: Duration)] = [:]
            try await withThrowingTaskGroup(of: (String, (Int, String, Duration)).self) { group in
                for base in places {
                    let token = tokens[base]!
                    group.addTask {
                        while true {
                            let meta = try await Self.meta(through: base, token: token)
                            let after = promoted.duration(to: .now)
                            if meta.version == 2 || after > .seconds(10) { return (base, (meta.version, meta.hash, after)) }
                            try await Task.sleep(for: .milliseconds(100))
                        }
                    }
                }
                for try await (base, result) in group { seen[base] = (result.0, result.1, result.2) }
            }
            let releases = try String(contentsOfFile: cluster.prompts + "/griot/releases.yaml", encoding: .utf8)
            print("cluster: griot v2 promoted through the shared database; production on " + places.map { base in
                "\(base) v\(seen[base]!.version) after \(Int((seen[base]!.after / .milliseconds(1)).rounded())) ms"
            }.joined(separator: ", "))
            for base in places {
                let now = try #require(seen[base])
                #expect(now.version == 2, "\(base) still answers with v\(now.version) 10 s after the promotion")
                #expect(now.after < .seconds(3), "\(base) switched \(now.after) after the promotion; labels are read at most once a second")
                #expect(now.hash != before[base]?.hash, "the turn's prompt hash changed with the version")
                #expect(releases.contains("2: \(now.hash)"), "\(base) answers with the text hash the promotion published: \(now.hash)")
            }
        }
    }
}
