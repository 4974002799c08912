import Foundation
import GriotStories
import Testing

@Suite struct PassageSplitterTests {
    let splitter = PassageSplitter()

    /// A long interview with timed segments and two speakers.
    func interview(paragraphs: Int = 30) -> Story {
        var segments: [TranscriptSegment] = []
        var clock = 0.0
        for number in 0..<paragraphs {
            let speaker = number % 3 == 0 ? "Ruth Carter" : "Ida Mae Carter"
            let text = (0..<6).map { sentence in
                "In the year \(1920 + number) we walked to the levee number \(sentence) and the water was rising over the fields of cotton near Greenville."
            }.joined(separator: " ")
            let seconds = Double(text.split(separator: " ").count) / 2.5
            segments.append(TranscriptSegment(start: clock, end: clock + seconds, speaker: speaker, text: text))
            clock += seconds
        }
        return Story(artifactID: "carter-test", title: "Test", privacy: .public, transcript: Transcript(segments: segments))
    }

    @Test func passagesAreAbout150To300TokensAndCoverTheTranscript() {
        let story = interview()
        let passages = splitter.passages(of: story)
        #expect(passages.count > 10)
        for passage in passages.dropLast() {
            let tokens = splitter.estimatedTokens(words: passage.text.split(whereSeparator: \.isWhitespace).count)
            #expect((120...320).contains(tokens), "passage \(passage.ordinal) has \(tokens) tokens")
        }
        #expect(passages.first?.startOffset == 0)
        #expect(passages.last?.endOffset == story.transcript.text.unicodeScalars.count)
        // Consecutive passages touch or overlap: nothing is left out.
        for (previous, next) in zip(passages, passages.dropFirst()) {
            #expect(next.startOffset <= previous.endOffset + 1)
            #expect(next.startOffset > previous.startOffset)
        }
    }

    @Test func offsetsTimesAndSpeakersMatchTheTranscript() {
        let story = interview()
        let scalars = Array(story.transcript.text.unicodeScalars)
        for passage in splitter.passages(of: story) {
            #expect(String(String.UnicodeScalarView(scalars[passage.startOffset..<passage.endOffset])) == passage.text)
            #expect(passage.text.hasSuffix("."), "cut inside a sentence: …\(passage.text.suffix(30))")
            let start = passage.startSeconds ?? -1
            let end = passage.endSeconds ?? -1
            #expect(start >= 0 && end > start)
            #expect(["Ruth Carter", "Ida Mae Carter"].contains(passage.speaker ?? ""))
        }
    }

    @Test func idsAreStableWhenTheSameTextIsSplitAgain() {
        let story = interview()
        #expect(splitter.passages(of: story).map(\.id) == splitter.passages(of: story).map(\.id))
        var retitled = story
        retitled.title = "Another title"
        #expect(splitter.passages(of: retitled).map(\.id) == splitter.passages(of: story).map(\.id))
        #expect(Set(splitter.passages(of: story).map(\.id)).count == splitter.passages(of: story).count)
    }

    @Test func passageIdsArePinnedAcrossRunsAndMachines() {
        // Swift's Hasher is seeded per process; this pins the stable hash the ids are built on.
        #expect(StableHash.hex("a") == "af63dc4c8601ec8c")
        let passages = splitter.passages(of: Story(artifactID: "pin", title: "P", transcript: Transcript(text: "We rode north.")))
        #expect(passages.map(\.id) == ["pin-\(StableHash.hex("We rode north."))"])
    }

    @Test func aPlainTranscriptWithoutTimesHasNoSeconds() {
        let text = String(repeating: "We sang at True Vine every Sunday. ", count: 200)
        let passages = splitter.passages(of: Story(artifactID: "plain", title: "P", transcript: Transcript(text: text)))
        #expect(passages.count > 3)
        #expect(passages.allSatisfy { $0.startSeconds == nil && $0.speaker == nil })
    }

    @Test func aRunOnSentenceIsCutAtWords() {
        let text = (0..<2_000).map { "word\($0)" }.joined(separator: " ")
        let passages = splitter.passages(of: Story(artifactID: "runon", title: "R", transcript: Transcript(text: text)))
        #expect(passages.count >= 6)
        #expect(passages.allSatisfy { splitter.estimatedTokens(words: $0.text.split(separator: " ").count) <= splitter.maxTokens + 60 })
    }

    @Test func aFiveMegabyteTranscriptSplits() {
        let sentence = "Grandmother Octavia stirred the roux until it was dark as chocolate, then added the filé at the end. "
        let text = String(repeating: sentence, count: 5_000_000 / sentence.utf8.count + 1)
        #expect(text.utf8.count >= 5_000_000)
        let passages = splitter.passages(of: Story(artifactID: "big", title: "Big", transcript: Transcript(text: text)))
        #expect(passages.count > 3_000)
        #expect(passages.last?.endOffset == text.unicodeScalars.count - 1)  // the final space is not part of a passage
    }
}
