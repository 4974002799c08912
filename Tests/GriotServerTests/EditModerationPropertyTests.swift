import Foundation
import GriotServer
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 24's property: for every message of the held-out moderation file, the decision for
/// sending it equals the decision for editing a harmless message into it, both over HTTP on the
/// coaching routes. The lines are read only to be sent; a failure names a line number and the
/// two decisions, never the text.
@Suite struct EditModerationPropertyTests {
    /// The held-out file of the moderation benchmark (written before tuning; the moderator is not
    /// tuned here).
    static let holdout = packageRoot.appendingPathComponent("evals/moderation/holdout.jsonl")
    static let harmless = "I would like to talk about my week."

    enum Decision: String { case allow, block, crisis, invalid }

    /// What a send decided, from its status and its stream: the `message_blocked` error, the
    /// crisis flag, or neither.
    static func decision(sending response: LiveResponse) -> Decision {
        guard response.status == 200 else { return response.status == 400 ? .invalid : .block }
        let events = frames(response.text)
        if events.contains(where: { $0.event == "error" && $0.data["code"] as? String == "message_blocked" }) { return .block }
        if events.contains(where: { $0.event == "flag" && $0.data["kind"] as? String == "crisis" }) { return .crisis }
        return .allow
    }

    /// What an edit decided: 422 `message_blocked`, the crisis flag in the reply, or neither.
    static func decision(editing response: LiveResponse) -> Decision {
        if response.status == 400 { return .invalid }
        if response.status == 422, (object(response.text)["error"] as? [String: Any])?["code"] as? String == "message_blocked" { return .block }
        guard response.status == 200 else { return .invalid }
        let flags = object(response.text)["flags"] as? [[String: Any]] ?? []
        return flags.contains { $0["kind"] as? String == "crisis" } ? .crisis : .allow
    }

    @Test func sendingAndEditingIntoEachHeldOutMessageDecideAlike() async throws {
        let texts = try String(contentsOf: Self.holdout, encoding: .utf8).split(separator: "\n").map { line in
            try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["text"] as? String)
        }
        #expect(texts.count >= 200)
        // Hundreds of sends and edits by two users: past every limit a real client meets.
        let service = try await TestService(limits: [.perMinute(1_000_000)], routeLimits: .generous)
        let sender = try await service.headers("u-sender")
        let editor = try await service.headers("u-editor")
        let decided = try await service.test(.live) { client -> [Decision: Int] in
            var decided: [Decision: Int] = [:]
            let sendThread = try #require(object(try await live(client, .POST, "/api/coach/threads", headers: sender, body: body(["course_id": "course-7"])).text)["id"] as? String)
            let editThread = try #require(object(try await live(client, .POST, "/api/coach/threads", headers: editor, body: body(["course_id": "course-7"])).text)["id"] as? String)
            #expect(try await live(client, .POST, "/api/coach/threads/\(editThread)/messages", headers: editor, body: body(["content": Self.harmless])).status == 200)
            let harmless = try #require(try await service.engine.chats.recentMessages(threadID: editThread, limit: 2).first { $0.role == .user })
            var etag = harmless.etag

            for (index, text) in texts.enumerated() {
                let sent = try await live(client, .POST, "/api/coach/threads/\(sendThread)/messages", headers: sender, body: body(["content": text]))
                var conditional = editor
                conditional[.ifMatch] = etag
                let edited = try await live(client, .PATCH, "/api/coach/messages/\(harmless.id)", headers: conditional, body: body(["content": text]))
                let (bySend, byEdit) = (Self.decision(sending: sent), Self.decision(editing: edited))
                #expect(bySend == byEdit, "holdout line \(index + 1): sending decided \(bySend.rawValue), editing \(byEdit.rawValue)")
                if bySend == byEdit { decided[bySend, default: 0] += 1 }
                if edited.status == 200 {
                    // Back to the harmless text, so that every edit starts from it.
                    let newETag: String = try #require(edited.headers["etag"])
                    conditional[.ifMatch] = newETag
                    let restored = try await live(client, .PATCH, "/api/coach/messages/\(harmless.id)", headers: conditional,
                                                  body: body(["content": Self.harmless]))
                    #expect(restored.status == 200)
                    etag = try #require(restored.headers["etag"])
                } else {
                    #expect(edited.headers["etag"] == nil || edited.headers["etag"] == etag, "holdout line \(index + 1): a refused edit changed the ETag")
                }
            }
            return decided
        }
        #expect(decided.values.reduce(0, +) == texts.count, "every line decided alike: \(decided)")
        // The property means something only if the file makes the gate allow, block and route.
        #expect(decided[.allow, default: 0] > 0 && decided[.block, default: 0] > 0 && decided[.crisis, default: 0] > 0, "\(decided)")
        print("EditModerationPropertyTests: \(texts.count) held-out lines, decided alike: allow \(decided[.allow, default: 0]), block \(decided[.block, default: 0]), crisis \(decided[.crisis, default: 0]), invalid \(decided[.invalid, default: 0])")
    }
}
