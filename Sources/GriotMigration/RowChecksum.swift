import Crypto
import Foundation

/// SHA-256 over a table's rows in key order, fed the same `CellValue`s from either database, so
/// two equal tables give equal digests whichever side read them. Each cell is tagged and
/// length-prefixed: a null is not an empty string, and `"ab","c"` is not `"a","bc"`.
struct RowChecksum {
    private var hasher = SHA256()
    private(set) var rows = 0

    mutating func add(_ row: [CellValue]) {
        for cell in row {
            switch cell {
            case .null: hasher.update(data: [0])
            case .integer(let value): feed(tag: 1, value.bigEndian)
            case .double(let value): feed(tag: 2, value.bitPattern.bigEndian)
            case .text(let value): feed(tag: 3, Array(value.utf8))
            case .blob(let value): feed(tag: 4, value)
            case .timestamp(let microseconds): feed(tag: 5, microseconds.bigEndian)
            }
        }
        rows += 1
    }

    /// The digest in hex.
    func finalize() -> String {
        hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    private mutating func feed(tag: UInt8, _ bytes: [UInt8]) {
        hasher.update(data: [tag])
        feed(tag: nil, UInt64(bytes.count).bigEndian)
        hasher.update(data: bytes)
    }

    private mutating func feed<Integer: FixedWidthInteger>(tag: UInt8?, _ value: Integer) {
        if let tag { hasher.update(data: [tag]) }
        withUnsafeBytes(of: value) { hasher.update(bufferPointer: $0) }
    }
}
