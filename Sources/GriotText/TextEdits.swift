/// One pass of `NormalizedText`: byte ranges of an input replaced by other bytes, and the way
/// back from an offset in the output to the input. Bytes between edits are copied unchanged, so
/// an offset there moves by the edits before it; an offset inside a replacement stands for the
/// whole range it replaced, so a span that touches a rewritten character covers all of it.
///
///     var edits = TextEdits()
///     edits.replace(3..<6, with: Array("-".utf8))     // "555–0187": the en dash's three bytes
///     let output = edits.apply(to: bytes)             // "555-0187"
///     edits.inputRange(of: 0..<8)                     // 0..<10
struct TextEdits: Sendable {
    /// Input ranges, ascending and disjoint, and what each became.
    private(set) var inputStarts: [Int] = []
    private(set) var inputEnds: [Int] = []
    private(set) var outputStarts: [Int] = []
    private(set) var outputEnds: [Int] = []
    private var replacements: [UInt8] = []
    private var replacementEnds: [Int] = []

    var isEmpty: Bool { inputStarts.isEmpty }
    var count: Int { inputStarts.count }

    /// Input range of the last edit, to keep new edits after it.
    var lastInputEnd: Int { inputEnds.last ?? 0 }

    /// Replaces `range` (after every earlier edit) with `bytes`; an empty `bytes` deletes.
    mutating func replace(_ range: Range<Int>, with bytes: some Collection<UInt8>) {
        precondition(range.lowerBound >= lastInputEnd, "edits must come in order and not overlap")
        let shift = (outputEnds.last ?? 0) - lastInputEnd
        inputStarts.append(range.lowerBound)
        inputEnds.append(range.upperBound)
        outputStarts.append(range.lowerBound + shift)
        outputEnds.append(range.lowerBound + shift + bytes.count)
        replacements.append(contentsOf: bytes)
        replacementEnds.append(replacements.count)
    }

    /// The input with every edit made.
    func apply(to input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count + 16)
        var cursor = 0
        var replacementStart = 0
        for index in 0..<inputStarts.count {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: input[cursor..<inputStarts[index]]))
            output.append(contentsOf: replacements[replacementStart..<replacementEnds[index]])
            replacementStart = replacementEnds[index]
            cursor = inputEnds[index]
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: input[cursor...]))
        return output
    }

    /// Where a span of the output came from. A bound inside (or at the start of) a replacement
    /// widens to the replaced range; deletions at the edges of the span stay outside it and
    /// deletions inside it are covered.
    func inputRange(of output: Range<Int>) -> Range<Int> {
        guard !isEmpty else { return output }
        let lower = inputLowerBound(output.lowerBound)
        let upper = max(lower, inputUpperBound(output.upperBound))
        return lower..<upper
    }

    /// The input offset where a span starting at output offset `offset` starts.
    func inputLowerBound(_ offset: Int) -> Int {
        // The last edit whose output starts at or before `offset`; if `offset` falls inside its
        // replacement, the span starts where that edit's input starts.
        var low = 0, high = outputStarts.count
        while low < high {
            let middle = (low + high) / 2
            if outputStarts[middle] <= offset { low = middle + 1 } else { high = middle }
        }
        // `low` edits start at or before `offset`; those ending after it contain it.
        let index = low - 1
        guard index >= 0 else { return offset }
        if outputEnds[index] > offset { return inputStarts[index] }
        // Otherwise it ended at or before `offset` (a deletion right at `offset` included, so
        // the span starts after what was deleted).
        return offset - outputEnds[index] + inputEnds[index]
    }

    /// The input offset where a span ending at output offset `offset` ends.
    func inputUpperBound(_ offset: Int) -> Int {
        // Edits that start strictly before `offset`: the span reaches into (or past) them.
        var low = 0, high = outputStarts.count
        while low < high {
            let middle = (low + high) / 2
            if outputStarts[middle] < offset { low = middle + 1 } else { high = middle }
        }
        let index = low - 1
        guard index >= 0 else { return offset }
        if outputEnds[index] >= offset { return inputEnds[index] }
        return offset - outputEnds[index] + inputEnds[index]
    }
}
