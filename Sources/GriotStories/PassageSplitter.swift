import GriotText

/// Cuts a story's transcript into passages of about 150 to 300 tokens.
///
/// Cuts fall only on sentence ends, preferring a change of speaker once a passage is long
/// enough, so a passage never starts mid-sentence. The last sentence of a passage, when
/// short, is repeated at the start of the next one (the overlap), so an answer that spans
/// the cut is still found whole in one of them. A run-on sentence longer than the maximum
/// (oral transcripts have them) is cut at word boundaries.
///
/// Tokens are estimated as 1.3 per word, the usual ratio of English words to model tokens; in a
/// script written without spaces two characters count as a word (`WordTokenizer.wordCount`).
///
/// ```swift
/// let splitter = PassageSplitter()
/// let passages = splitter.passages(of: story)
/// ```
public struct PassageSplitter: Sendable {
    public var minTokens = 150
    public var targetTokens = 220
    public var maxTokens = 300
    /// The longest sentence that is repeated as overlap.
    public var overlapTokens = 45

    public init() {}

    /// Names the cutting rules and sizes; stored with each story so a change re-cuts passages.
    public var revision: String { "passages-2/\(minTokens)/\(targetTokens)/\(maxTokens)/\(overlapTokens)" }

    public func passages(of story: Story) -> [Passage] {
        let scalars = Array(story.transcript.text.unicodeScalars)
        let segments = segmentRanges(story.transcript)
        let units = sentenceUnits(scalars, segments: segments)
        let groups = pack(units, story.transcript)
        var seenIDs = [String: Int]()
        return groups.enumerated().map { ordinal, group in
            let start = units[group.lowerBound].start
            let end = units[group.upperBound - 1].end
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars[start..<end])
            let passageText = String(text)
            var id = "\(story.artifactID)-\(StableHash.hex(passageText))"
            let repeats = seenIDs[id, default: 0]
            seenIDs[id] = repeats + 1
            if repeats > 0 { id += "-\(repeats + 1)" }
            return Passage(
                id: id, storyID: story.artifactID, ordinal: ordinal, text: passageText,
                speaker: dominantSpeaker(units[group], story.transcript),
                startSeconds: seconds(at: start, units[group.lowerBound].segment, segments, story.transcript),
                endSeconds: seconds(at: end, units[group.upperBound - 1].segment, segments, story.transcript),
                startOffset: start, endOffset: end)
        }
    }

    struct Unit {
        var start: Int
        var end: Int
        var tokens: Int
        var segment: Int?
    }

    /// Scalar ranges of each segment's text inside the joined transcript text.
    public func segmentRanges(_ transcript: Transcript) -> [Range<Int>] {
        var offset = 0
        return transcript.segments.map { segment in
            let length = segment.text.unicodeScalars.count
            defer { offset += length + 1 }
            return offset..<(offset + length)
        }
    }

    func sentenceUnits(_ scalars: [Unicode.Scalar], segments: [Range<Int>]) -> [Unit] {
        var units: [Unit] = []
        let pieces: [(Range<Int>, Int?)] = segments.isEmpty
            ? [(0..<scalars.count, nil)]
            : segments.enumerated().map { ($0.element, $0.offset) }
        for (range, segment) in pieces {
            for sentence in SentenceSplitter.sentences(in: scalars, from: range.lowerBound, to: range.upperBound) {
                let words = WordTokenizer.spans(in: Array(scalars[sentence.start..<sentence.end]))
                let tokens = estimatedTokens(words: WordTokenizer.wordCount(in: Array(scalars[sentence.start..<sentence.end])))
                if tokens <= maxTokens {
                    units.append(Unit(start: sentence.start, end: sentence.end, tokens: tokens, segment: segment))
                    continue
                }
                // A run-on sentence: cut it into word-bounded pieces of about the target size.
                let wordsPerPiece = max(1, targetTokens * 10 / 13)
                var first = 0
                while first < words.count {
                    let last = min(words.count, first + wordsPerPiece)
                    let start = sentence.start + (first == 0 ? 0 : words[first].start)
                    let end = last == words.count ? sentence.end : sentence.start + words[last].start
                    units.append(Unit(start: start, end: trimmedEnd(scalars, start, end), tokens: estimatedTokens(words: last - first), segment: segment))
                    first = last
                }
            }
        }
        return units
    }

    func pack(_ units: [Unit], _ transcript: Transcript) -> [Range<Int>] {
        var groups: [Range<Int>] = []
        var first = 0
        while first < units.count {
            var next = first
            var total = 0
            while next < units.count {
                if next > first, total + units[next].tokens > maxTokens { break }
                total += units[next].tokens
                next += 1
                if total >= targetTokens { break }
                if next < units.count, total >= minTokens,
                   speaker(units[next].segment, transcript) != speaker(units[next - 1].segment, transcript) { break }
            }
            groups.append(first..<next)
            if next >= units.count { break }
            first = next - first > 1 && units[next - 1].tokens <= overlapTokens ? next - 1 : next
        }
        // A short tail reads better as the end of the passage before it.
        if groups.count > 1, let tail = groups.last {
            let tailTokens = units[tail].reduce(0) { $0 + $1.tokens }
            let previous = groups[groups.count - 2]
            let merged = previous.lowerBound..<tail.upperBound
            if tailTokens < minTokens / 2, units[merged].reduce(0, { $0 + $1.tokens }) <= maxTokens + minTokens / 3 {
                groups.removeLast(2)
                groups.append(merged)
            }
        }
        return groups
    }

    /// The token estimate for a number of words (1.3 tokens a word, rounded up).
    public func estimatedTokens(words: Int) -> Int { (words * 13 + 9) / 10 }

    private func trimmedEnd(_ scalars: [Unicode.Scalar], _ start: Int, _ end: Int) -> Int {
        var end = end
        while end > start, scalars[end - 1].properties.isWhitespace { end -= 1 }
        return end
    }

    private func speaker(_ segment: Int?, _ transcript: Transcript) -> String? {
        segment.flatMap { transcript.segments[$0].speaker }
    }

    private func dominantSpeaker(_ units: ArraySlice<Unit>, _ transcript: Transcript) -> String? {
        var tokensBySpeaker: [String: Int] = [:]
        for unit in units {
            if let name = speaker(unit.segment, transcript) { tokensBySpeaker[name, default: 0] += unit.tokens }
        }
        return tokensBySpeaker.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key
    }

    /// The time at a scalar offset, interpolated within its segment by the share of text before it.
    private func seconds(at offset: Int, _ segment: Int?, _ ranges: [Range<Int>], _ transcript: Transcript) -> Double? {
        guard let segment else { return nil }
        let range = ranges[segment]
        let timing = transcript.segments[segment]
        let share = range.isEmpty ? 0 : Double(min(max(offset - range.lowerBound, 0), range.count)) / Double(range.count)
        return ((timing.start + share * (timing.end - timing.start)) * 10).rounded() / 10
    }
}

/// FNV-1a over UTF-8: the same value on every run and machine (Swift's `Hasher` is seeded).
public enum StableHash {
    public static func value(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    public static func hex(_ text: String) -> String {
        let digits = String(value(text), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
