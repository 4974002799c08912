/// Typo tolerance for query terms: finds the index terms within a small edit distance of a
/// query term that the index does not know, so "Chicaga" can still find "chicago".
///
/// ```swift
/// let expander = SpellingExpander(vocabulary: ["chicago": 14, "chicken": 3])
/// expander.expansions(of: "chicaga")   // [Expansion(term: "chicago", distance: 1, documentFrequency: 14)]
/// expander.expansions(of: "chicago")   // [] (a known term is never expanded)
/// ```
///
/// The distance is the restricted Damerau-Levenshtein distance (optimal string alignment):
/// an insertion, a deletion, a substitution, or a swap of two neighbouring characters each
/// count one edit, and no substring is edited twice. Characters are Unicode scalars.
///
/// How it is fast: the vocabulary is kept as a character trie laid out in preorder (flat
/// arrays, no per-node objects), and a lookup walks it with one row of the edit-distance
/// table per trie depth, computing only the diagonal band `|i - j| <= maxDistance`. A prefix
/// whose row has no cell within the threshold cannot lead to a close term, so its whole
/// subtree is skipped with one jump. Terms sharing a prefix share its rows, and most of the
/// trie is never visited. Measured on a synthetic 100k-term vocabulary (see the report in
/// the change that added this file): tens of microseconds per lookup, and about 13 bytes per
/// trie node, no copy of the term strings kept.
public struct SpellingExpander: Sendable {
    /// A vocabulary term close to the query term.
    public struct Expansion: Sendable, Hashable {
        public var term: String
        public var distance: Int
        public var documentFrequency: Int

        public init(term: String, distance: Int, documentFrequency: Int) {
            self.term = term
            self.distance = distance
            self.documentFrequency = documentFrequency
        }
    }

    /// Query terms of up to this many characters may be one edit away from an expansion;
    /// longer ones two edits.
    public let shortLength: Int
    /// Query terms shorter than this are never expanded: too many words are one edit away.
    public static let minimumLength = 4

    // The trie, in preorder. Node 0 is the root (the empty prefix) and has no label.
    /// The character that leads into the node.
    private var labels: [UInt32] = [0]
    /// Length of the node's prefix.
    private var depths: [UInt8] = [0]
    /// Preorder index just past the node's subtree.
    private var subtreeEnds: [Int32] = [1]
    /// The document frequency of the term that ends at the node, or -1 if none does.
    private var frequencies: [Int32] = [-1]
    /// Length of the longest term.
    private var longestTerm = 0

    /// `vocabulary`: every index term (already analysed: lower-cased, folded, Porter2-stemmed)
    /// with its document frequency. Terms containing digits are left out (they are never
    /// offered as expansions), as are terms longer than 255 characters.
    public init(vocabulary: [String: Int], shortLength: Int = 5) {
        self.shortLength = shortLength
        var terms: [([UInt32], Int32)] = []
        terms.reserveCapacity(vocabulary.count)
        for (term, frequency) in vocabulary {
            let scalars = term.unicodeScalars.map(\.value)
            guard !scalars.isEmpty, scalars.count <= Int(UInt8.max), !Self.containsDigit(scalars) else { continue }
            terms.append((scalars, Int32(clamping: frequency)))
        }
        terms.sort { $0.0.lexicographicallyPrecedes($1.0) }

        // Build the preorder layout from the sorted terms: a term adds the nodes for its
        // characters past the prefix it shares with the previous term. Nodes still open on
        // `path` are closed (their subtree end set) when a node at their depth or above comes.
        var path: [Int32] = [0]  // open node per depth
        var previous: [UInt32] = []
        for (scalars, frequency) in terms {
            var shared = 0
            while shared < previous.count, shared < scalars.count, previous[shared] == scalars[shared] { shared += 1 }
            if shared == scalars.count {
                // Equal to the previous term (two spellings that analyse alike cannot happen
                // in a dictionary, but keep the larger frequency all the same).
                let node = Int(path[shared])
                frequencies[node] = max(frequencies[node], frequency)
                continue
            }
            while path.count > shared + 1 {
                subtreeEnds[Int(path.removeLast())] = Int32(labels.count)
            }
            for depth in shared..<scalars.count {
                path.append(Int32(labels.count))
                labels.append(scalars[depth])
                depths.append(UInt8(depth + 1))
                subtreeEnds.append(0)
                frequencies.append(-1)
            }
            frequencies[labels.count - 1] = frequency
            longestTerm = max(longestTerm, scalars.count)
            previous = scalars
        }
        while let node = path.popLast() { subtreeEnds[Int(node)] = Int32(labels.count) }
    }

    /// Number of vocabulary terms that can be offered as expansions.
    public var termCount: Int { frequencies.reduce(0) { $0 + ($1 >= 0 ? 1 : 0) } }

    /// Number of trie nodes, for memory estimates (about 13 bytes each).
    public var nodeCount: Int { labels.count }

    /// The largest distance allowed for a query term of `length` characters.
    public func maximumDistance(forLength length: Int) -> Int {
        length <= shortLength ? 1 : 2
    }

    /// Close vocabulary terms for a query term that the vocabulary lacks: edit distance <= 1
    /// for terms of up to `shortLength` (default 5) characters, <= 2 for longer ones
    /// (Damerau-Levenshtein: a swap of two neighbouring letters is one edit). Returns at most
    /// `limit` (default 3) expansions, nearest first, then by higher document frequency, then
    /// alphabetically; empty for terms present in the vocabulary, for terms of fewer than 4
    /// characters, and for terms containing digits.
    public func expansions(of term: String, limit: Int = 3) -> [Expansion] {
        guard limit > 0 else { return [] }
        let query = term.unicodeScalars.map(\.value)
        guard query.count >= Self.minimumLength, !Self.containsDigit(query) else { return [] }
        if contains(query) { return [] }
        var found = candidates(of: query, maxDistance: maximumDistance(forLength: query.count))
        found.sort {
            if $0.distance != $1.distance { return $0.distance < $1.distance }
            if $0.documentFrequency != $1.documentFrequency { return $0.documentFrequency > $1.documentFrequency }
            return $0.term < $1.term
        }
        return Array(found.prefix(limit))
    }

    // MARK: The walk

    /// Whether the term is in the trie (digit-free vocabulary terms only).
    func contains(_ query: [UInt32]) -> Bool {
        var node = 0
        for scalar in query {
            var child = node + 1
            let end = Int(subtreeEnds[node])
            while child < end, labels[child] != scalar { child = Int(subtreeEnds[child]) }
            guard child < end else { return false }
            node = child
        }
        return frequencies[node] >= 0
    }

    /// Every vocabulary term within `maxDistance` of `query`, unordered.
    func candidates(of query: [UInt32], maxDistance k: Int) -> [Expansion] {
        let m = query.count
        let width = m + 1
        let rowCount = min(longestTerm, m + k) + 1
        let infinity = UInt8(truncatingIfNeeded: k + 1)
        var found: [Expansion] = []
        // rows[d * width + j]: distance between the first d characters of the trie path and
        // the first j characters of the query, capped at k + 1. Only the band |d - j| <= k is
        // computed; the cells next to the band are kept at the cap so reads from it are safe.
        var rows = [UInt8](repeating: infinity, count: (rowCount + 1) * width)
        var pathLabels = [UInt32](repeating: 0, count: rowCount + 1)
        labels.withUnsafeBufferPointer { labels in
        depths.withUnsafeBufferPointer { depths in
        subtreeEnds.withUnsafeBufferPointer { ends in
        frequencies.withUnsafeBufferPointer { frequencies in
        query.withUnsafeBufferPointer { q in
        rows.withUnsafeMutableBufferPointer { rows in
        pathLabels.withUnsafeMutableBufferPointer { pathLabels in
            for j in 0...min(k, m) { rows[j] = UInt8(j) }
            let nodeCount = labels.count
            var node = 1
            while node < nodeCount {
                let d = Int(depths[node])
                if d >= rowCount {
                    // Longer than the query plus k: nothing below can be close.
                    node = Int(ends[node])
                    continue
                }
                let c = labels[node]
                pathLabels[d] = c
                let row = d * width
                let above = row - width
                let low = max(1, d - k)
                let high = min(m, d + k)
                // Cells just outside the band, read by the next row or by this row's first cell.
                if d <= k { rows[row] = UInt8(d) } else { rows[row + low - 1] = infinity }
                if high < m { rows[row + high + 1] = infinity }
                var best = d <= k ? UInt8(d) : infinity
                if low <= high {
                    let previousLabel = d >= 2 ? pathLabels[d - 1] : UInt32.max
                    for j in low...high {
                        let qj = q[j - 1]
                        var cost = rows[above + j - 1] &+ (qj == c ? 0 : 1)
                        let deletion = rows[above + j] &+ 1
                        let insertion = rows[row + j - 1] &+ 1
                        if deletion < cost { cost = deletion }
                        if insertion < cost { cost = insertion }
                        if j >= 2, d >= 2, c == q[j - 2], previousLabel == qj, c != qj {
                            let swap = rows[row - 2 * width + j - 2] &+ 1
                            if swap < cost { cost = swap }
                        }
                        if cost > infinity { cost = infinity }
                        rows[row + j] = cost
                        if cost < best { best = cost }
                    }
                }
                if best > UInt8(k) {
                    node = Int(ends[node])
                    continue
                }
                let frequency = frequencies[node]
                if frequency >= 0, m - d <= k, m - d >= -k, rows[row + m] <= UInt8(k) {
                    var scalars = String.UnicodeScalarView()
                    for i in 1...d { scalars.append(Unicode.Scalar(pathLabels[i]) ?? "\u{FFFD}") }
                    found.append(Expansion(term: String(scalars), distance: Int(rows[row + m]), documentFrequency: Int(frequency)))
                }
                node += 1
            }
        }}}}}}}
        return found
    }

    static func containsDigit(_ scalars: [UInt32]) -> Bool {
        for value in scalars {
            if value &- 48 < 10 { return true }
            if value >= 0x80, let scalar = Unicode.Scalar(value), scalar.properties.numericType != nil { return true }
        }
        return false
    }
}
