/// A run of the output that copies a source passage.
public struct CopyrightFinding: Codable, Sendable, Equatable {
    /// The share of the run's character shingles found in the passage, in [0, 1].
    public var similarity: Double
    /// Index into `passages`.
    public var passage: Int
    /// UTF-16 offsets into the output.
    public var outputRange: Range<Int>

    public init(similarity: Double, passage: Int, outputRange: Range<Int>) {
        self.similarity = similarity
        self.passage = passage
        self.outputRange = outputRange
    }
}

/// Flags output runs of at least `minimumLength` characters that copy a source passage
/// (similarity above `threshold`) for a coach to review.
///
/// Similarity is containment over exact 5-character shingles: the share of a window's
/// shingles that the passage has, for every window of `minimumLength` normalised characters
/// of the output. Containment rather than Jaccard, because a copied run is a small part of a
/// long passage. Exact sets rather than MinHash: against 6 passages of ~1,000 characters they
/// took 0.4-0.7 ms a check and were right on 555 of 555 judged outputs, MinHash (128) 1.6-2.5 ms
/// and 545 (docs/benchmarks/groundedness.md).
///
/// ```swift
/// let check = CopyrightCheck()
/// if let finding = check.check(reply, passages: passages.map(\.text)) { /* flag for review */ }
/// ```
public struct CopyrightCheck: Sendable {
    public var minimumLength: Int
    public var threshold: Double

    public init(minimumLength: Int = 400, threshold: Double = 0.9) {
        self.minimumLength = minimumLength
        self.threshold = threshold
    }

    /// The most similar qualifying run, or nil.
    public func check(_ output: String, passages: [String]) -> CopyrightFinding? {
        let shingles = CopyrightShingles(output)
        let window = minimumLength - shingles.length + 1
        guard window > 0, shingles.hashes.count >= window else { return nil }
        var best: CopyrightFinding?
        for (index, passage) in passages.enumerated() {
            let source = Set(CopyrightShingles(passage).hashes)
            guard source.count >= window / 2 else { continue }
            let hits = shingles.hashes.map { source.contains($0) ? 1 : 0 }
            guard let run = bestRun(hits: hits, window: window) else { continue }
            if best == nil || run.similarity > best!.similarity {
                best = CopyrightFinding(similarity: run.similarity, passage: index,
                                        outputRange: shingles.utf16Range(shingles: run.range))
            }
        }
        return best
    }

    /// The best window whose share of hits reaches the threshold, widened to every qualifying
    /// window that overlaps it, so the finding covers the whole copied run.
    func bestRun(hits: [Int], window: Int) -> (similarity: Double, range: Range<Int>)? {
        var inWindow = hits[0..<window].reduce(0, +)
        var qualifying: [(start: Int, share: Double)] = []
        var start = 0
        while true {
            let share = Double(inWindow) / Double(window)
            if share >= threshold { qualifying.append((start, share)) }
            guard start + window < hits.count else { break }
            inWindow += hits[start + window] - hits[start]
            start += 1
        }
        guard let top = qualifying.max(by: { $0.share < $1.share }) else { return nil }
        var lower = top.start
        var upper = top.start + window
        for candidate in qualifying where candidate.start <= upper && candidate.start + window >= lower {
            lower = min(lower, candidate.start)
            upper = max(upper, candidate.start + window)
        }
        // Windows reach past the copy into the answer's own words; the run starts and ends
        // where the passage's text does, taken as a dozen shingles (two or three words) found in a row.
        let steady = 12
        func isSteady(_ start: Int) -> Bool { start + steady <= hits.count && !hits[start..<(start + steady)].contains(0) }
        while lower < upper - steady, !isSteady(lower) { lower += 1 }
        while upper - steady > lower, !isSteady(upper - steady) { upper -= 1 }
        return (top.share, lower..<upper)
    }
}
