import Foundation

/// The mergeable ranks of one encoding (a tiktoken `.tiktoken` file): every token's bytes
/// and its rank, which is both its id and its merge priority (lower merges first).
///
///     let table = try RankTable(contentsOf: folder.appending(path: "cl100k_base.tiktoken"))
///     table.rank(of: pointer, count: 5)   // the rank of those five bytes, or RankTable.absent
///
/// Looking up a byte sequence is the inner loop of encoding, so the table is an
/// open-addressing hash over the raw bytes: no `String` or `Array` is made per look-up.
/// Each slot holds 32 bits of the key's hash beside the rank, so a probe almost never
/// reads the stored bytes of a key that is not the one sought.
final class RankTable: @unchecked Sendable {
    // @unchecked: every buffer is written only during `init` and read-only afterwards.

    /// The rank of a byte sequence that is not a token.
    static let absent = UInt32.max

    /// One more than the highest rank.
    let rankCount: Int
    /// How many tokens the file lists.
    let tokenCount: Int
    /// The bytes of every token, concatenated in rank order.
    private let tokenBytes: UnsafeMutablePointer<UInt8>
    /// Where the bytes of rank r start; they end where r + 1's start (`rankCount + 1` entries).
    /// A rank the file does not list has no bytes.
    private let tokenStarts: UnsafeMutablePointer<UInt32>
    /// Open addressing: hash's high 32 bits << 32 | (rank + 1); 0 is an empty slot.
    private let slots: UnsafeMutablePointer<UInt64>
    private let slotMask: Int
    /// The rank of each single byte (byte-level BPE needs all 256).
    let byteRanks: UnsafeMutablePointer<UInt32>

    /// Reads a `.tiktoken` file: one token a line, as base64, a space and its rank.
    convenience init(contentsOf file: URL) throws {
        let path = file.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw BytePairEncoderError.rankFileMissing(path: path)
        }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw BytePairEncoderError.rankFileUnreadable(path: path, reason: "\(error)")
        }
        let entries = try data.withUnsafeBytes { raw in
            try RankFileParser.parse(raw.bindMemory(to: UInt8.self), path: path)
        }
        try self.init(entries: entries, path: path)
    }

    private init(entries: RankFileParser.Entries, path: String) throws {
        var highest = -1
        for rank in entries.ranks { highest = max(highest, Int(rank)) }
        let rankCount = highest + 1
        let tokenCount = entries.ranks.count
        self.rankCount = rankCount
        self.tokenCount = tokenCount
        guard tokenCount > 0 else {
            throw BytePairEncoderError.rankFileUnreadable(path: path, reason: "it lists no tokens")
        }

        // Token bytes in rank order, so that decoding is one copy per token.
        var lengths = [UInt32](repeating: 0, count: rankCount)
        var sourceStart = [Int](repeating: -1, count: rankCount)
        for index in 0..<tokenCount {
            let rank = Int(entries.ranks[index])
            lengths[rank] = entries.starts[index + 1] - entries.starts[index]
            sourceStart[rank] = Int(entries.starts[index])  // of two lines with one rank, the later wins
        }
        let starts = UnsafeMutablePointer<UInt32>.allocate(capacity: rankCount + 1)
        var total: UInt32 = 0
        for rank in 0..<rankCount {
            starts[rank] = total
            total += lengths[rank]
        }
        starts[rankCount] = total
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(Int(total), 1))
        entries.bytes.withUnsafeBufferPointer { source in
            for rank in 0..<rankCount where sourceStart[rank] >= 0 {
                (bytes + Int(starts[rank])).update(from: source.baseAddress! + sourceStart[rank], count: Int(lengths[rank]))
            }
        }
        tokenStarts = starts
        tokenBytes = bytes

        var capacity = 1024
        while capacity < tokenCount * 2 { capacity *= 2 }
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
        slotMask = capacity - 1
        byteRanks = .allocate(capacity: 256)
        byteRanks.initialize(repeating: RankTable.absent, count: 256)

        for rank in 0..<rankCount where sourceStart[rank] >= 0 {
            let start = tokenBytes + Int(tokenStarts[rank])
            let length = Int(lengths[rank])
            insert(rank: UInt32(rank), bytes: start, count: length)
            if length == 1 { byteRanks[Int(start[0])] = UInt32(rank) }
        }
        for byte in 0..<256 where byteRanks[byte] == RankTable.absent {
            throw BytePairEncoderError.rankFileUnreadable(
                path: path, reason: "it has no token for the single byte \(byte), so it is not a byte-level BPE rank file")
        }
    }

    deinit {
        tokenBytes.deallocate()
        tokenStarts.deallocate()
        slots.deallocate()
        byteRanks.deallocate()
    }

    private func insert(rank: UInt32, bytes: UnsafePointer<UInt8>, count: Int) {
        let hash = RankTable.hash(bytes, count)
        let tag = hash & 0xFFFF_FFFF_0000_0000
        var index = Int(truncatingIfNeeded: hash) & slotMask
        while slots[index] != 0 {
            // Two ranks with the same bytes (tiktoken's files have none): the higher one wins.
            if slots[index] & 0xFFFF_FFFF_0000_0000 == tag && matches(rank: UInt32(truncatingIfNeeded: slots[index]) - 1, bytes, count) {
                break
            }
            index = (index + 1) & slotMask
        }
        slots[index] = tag | UInt64(rank + 1)
    }

    /// The rank of `count` bytes at `bytes`, or `RankTable.absent`.
    @inline(__always) func rank(of bytes: UnsafePointer<UInt8>, count: Int) -> UInt32 {
        let hash = RankTable.hash(bytes, count)
        let tag = hash & 0xFFFF_FFFF_0000_0000
        var index = Int(truncatingIfNeeded: hash) & slotMask
        while true {
            let slot = slots[index]
            if slot == 0 { return RankTable.absent }
            if slot & 0xFFFF_FFFF_0000_0000 == tag {
                let rank = UInt32(truncatingIfNeeded: slot) &- 1
                if matches(rank: rank, bytes, count) { return rank }
            }
            index = (index &+ 1) & slotMask
        }
    }

    @inline(__always) private func matches(rank: UInt32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        let start = Int(tokenStarts[Int(rank)])
        guard Int(tokenStarts[Int(rank) + 1]) - start == count else { return false }
        return memcmp(tokenBytes + start, bytes, count) == 0
    }

    /// The bytes of a rank, or nil when the file lists no token with it.
    func bytes(ofRank rank: Int) -> UnsafeBufferPointer<UInt8>? {
        guard rank >= 0 && rank < rankCount else { return nil }
        let start = Int(tokenStarts[rank])
        let end = Int(tokenStarts[rank + 1])
        return end > start ? UnsafeBufferPointer(start: tokenBytes + start, count: end - start) : nil
    }

    /// A 64-bit hash of a short byte string: eight bytes at a time, multiply-xorshift mixed.
    @inline(__always) static func hash(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
        var hash = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        var offset = 0
        while offset &+ 8 <= count {
            let word = UnsafeRawPointer(bytes + offset).loadUnaligned(as: UInt64.self)
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 29
            offset &+= 8
        }
        if offset < count {
            var word: UInt64 = 0
            var shift: UInt64 = 0
            while offset < count {
                word |= UInt64(bytes[offset]) << shift
                shift &+= 8
                offset &+= 1
            }
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
        }
        hash ^= hash >> 32
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 29
        return hash
    }
}
