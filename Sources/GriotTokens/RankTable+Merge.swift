extension RankTable {
    /// Pieces up to this many bytes merge with the simple quadratic loop tiktoken uses;
    /// longer ones (a base64 blob, a line of dashes) with a heap, so that a 100 kB piece
    /// costs milliseconds rather than minutes. Both give the same tokens.
    static let longPieceBytes = 128

    /// Byte-pair merges `count` bytes (at least two) and writes the tokens to `output`,
    /// which has room for `count`; returns how many it wrote.
    ///
    /// tiktoken's rule, followed exactly: start from single bytes; repeatedly join the
    /// adjacent pair whose joined bytes have the lowest rank, the leftmost pair among equal
    /// ranks, until no adjacent pair is a token. Each part is then the token of its bytes.
    @inline(__always) func merge(_ bytes: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt32>) -> Int {
        count <= RankTable.longPieceBytes
            ? mergeShort(bytes, count: count, into: output)
            : mergeLong(bytes, count: count, into: output)
    }

    /// The quadratic loop: parts as arrays of start offsets, pair ranks and tokens,
    /// one linear scan for the lowest rank per merge.
    func mergeShort(_ bytes: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt32>) -> Int {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 2 * (count + 1)) { scratch in
            let starts = scratch.baseAddress!
            let pairRanks = starts + (count + 1)
            // Part k covers bytes starts[k] ..< starts[k + 1]; the last entry is the end.
            // pairRanks[k] is the rank of parts k and k + 1 joined.
            var parts = count
            for k in 0..<count {
                starts[k] = UInt32(k)
                output[k] = byteRanks[Int(bytes[k])]
                pairRanks[k] = k + 1 < count ? pairRank(bytes + k) : RankTable.absent
            }
            starts[count] = UInt32(count)

            while true {
                var lowest = RankTable.absent
                var at = 0
                for k in 0..<(parts - 1) where pairRanks[k] < lowest {
                    lowest = pairRanks[k]
                    at = k
                }
                if lowest == RankTable.absent { break }
                output[at] = lowest
                // Drop part at + 1: shift what follows it one place left.
                let moved = parts - (at + 1)
                (starts + at + 1).update(from: starts + at + 2, count: moved)  // includes the end entry
                if moved > 1 {
                    (pairRanks + at + 1).update(from: pairRanks + at + 2, count: moved - 1)
                    (output + at + 1).update(from: output + at + 2, count: moved - 1)
                }
                parts -= 1
                pairRanks[at] = at + 1 < parts ? joinedRank(bytes, starts, at) : RankTable.absent
                if at > 0 { pairRanks[at - 1] = joinedRank(bytes, starts, at - 1) }
            }
            return parts
        }
    }

    /// The rank of parts k and k + 1 joined.
    @inline(__always) private func joinedRank(_ bytes: UnsafePointer<UInt8>, _ starts: UnsafePointer<UInt32>, _ k: Int) -> UInt32 {
        let start = Int(starts[k])
        return rank(of: bytes + start, count: Int(starts[k + 2]) - start)
    }

    /// The heap version: parts as a doubly linked list over byte offsets, candidate pairs in
    /// a min-heap keyed by (rank, start offset), which picks the same pair as the scan:
    /// the lowest rank, leftmost on ties. A popped pair whose rank has changed since it was
    /// pushed is stale and skipped.
    func mergeLong(_ bytes: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt32>) -> Int {
        // Indexed by the byte offset where a part starts; meaningful only for live parts.
        let next = UnsafeMutablePointer<Int32>.allocate(capacity: count)  // the next part's start, or count
        let previous = UnsafeMutablePointer<Int32>.allocate(capacity: count)  // -1 for the first part
        let pairRank = UnsafeMutablePointer<UInt32>.allocate(capacity: count)  // this part joined with the next
        let token = UnsafeMutablePointer<UInt32>.allocate(capacity: count)
        var heap = [UInt64]()
        heap.reserveCapacity(count)
        defer {
            next.deallocate()
            previous.deallocate()
            pairRank.deallocate()
            token.deallocate()
        }

        for k in 0..<count {
            next[k] = Int32(k + 1)
            previous[k] = Int32(k - 1)
            token[k] = byteRanks[Int(bytes[k])]
            pairRank[k] = k + 1 < count ? self.pairRank(bytes + k) : RankTable.absent
            if pairRank[k] != RankTable.absent { heap.append(UInt64(pairRank[k]) << 32 | UInt64(k)) }
        }
        MinHeap.heapify(&heap)

        func rankAfter(_ part: Int) -> UInt32 {
            let following = Int(next[part])
            guard following < count else { return RankTable.absent }
            return rank(of: bytes + part, count: Int(next[following]) - part)
        }

        while let entry = MinHeap.popMin(&heap) {
            let part = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)
            let entryRank = UInt32(truncatingIfNeeded: entry >> 32)
            // A part that was absorbed has pairRank absent (set below), so it is skipped too.
            guard pairRank[part] == entryRank else { continue }
            let absorbed = Int(next[part])
            token[part] = entryRank
            next[part] = next[absorbed]
            if Int(next[absorbed]) < count { previous[Int(next[absorbed])] = Int32(part) }
            pairRank[absorbed] = RankTable.absent
            pairRank[part] = rankAfter(part)
            if pairRank[part] != RankTable.absent { MinHeap.push(&heap, UInt64(pairRank[part]) << 32 | UInt64(part)) }
            let before = Int(previous[part])
            if before >= 0 {
                pairRank[before] = rankAfter(before)
                if pairRank[before] != RankTable.absent { MinHeap.push(&heap, UInt64(pairRank[before]) << 32 | UInt64(before)) }
            }
        }

        var written = 0
        var part = 0
        while part < count {
            output[written] = token[part]
            written += 1
            part = Int(next[part])
        }
        return written
    }
}

/// A binary min-heap over a plain array, for the long-piece merge.
enum MinHeap {
    static func heapify(_ heap: inout [UInt64]) {
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(&heap, index) }
    }

    static func push(_ heap: inout [UInt64], _ value: UInt64) {
        heap.append(value)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    static func popMin(_ heap: inout [UInt64]) -> UInt64? {
        guard let last = heap.popLast() else { return nil }
        guard !heap.isEmpty else { return last }
        let top = heap[0]
        heap[0] = last
        siftDown(&heap, 0)
        return top
    }

    private static func siftDown(_ heap: inout [UInt64], _ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count && heap[left + 1] < heap[left] { smallest = left + 1 }
            guard heap[smallest] < heap[parent] else { return }
            heap.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
