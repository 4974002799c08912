import GriotStories
import GriotText

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lexical arm: BM25F over the postings, exact top-k, filters applied while scoring.
extension PassageIndex {
    /// The analysed, de-duplicated query terms that the index knows, with how often each was asked.
    public func queryTerms(_ query: String) -> [(term: String, count: Int)] {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for term in analyzer.terms(in: query) {
            if counts[term] == nil { order.append(term) }
            counts[term, default: 0] += 1
        }
        return order.map { ($0, counts[$0]!) }
    }

    /// The inverse document frequency of a term (Lucene's BM25 form, always positive).
    public func idf(_ term: String) -> Float {
        guard let id = termIDs[term] else { return 0 }
        return idf(documentFrequency: Int(documentFrequency[Int(id)]))
    }

    func idf(documentFrequency: Int) -> Float {
        let n = Float(liveDocumentCount)
        let df = Float(documentFrequency)
        return logf(1 + (n - df + 0.5) / (df + 0.5))
    }

    /// Exact top-k by BM25F among the documents the filter admits.
    public func search(_ query: String, filter: SearchFilter, k: Int = 10) -> [SearchHit] {
        search(terms: queryTerms(query).map { ($0.term, Float($0.count)) }, filter: filter, k: k)
    }

    /// Scores weighted terms; the weight multiplies a term's contribution (1 for plain queries).
    public func search(terms: [(term: String, weight: Float)], filter: SearchFilter, k: Int) -> [SearchHit] {
        guard k > 0, liveDocumentCount > 0 else { return [] }
        let count = Self.fieldCount
        let k1 = configuration.k1
        var scores = [Float](repeating: 0, count: alive.count)
        var touched: [Int32] = []
        touched.reserveCapacity(1024)
        var verdicts = initialVerdicts(filter)
        for (term, weight) in terms where weight > 0 {
            guard let id = termIDs[term] else { continue }
            let df = Int(documentFrequency[Int(id)])
            guard df > 0 else { continue }
            let termWeight = idf(documentFrequency: df) * weight
            let docs = postingDocs[Int(id)]
            let frequencies = postingFrequencies[Int(id)]
            docs.withUnsafeBufferPointer { docs in
            frequencies.withUnsafeBufferPointer { frequencies in
            fieldNorms.withUnsafeBufferPointer { norms in
            documentStory.withUnsafeBufferPointer { documentStory in
            alive.withUnsafeBufferPointer { alive in
            scores.withUnsafeMutableBufferPointer { scores in
            verdicts.withUnsafeMutableBufferPointer { verdicts in
                for position in 0..<docs.count {
                    let document = Int(docs[position])
                    let story = Int(documentStory[document])
                    var verdict = verdicts[story]
                    if verdict == 0 {
                        verdict = admits(story, filter) ? 1 : 2
                        verdicts[story] = verdict
                    }
                    guard verdict == 1, alive[document] else { continue }
                    var tf: Float = 0
                    let base = position &* count
                    let normBase = document &* count
                    for field in 0..<count {
                        tf += Float(frequencies[base &+ field]) * norms[normBase &+ field]
                    }
                    guard tf > 0 else { continue }
                    if scores[document] == 0 { touched.append(Int32(document)) }
                    scores[document] += termWeight * tf / (k1 + tf)
                }
            }}}}}}}
        }
        var heap = TopK(capacity: k)
        scores.withUnsafeBufferPointer { scores in
            for document in touched { heap.offer(score: scores[Int(document)], document: document) }
        }
        return hits(heap)
    }

    /// Per story: 0 not yet decided, 1 admitted, 2 rejected. Public stories are admitted up
    /// front when the filter is about access only, so the common case never calls `admits`.
    func initialVerdicts(_ filter: SearchFilter) -> [UInt8] {
        filter.isAccessOnly ? publicVerdicts : [UInt8](repeating: 0, count: stories.count)
    }

    @inline(never)
    func admits(_ story: Int, _ filter: SearchFilter) -> Bool {
        stories.withUnsafeBufferPointer { filter.admits($0[story]) }
    }

}
