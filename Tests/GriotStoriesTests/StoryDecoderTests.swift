import Foundation
import GriotStories
import Testing

/// Every ingest error names the file, the line (JSONL), the field and what to do, and a bad
/// story is rejected whole while the rest of the file goes on.
@Suite struct StoryDecoderTests {
    let decoder = StoryDecoder()

    func story(_ fields: String) -> String {
        #"{"artifact_id": "s1", "title": "A story", "transcript": "We came north in 1929."\#(fields)}"#
    }

    @Test func missingPrivacyMeansPrivate() {
        let decoded = decoder.decode(Data(story("").utf8), fileName: "one.json")
        #expect(decoded.problems.isEmpty)
        #expect(decoded.stories.first?.privacy == .private)
    }

    @Test func unknownPrivacyIsRejectedWithTheAllowedValues() throws {
        let decoded = decoder.decode(Data(story(#", "privacy": "friends""#).utf8), fileName: "one.json")
        #expect(decoded.stories.isEmpty)
        let problem = try #require(decoded.problems.first)
        #expect(problem.field == "privacy")
        #expect(problem.artifactID == "s1")
        #expect(problem.description.contains("one.json"))
        #expect(problem.message.contains("use public, family_only or private"))
    }

    @Test func nonUTF8BytesAreRejectedWithTheirOffset() throws {
        var bytes = Array(story("").utf8)
        bytes.insert(0xFF, at: 60)
        let decoded = decoder.decode(Data(bytes), fileName: "latin1.json")
        #expect(decoded.stories.isEmpty)
        let problem = try #require(decoded.problems.first)
        #expect(problem.message.contains("not valid UTF-8"))
        #expect(problem.message.contains("offset 60"))
        #expect(problem.message.contains("save the file as UTF-8"))
    }

    @Test func emptyTranscriptsAreRejected() throws {
        for transcript in [#""   ""#, #"{"text": ""}"#, #"{"segments": [{"start": 0, "end": 1, "text": " "}]}"#] {
            let json = #"{"artifact_id": "s1", "title": "T", "privacy": "public", "transcript": \#(transcript)}"#
            let decoded = decoder.decode(Data(json.utf8), fileName: "empty.json")
            #expect(decoded.stories.isEmpty)
            let problem = try #require(decoded.problems.first)
            #expect(problem.message.contains("is empty"))
            #expect(problem.field?.hasPrefix("transcript") == true)
        }
    }

    @Test func jsonlProblemsNameTheirLineAndTheOtherLinesGoOn() throws {
        let lines = [
            #"{"artifact_id": "a", "title": "A", "transcript": "one"}"#,
            #"{"artifact_id": "b", "title": "B", "transcript": "two", "historical_context": [{"year": 1927, "location": {"name": "Greenville", "coordinates": [133, 2]}}]}"#,
            "",
            #"{"artifact_id": "c", "title": "C", "transcript": "three"#,
            #"{"artifact_id": "d", "transcript": "four"}"#,
            #"{"artifact_id": "e", "title": "E", "transcript": "five"}"#,
        ]
        let decoded = decoder.decode(Data(lines.joined(separator: "\n").utf8), fileName: "family.jsonl")
        #expect(decoded.stories.map(\.artifactID) == ["a", "e"])
        #expect(decoded.problems.map(\.line) == [2, 4, 5])
        #expect(decoded.problems[0].field == "historical_context[0].location.coordinates")
        #expect(decoded.problems[1].message.contains("not valid JSON"))
        #expect(decoded.problems[2].field == "title")
        #expect(decoded.problems[2].description.hasPrefix("family.jsonl:5: story \"d\" field \"title\": is missing"))
    }

    @Test func duplicateIdsInOneFileKeepTheLastWithAWarning() throws {
        let lines = [
            #"{"artifact_id": "a", "title": "First", "transcript": "one"}"#,
            #"{"artifact_id": "a", "title": "Second", "transcript": "two"}"#,
        ]
        let decoded = decoder.decode(Data(lines.joined(separator: "\n").utf8), fileName: "dupes.jsonl")
        #expect(decoded.stories.map(\.title) == ["Second"])
        let warning = try #require(decoded.warnings.first { $0.field == "artifact_id" })
        #expect(warning.message.contains("appears 2 times"))
        #expect(warning.message.contains("last one is kept"))
    }

    @Test func aJSONArrayHoldsSeveralStoriesAndSegmentsBuildTheText() throws {
        let json = #"""
        [{"artifact_id": "a", "title": "A", "privacy": "family_only", "family_group_ids": ["fam-1"], "owner_user_id": "u1",
          "transcript": {"segments": [{"start": 0, "end": 4.5, "speaker": "Ruth", "text": "Tell me."},
                                      {"start": 4.5, "end": 9, "speaker": "Ida Mae", "text": "Well, baby."}]},
          "historical_context": [{"year": 1927, "location": {"name": "Greenville, Mississippi", "coordinates": [33.41, -91.06]}}]},
         {"artifact_id": "b", "title": "B", "transcript": "Plain text."}]
        """#
        let decoded = decoder.decode(Data(json.utf8), fileName: "two.json")
        #expect(decoded.problems.isEmpty)
        #expect(decoded.stories.count == 2)
        let first = decoded.stories[0]
        #expect(first.transcript.text == "Tell me.\nWell, baby.")
        #expect(first.privacy == .familyOnly)
        #expect(first.historicalContext.first?.location?.coordinates == GeoPoint(latitude: 33.41, longitude: -91.06))
    }

    @Test func wrongTypesSayWhatIsExpected() throws {
        let decoded = decoder.decode(Data(story(#", "people": "Amos", "tags": [1, 2], "duration_seconds": "long""#).utf8), fileName: "types.json")
        #expect(decoded.stories.isEmpty)
        let fields = decoded.problems.map(\.field)
        #expect(fields.contains("tags"))
        #expect(fields.contains("duration_seconds"))
        #expect(!fields.contains("people"))  // a single string is accepted as a one-name list
    }

    @Test func aFiveMegabyteTranscriptDecodes() throws {
        let segment = #"{"start": 0, "end": 30, "speaker": "Octavia Batiste", "text": "We stirred the roux until it was dark as chocolate, then the filé went in at the very end."}"#
        let count = 5_000_000 / segment.utf8.count + 1
        var segments: [String] = []
        for index in 0..<count {
            segments.append(segment.replacingOccurrences(of: #""start": 0, "end": 30"#, with: #""start": \#(index * 30), "end": \#(index * 30 + 30)"#))
        }
        let json = #"{"artifact_id": "long", "title": "Long", "privacy": "public", "transcript": {"segments": ["# + segments.joined(separator: ",") + "]}}"
        #expect(json.utf8.count > 5_000_000)
        let decoded = decoder.decode(Data(json.utf8), fileName: "long.json")
        #expect(decoded.problems.isEmpty)
        #expect(decoded.stories.first?.transcript.segments.count == count)
    }
}
