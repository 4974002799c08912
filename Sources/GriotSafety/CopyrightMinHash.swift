/// The copyright check with MinHash signatures in place of exact shingle sets, kept to be
/// measured against `CopyrightCheck` (griot-bench groundedness); the service uses the exact one.
///
/// Each passage and each output window (every `stride` shingles) gets `permutations` minimum
/// hashes; the matching share estimates Jaccard J, turned into containment of the window in
/// the passage as J·(|W| + |P|) / ((1 + J)·|W|).
///
/// ```swift
/// let check = CopyrightMinHashCheck(permutations: 128)
/// check.check(reply, passages: texts)?.similarity
/// ```
public struct CopyrightMinHashCheck: Sendable {
    public var minimumLength: Int
    public var threshold: Double
    public var permutations: Int
    public var stride: Int

    public init(minimumLength: Int = 400, threshold: Double = 0.9, permutations: Int = 128, stride: Int = 10) {
        self.minimumLength = minimumLength
        self.threshold = threshold
        self.permutations = permutations
        self.stride = stride
    }

    public func check(_ output: String, passages: [String]) -> CopyrightFinding? {
        let shingles = CopyrightShingles(output)
        let window = minimumLength - shingles.length + 1
        guard window > 0, shingles.hashes.count >= window else { return nil }
        let sources = passages.map { Set(CopyrightShingles($0).hashes) }
        let sourceSignatures = sources.map { signature(of: $0) }
        var best: CopyrightFinding?
        var start = 0
        while start + window <= shingles.hashes.count {
            let members = Set(shingles.hashes[start..<(start + window)])
            let windowSignature = signature(of: members)
            for (index, source) in sources.enumerated() where !source.isEmpty {
                let matches = zip(windowSignature, sourceSignatures[index]).reduce(0) { $0 + ($1.0 == $1.1 ? 1 : 0) }
                let jaccard = Double(matches) / Double(permutations)
                let containment = min(1, jaccard * Double(members.count + source.count) / ((1 + jaccard) * Double(members.count)))
                if containment >= threshold, best == nil || containment > best!.similarity {
                    best = CopyrightFinding(similarity: containment, passage: index,
                                            outputRange: shingles.utf16Range(shingles: start..<(start + window)))
                }
            }
            if start + window == shingles.hashes.count { break }
            start = min(start + stride, shingles.hashes.count - window)
        }
        return best
    }

    private func signature(of members: Set<UInt64>) -> [UInt64] {
        var minima = [UInt64](repeating: .max, count: permutations)
        for member in members {
            for index in 0..<permutations {
                // A different odd multiplier and offset per permutation, then a final mix.
                var value = member &* (0x9E37_79B9_7F4A_7C15 &+ UInt64(index) &* 0xBF58_476D_1CE4_E5B9 | 1) &+ UInt64(index)
                value ^= value >> 31
                if value < minima[index] { minima[index] = value }
            }
        }
        return minima
    }
}
