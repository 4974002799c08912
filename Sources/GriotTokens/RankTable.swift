import Foundation

/// The mergeable ranks of one encoding (a tiktoken `.tiktoken` file): every token's bytes
/// and its rank, which is both its id and its merge priority (lower merges first).
///
///     let table = try RankTable(contentsOf: folder.appending(path: "cl100k_base.tiktoken"))
///     table.rank(of: pointer, count: 5)   // the rank of those five bytes, or RankTable.absent
///
/// Looking up a byte sequence is the inner loop of encoding, so the table is an
/// open-addressing hash over the raw bytes: no `String` or `Array` is made per look-up.
/// Each slot holds the key's first eight bytes and its length beside the rank, so a key of
/// up to eight bytes (most of them) is found or ruled out without reading anything else;
/// pairs of bytes, where every merge starts, are a direct 65,536-entry table.
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
    /// One slot of the open-addressing table: a key's first eight bytes, and its length
    /// beside its rank (`length << 32 | rank + 1`, 0 for an empty slot).
    private struct Slot {
        var head: UInt64
        var meta: UInt64
    }

    private let slots: UnsafeMutablePointer<Slot>
    private let slotMask: Int
    /// The rank of every two-byte token by its bytes read as a little-endian UInt16.
    private let twoByteRanks: UnsafeMutablePointer<UInt32>
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
        slots.initialize(repeating: Slot(head: 0, meta: 0), count: capacity)
        twoByteRanks = .allocate(capacity: 0x10000)
        twoByteRanks.initialize(repeating: RankTable.absent, count: 0x10000)
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
        twoByteRanks.deallocate()
        byteRanks.deallocate()
    }

    private func insert(rank: UInt32, bytes: UnsafePointer<UInt8>, count: Int) {
        if count == 2 { twoByteRanks[Int(RankTable.head(bytes, 2))] = rank }
        let head = RankTable.head(bytes, count)
        let meta = UInt64(count) << 32 | UInt64(rank + 1)
        var index = Int(truncatingIfNeeded: RankTable.hash(bytes, count, head: head)) & slotMask
        while slots[index].meta != 0 {
            // Two ranks with the same bytes (tiktoken's files have none): the higher one wins.
            if matches(slots[index], bytes, count, head: head) { break }
            index = (index + 1) & slotMask
        }
        slots[index] = Slot(head: head, meta: meta)
    }

    /// The rank of `count` (at least 1) bytes at `bytes`, or `RankTable.absent`.
    @inline(__always) func rank(of bytes: UnsafePointer<UInt8>, count: Int) -> UInt32 {
        if count <= 2 {
            return count == 2 ? pairRank(bytes) : byteRanks[Int(bytes[0])]
        }
        let head = RankTable.head(bytes, count)
        var index = Int(truncatingIfNeeded: RankTable.hash(bytes, count, head: head)) & slotMask
        while true {
            let slot = slots[index]
            if slot.meta == 0 { return RankTable.absent }
            if matches(slot, bytes, count, head: head) { return UInt32(truncatingIfNeeded: slot.meta) &- 1 }
            index = (index &+ 1) & slotMask
        }
    }

    /// The rank of the two bytes at `bytes`, or `RankTable.absent`: a direct look-up, since
    /// every merge starts from pairs of bytes.
    @inline(__always) func pairRank(_ bytes: UnsafePointer<UInt8>) -> UInt32 {
        twoByteRanks[Int(UnsafeRawPointer(bytes).loadUnaligned(as: UInt16.self))]
    }

    /// Whether a slot holds these bytes: for keys of up to eight bytes the slot itself
    /// decides; a longer key's remaining bytes are compared with the stored token.
    @inline(__always) private func matches(_ slot: Slot, _ bytes: UnsafePointer<UInt8>, _ count: Int, head: UInt64) -> Bool {
        guard slot.head == head, slot.meta >> 32 == UInt64(count) else { return false }
        if count <= 8 { return true }
        let stored = UnsafeRawPointer(tokenBytes + Int(tokenStarts[Int(UInt32(truncatingIfNeeded: slot.meta) &- 1)]))
        let sought = UnsafeRawPointer(bytes)
        var offset = 8
        while offset + 8 < count {
            if stored.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != sought.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                return false
            }
            offset += 8
        }
        return stored.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) == sought.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }

    /// The bytes of a rank, or nil when the file lists no token with it.
    func bytes(ofRank rank: Int) -> UnsafeBufferPointer<UInt8>? {
        guard rank >= 0 && rank < rankCount else { return nil }
        let start = Int(tokenStarts[rank])
        let end = Int(tokenStarts[rank + 1])
        return end > start ? UnsafeBufferPointer(start: tokenBytes + start, count: end - start) : nil
    }

    /// The first eight bytes of a key (`count` at least 1), little-endian, zero-padded; read
    /// with two overlapping loads, never past the key's end.
    @inline(__always) static func head(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
        let raw = UnsafeRawPointer(bytes)
        if count >= 8 { return raw.loadUnaligned(as: UInt64.self) }
        if count >= 4 {
            let low = UInt64(raw.loadUnaligned(as: UInt32.self))
            let high = UInt64(raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            return low | high << UInt64((count - 4) * 8)
        }
        if count >= 2 {
            let low = UInt64(raw.loadUnaligned(as: UInt16.self))
            let high = UInt64(raw.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self))
            return low | high << UInt64((count - 2) * 8)
        }
        return UInt64(bytes[0])
    }

    /// A 64-bit hash of a key whose `head` is given: multiply-xorshift over eight-byte words.
    @inline(__always) static func hash(_ bytes: UnsafePointer<UInt8>, _ count: Int, head: UInt64) -> UInt64 {
        var hash = (head ^ UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15) &* 0xFF51_AFD7_ED55_8CCD
        if count > 8 {
            let raw = UnsafeRawPointer(bytes)
            var offset = 8
            while offset + 8 < count {
                hash ^= hash >> 29
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                offset += 8
            }
            hash ^= hash >> 29
            hash = (hash ^ raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
        }
        hash ^= hash >> 32
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 29
        return hash
    }
}
