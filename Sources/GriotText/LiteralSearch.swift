#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Substring search and replacement on UTF-8 bytes, for text the caller has already lowercased
/// and normalised.
///
/// ```swift
/// "we were 3 of the family's stories".containsLiteral("3 of the")     // true
/// "i can’t".replacingLiteral("’", with: "'")                            // "i can't"
/// ```
/// With Foundation imported, `String.contains(_:)` and `replacingOccurrences(of:with:)` go
/// through `CFStringFind`, which folds every character cluster as it compares: in
/// `griot-bench serve-load` the moderator's and the groundedness scorer's phrase lookups spent
/// 10 % of the service's CPU there. A byte comparison (`memmem`) is exact: UTF-8 is
/// self-synchronising, so a match starts and ends on scalar boundaries. It does not treat
/// canonically equivalent spellings as equal ("é" as one scalar or as "e" and a combining
/// accent), which is why the text is normalised first.
extension StringProtocol {
    /// Whether `needle`'s bytes occur in this text; an empty needle is found.
    public func containsLiteral(_ needle: some StringProtocol) -> Bool {
        var text = String(self)
        var pattern = String(needle)
        return text.withUTF8 { text in pattern.withUTF8 { LiteralSearch.firstOffset(of: $0, in: text, from: 0) != nil } }
    }

    /// The text with every occurrence of `target` (left to right, not overlapping) replaced.
    public func replacingLiteral(_ target: some StringProtocol, with replacement: some StringProtocol) -> String {
        var text = String(self)
        guard !target.isEmpty else { return text }
        var pattern = String(target)
        let replaced = text.withUTF8 { text in
            pattern.withUTF8 { pattern -> [UInt8]? in
                guard var found = LiteralSearch.firstOffset(of: pattern, in: text, from: 0) else { return nil }
                var out: [UInt8] = []
                out.reserveCapacity(text.count)
                var start = 0
                while true {
                    out.append(contentsOf: text[start..<found])
                    out.append(contentsOf: replacement.utf8)
                    start = found + pattern.count
                    guard let next = LiteralSearch.firstOffset(of: pattern, in: text, from: start) else { break }
                    found = next
                }
                out.append(contentsOf: text[start...])
                return out
            }
        }
        return replaced.map { String(decoding: $0, as: UTF8.self) } ?? text
    }
}

private enum LiteralSearch {
    /// The byte offset of the first occurrence of `pattern` at or after `from`: its first byte
    /// found with `memchr`, the rest compared with `memcmp`.
    static func firstOffset(of pattern: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard !pattern.isEmpty else { return from <= haystack.count ? from : nil }
        guard let base = haystack.baseAddress, let patternBase = pattern.baseAddress else { return nil }
        let first = Int32(pattern[0])
        var start = from
        while start + pattern.count <= haystack.count {
            guard let hit = memchr(base + start, first, haystack.count - start - pattern.count + 1) else { return nil }
            let offset = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            if memcmp(base + offset, patternBase, pattern.count) == 0 { return offset }
            start = offset + 1
        }
        return nil
    }
}
