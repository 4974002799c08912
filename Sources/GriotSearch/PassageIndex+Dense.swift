/// The dense arm: a scan of every admitted passage's vector, dot product with the query
/// vector (cosine, as vectors are unit length), top k kept in a heap. The access and facet
/// filters are the lexical arm's, decided per story before any vector is read.
///
/// The scan is memory-bound, so by default it reads the int8 copy of the vectors (4x fewer
/// bytes), keeps `rescoreFactor * k` candidates, and rescores those with the float vectors:
/// the returned scores are exact, and the ranking equals the exact scan's unless a passage
/// falls out of the candidates (recall@10 against the exact scan is measured in the
/// benchmark: docs/BENCHMARKS.md).
extension PassageIndex {
    public func searchDense(vector query: [Float], filter: SearchFilter, k: Int, exact: Bool = false, rescoreFactor: Int = 4) -> [SearchHit] {
        guard k > 0, dimension > 0, query.count == dimension, liveDocumentCount > 0 else { return [] }
        if !exact { return searchQuantized(query, filter: filter, k: k, candidates: k * max(rescoreFactor, 1)) }
        var heap = TopK(capacity: k)
        let width = dimension
        query.withUnsafeBufferPointer { query in
            vectors.withUnsafeBufferPointer { vectors in
                forEachAdmittedVector(filter) { document in
                    heap.offer(score: Self.dot(query.baseAddress!, vectors.baseAddress! + document * width, width), document: Int32(document))
                }
            }
        }
        return hits(heap)
    }

    /// Calls `body` with every live document that has a vector and whose story the filter admits.
    @inline(__always)
    private func forEachAdmittedVector(_ filter: SearchFilter, _ body: (Int) -> Void) {
        var verdicts = initialVerdicts(filter)
        documentStory.withUnsafeBufferPointer { documentStory in
        alive.withUnsafeBufferPointer { alive in
        hasVector.withUnsafeBufferPointer { hasVector in
        verdicts.withUnsafeMutableBufferPointer { verdicts in
            for document in 0..<alive.count where alive[document] && hasVector[document] {
                let story = Int(documentStory[document])
                if verdicts[story] == 0 { verdicts[story] = admits(story, filter) ? 1 : 2 }
                if verdicts[story] == 1 { body(document) }
            }
        }}}}
    }

    private func searchQuantized(_ query: [Float], filter: SearchFilter, k: Int, candidates: Int) -> [SearchHit] {
        var rough = TopK(capacity: candidates)
        let width = dimension
        query.withUnsafeBufferPointer { query in
            quantized.withUnsafeBufferPointer { quantized in
                scales.withUnsafeBufferPointer { scales in
                    forEachAdmittedVector(filter) { document in
                        let score = scales[document] * Self.dot(query.baseAddress!, quantized.baseAddress! + document * width, width)
                        rough.offer(score: score, document: Int32(document))
                    }
                }
            }
        }
        var exact = TopK(capacity: k)
        query.withUnsafeBufferPointer { query in
            vectors.withUnsafeBufferPointer { vectors in
                for candidate in rough.sortedDescending() {
                    let document = Int(candidate.document)
                    exact.offer(score: Self.dot(query.baseAddress!, vectors.baseAddress! + document * width, width), document: candidate.document)
                }
            }
        }
        return hits(exact)
    }

    /// Symmetric int8 codes of a vector and the scale that turns their dot product back into floats.
    static func quantize(_ vector: [Float]) -> ([Int8], Float) {
        let largest = vector.reduce(0) { max($0, abs($1)) }
        guard largest > 0 else { return ([Int8](repeating: 0, count: vector.count), 0) }
        let factor = 127 / largest
        return (vector.map { Int8(($0 * factor).rounded()) }, largest / 127)
    }

    /// Dot product of float and int8 vectors, 8 lanes at a time.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Int8>, _ count: Int) -> Float {
        let a = UnsafeRawPointer(a), b = UnsafeRawPointer(b)
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>()
        var index = 0
        while index + 16 <= count {
            let codes0 = SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: b.loadUnaligned(fromByteOffset: index, as: SIMD8<Int8>.self)))
            let codes1 = SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: b.loadUnaligned(fromByteOffset: index + 8, as: SIMD8<Int8>.self)))
            s0 += a.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self) * codes0
            s1 += a.loadUnaligned(fromByteOffset: index * 4 + 32, as: SIMD8<Float>.self) * codes1
            index += 16
        }
        var total = (s0 + s1).sum()
        while index < count {
            total += a.load(fromByteOffset: index * 4, as: Float.self) * Float(b.load(fromByteOffset: index, as: Int8.self))
            index += 1
        }
        return total
    }

    /// Four independent 8-wide sums, so the loads and multiply-adds overlap.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        let a = UnsafeRawPointer(a), b = UnsafeRawPointer(b)
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
        var offset = 0
        let bytes = count * 4
        while offset + 128 <= bytes {
            s0 += a.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self) * b.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            s1 += a.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self) * b.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
            s2 += a.loadUnaligned(fromByteOffset: offset + 64, as: SIMD8<Float>.self) * b.loadUnaligned(fromByteOffset: offset + 64, as: SIMD8<Float>.self)
            s3 += a.loadUnaligned(fromByteOffset: offset + 96, as: SIMD8<Float>.self) * b.loadUnaligned(fromByteOffset: offset + 96, as: SIMD8<Float>.self)
            offset += 128
        }
        var total = ((s0 + s1) + (s2 + s3)).sum()
        while offset < bytes {
            total += a.load(fromByteOffset: offset, as: Float.self) * b.load(fromByteOffset: offset, as: Float.self)
            offset += 4
        }
        return total
    }

    /// The heap's documents as hits, best first, equal scores by passage id.
    func hits(_ heap: TopK) -> [SearchHit] {
        heap.sortedDescending().map {
            SearchHit(documentID: documentIDs[Int($0.document)], storyID: stories[Int(documentStory[Int($0.document)])].storyID, score: $0.score)
        }.sorted { $0.score > $1.score || ($0.score == $1.score && $0.documentID < $1.documentID) }
    }
}
