import Foundation
import Testing

/// Issue 26: `griot turns --json` gives the fields `GET /api/ops/turns` gives, for scripts.
@Suite struct TurnsCommandTests {
    @Test func turnsAsJSONCarryTheOpsRoutesFields() throws {
        let sandbox = try GriotSandbox()
        let story = #"{"artifact_id": "odom-test", "title": "Red Mountain", "privacy": "public", "people": ["Zofia Łukasiewicz"], "transcript": {"segments": [{"start": 0, "end": 9, "speaker": "Zofia Łukasiewicz", "text": "My father went down into the Red Mountain ore mines in 1931 and came up gray every night."}]}}"#
        #expect(try sandbox.run(["ingest", try sandbox.write("story.json", story)]).status == 0)
        let asked = try sandbox.run(["ask", "What did Zofia Łukasiewicz say about the ore mines?"])
        #expect(asked.status == 0, "\(asked.errors)")
        let run = try sandbox.run(["turns", "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let turns = try #require(object?["turns"] as? [[String: Any]])
        #expect(turns.count == 1)
        let turn = try #require(turns.first)
        for key in ["turn_id", "thread_id", "assistant", "prompt_version", "provider", "model", "status", "started_at", "flags", "question"] {
            #expect(turn[key] != nil, "no \(key) in \(turn)")
        }
        #expect(turn["question"] as? String == "What did Zofia Łukasiewicz say about the ore mines?", "the question as written")
        #expect(turn["status"] as? String == "complete")
        // Nothing matching is an empty list, still JSON.
        let none = try sandbox.run(["turns", "--json", "--assistant", "coach"])
        #expect(none.status == 0 && none.output.contains("\"turns\" : ["), "\(none.output)")
    }
}
