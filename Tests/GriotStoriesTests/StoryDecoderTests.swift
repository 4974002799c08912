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

    // MARK: Duplicates: the last copy in the file is the one the person meant

    @Test func whenTheLastCopyOfAnIdIsRejectedNoCopyIsStored() throws {
        let lines = [
            #"{"artifact_id": "a", "title": "Open", "privacy": "public", "transcript": "one"}"#,
            #"{"artifact_id": "b", "title": "Other", "transcript": "two"}"#,
            #"{"artifact_id": "a", "title": "Restricted", "privacy": "Family Only", "transcript": "one"}"#,
        ]
        let decoded = decoder.decode(Data(lines.joined(separator: "\n").utf8), fileName: "dupes.jsonl")
        #expect(decoded.stories.map(\.artifactID) == ["b"])  // not the public copy on line 1
        #expect(decoded.rejectedCount == 2)
        #expect(decoded.problems.contains { $0.line == 3 && $0.field == "privacy" })
        let duplicate = try #require(decoded.problems.first { $0.field == "artifact_id" })
        #expect(duplicate.description == #"dupes.jsonl:3: story "a" field "artifact_id": appears 2 times in this file and its last copy was rejected, so no copy is stored; fix the last copy and ingest again"#)
        #expect(!decoded.warnings.contains { $0.field == "artifact_id" })
    }

    @Test func whenTheLastCopyIsValidItIsKeptEvenAfterARejectedCopy() throws {
        let json = #"[{"artifact_id": "a", "title": "First", "privacy": "friends", "transcript": "one"}, {"artifact_id": "a", "title": "Second", "transcript": "two"}]"#
        let decoded = decoder.decode(Data(json.utf8), fileName: "dupes.json")
        #expect(decoded.stories.map(\.title) == ["Second"])
        #expect(decoded.rejectedCount == 1)
        #expect(decoded.problems.map(\.field) == ["privacy"])
        let warning = try #require(decoded.warnings.first { $0.field == "artifact_id" })
        #expect(warning.message.contains("appears 2 times in this file; the last one is kept"))
    }

    @Test func aRejectedLastCopyInAJSONArrayIsNamedByItsPosition() throws {
        let json = #"[{"artifact_id": "a", "title": "A", "privacy": "public", "transcript": "one"}, {"artifact_id": "a", "title": "", "transcript": "one"}]"#
        let decoded = decoder.decode(Data(json.utf8), fileName: "dupes.json")
        #expect(decoded.stories.isEmpty)
        #expect(decoded.problems.map(\.description) == [
            #"dupes.json[1]: story "a" field "title": is empty; add a short title such as the storyteller's name and subject"#,
            #"dupes.json[1]: story "a" field "artifact_id": appears 2 times in this file and its last copy was rejected, so no copy is stored; fix the last copy and ingest again"#,
        ])
    }

    // MARK: Counting rejected stories

    @Test func everyRejectedStoryObjectCountsOnceEvenWithoutAnId() throws {
        let json = #"[{"title": "No id 1", "transcript": "x"}, {"title": "No id 2", "transcript": "x"}, "not a story", {"artifact_id": "ok", "title": "Fine", "transcript": "x"}, {"title": "No id 3"}]"#
        let decoded = decoder.decode(Data(json.utf8), fileName: "many.json")
        #expect(decoded.stories.map(\.artifactID) == ["ok"])
        #expect(decoded.rejectedCount == 4)  // one for the story with two problems, not two
        #expect(Set(decoded.problems.compactMap(\.element)) == [0, 1, 2, 4])
        #expect(decoded.problems[0].description.hasPrefix(#"many.json[0]: field "artifact_id": is missing"#))
        #expect(decoded.problems.contains { $0.description.hasPrefix("many.json[2]: holds a string, not a story object") })
    }

    @Test func unreadableFilesAndLinesCountOnceEach() {
        #expect(decoder.decode(Data("{not json".utf8), fileName: "broken.json").rejectedCount == 1)
        #expect(decoder.decode(Data([0x7B, 0xFF, 0x7D]), fileName: "latin1.json").rejectedCount == 1)
        let lines = ["{bad", #"{"artifact_id": "a", "title": "A", "transcript": "x"}"#, "{also bad"]
        let decoded = decoder.decode(Data(lines.joined(separator: "\n").utf8), fileName: "lines.jsonl")
        #expect(decoded.rejectedCount == 2)
        #expect(decoded.stories.count == 1)
        #expect(decoded.problems.map(\.line) == [1, 3])
        #expect(decoded.problems.allSatisfy { $0.element == nil })
    }

    // MARK: Nothing present is dropped without a word

    @Test func aLocationThatIsNotAnObjectIsRejectedWithTheShapeToUse() throws {
        let decoded = decoder.decode(Data(story(#", "historical_context": [{"year": 1950, "location": "Chicago"}]"#).utf8), fileName: "place.json")
        #expect(decoded.stories.isEmpty)
        let problem = try #require(decoded.problems.first)
        #expect(problem.field == "historical_context[0].location")
        #expect(problem.message.contains(#"must be an object {"name": ..., "coordinates": [lat, lon]}"#))
        #expect(problem.message.contains(#"write {"name": "Chicago"}"#))

        let number = decoder.decode(Data(story(#", "historical_context": [{"location": 7}]"#).utf8), fileName: "place.json")
        #expect(number.problems.first?.message.hasPrefix("is a number or boolean, but must be an object") == true)
    }

    @Test func aSpeakerThatIsNotAStringIsRejected() throws {
        let json = #"{"artifact_id": "s1", "title": "T", "transcript": {"segments": [{"start": 0, "end": 1, "speaker": 2, "text": "Hello."}]}}"#
        let decoded = decoder.decode(Data(json.utf8), fileName: "speaker.json")
        #expect(decoded.stories.isEmpty)
        let problem = try #require(decoded.problems.first)
        #expect(problem.field == "transcript.segments[0].speaker")
        #expect(problem.message == #"is a number or boolean, not a string; give the speaker's name, e.g. "Ida Mae Carter", or leave speaker out"#)

        let unnamed = #"{"artifact_id": "s1", "title": "T", "transcript": {"segments": [{"start": 0, "end": 1, "speaker": null, "text": "Hello."}]}}"#
        #expect(decoder.decode(Data(unnamed.utf8), fileName: "speaker.json").stories.first?.transcript.segments.first?.speaker == nil)
    }

    @Test func aMisspeltPrivacyKeyIsAWarningThatSaysTheStoryIsPrivate() throws {
        let decoded = decoder.decode(Data(story(#", "privcy": "public", "owner_user_id": "u1""#).utf8), fileName: "typo.json")
        #expect(decoded.problems.isEmpty)
        #expect(decoded.stories.first?.privacy == .private)  // still stored, failing closed
        let warning = try #require(decoded.warnings.first)
        #expect(warning.description.hasPrefix(#"typo.json: story "s1": unknown field "privcy" is ignored; did you mean "privacy"?"#))
        #expect(warning.message.contains("this story is private"))
    }

    @Test func unknownKeysAreWarnedAboutWithASuggestionWhenOneIsClose() throws {
        let decoded = decoder.decode(Data(story(#", "privacy": "public", "tilte": "x", "Tags": ["a"], "colour": "blue""#).utf8), fileName: "keys.json")
        #expect(decoded.stories.count == 1)
        #expect(decoded.warnings.map(\.message) == [
            #"unknown field "Tags" is ignored; did you mean "tags"?"#,
            #"unknown field "colour" is ignored; remove it, or rename it to one of the fields in corpus/FORMAT.md"#,
            #"unknown field "tilte" is ignored; did you mean "title"?"#,
        ])
    }

    @Test func aMisspeltRequiredKeyExplainsTheRejection() throws {
        let json = #"{"artifact_id": "s1", "titel": "A story", "transcript": "x"}"#
        let decoded = decoder.decode(Data(json.utf8), fileName: "titel.json")
        #expect(decoded.stories.isEmpty)
        #expect(decoded.problems.first?.field == "title")
        #expect(decoded.warnings.first?.message == #"unknown field "titel" is ignored; did you mean "title"?"#)
    }

    @Test func aStoryGriotEncodesItselfHasNoUnknownFields() throws {
        let full = Story(
            artifactID: "full", title: "Full", description: "d", creator: "c", creationDate: "1974",
            interviewees: ["I"], people: ["P"], tags: ["t"], subject: ["s"], language: ["en"],
            aiMetadata: StoryTags(topics: ["t"], people: ["P"], places: ["Chicago"], keywords: ["k"], summary: "s"),
            historicalContext: [HistoricalContext(year: 1950, location: Place(name: "Chicago", coordinates: GeoPoint(latitude: 41.9, longitude: -87.6)))],
            privacy: .familyOnly, ownerUserID: "u1", familyGroupIDs: ["fam"],
            transcript: Transcript(segments: [TranscriptSegment(start: 0, end: 1, speaker: "I", text: "Hello.")]),
            videoURL: "v", thumbnailURL: "th", durationSeconds: 1, updatedAt: "2024-01-01", source: "src", publicDomain: true)
        let decoded = decoder.decode(try JSONEncoder().encode(full), fileName: "full.json")
        #expect(decoded.problems.isEmpty, "\(decoded.problems)")
        #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
        #expect(decoded.stories == [full])
    }

    @Test func publicDomainIsABooleanThatDefaultsToFalse() throws {
        #expect(decoder.decode(Data(story("").utf8), fileName: "one.json").stories.first?.publicDomain == false)
        #expect(decoder.decode(Data(story(#", "public_domain": false"#).utf8), fileName: "one.json").stories.first?.publicDomain == false)
        let marked = try #require(decoder.decode(Data(story(#", "public_domain": true"#).utf8), fileName: "one.json").stories.first)
        #expect(marked.publicDomain)
        // Stored only when true: a family's story encodes as it did before the field existed.
        let plain = String(decoding: try JSONEncoder().encode(try #require(decoder.decode(Data(story("").utf8), fileName: "one.json").stories.first)), as: UTF8.self)
        #expect(!plain.contains("public_domain"))
        #expect(String(decoding: try JSONEncoder().encode(marked), as: UTF8.self).contains(#""public_domain":true"#))
        // A number or a string is not a yes: the story is rejected, saying what to write.
        for value in ["1", #""yes""#] {
            let decoded = decoder.decode(Data(story(#", "public_domain": "# + value).utf8), fileName: "one.json")
            #expect(decoded.stories.isEmpty, "\(value)")
            let problem = try #require(decoded.problems.first)
            #expect(problem.field == "public_domain")
            #expect(problem.message.contains("not true or false"), "\(problem.message)")
        }
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
