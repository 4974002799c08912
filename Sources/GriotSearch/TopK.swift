/// Keeps the k best (score, document) pairs seen so far in a min-heap: O(n log k) for n offers.
/// Ties go to the lower document number, so rankings are stable from run to run.
struct TopK {
    struct Entry {
        var score: Float
        var document: Int32
    }

    let capacity: Int
    private var heap: [Entry] = []

    init(capacity: Int) {
        self.capacity = capacity
        heap.reserveCapacity(min(capacity, 4096))
    }

    /// True when `a` ranks below `b`.
    @inline(__always)
    private static func worse(_ a: Entry, _ b: Entry) -> Bool {
        a.score < b.score || (a.score == b.score && a.document > b.document)
    }

    mutating func offer(score: Float, document: Int32) {
        let entry = Entry(score: score, document: document)
        if heap.count < capacity {
            heap.append(entry)
            siftUp(heap.count - 1)
        } else if Self.worse(heap[0], entry) {
            heap[0] = entry
            siftDown(0)
        }
    }

    func sortedDescending() -> [Entry] {
        heap.sorted { Self.worse($1, $0) }
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.worse(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        let count = heap.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { break }
            var smallest = left
            let right = left + 1
            if right < count, Self.worse(heap[right], heap[left]) { smallest = right }
            guard Self.worse(heap[smallest], heap[parent]) else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
