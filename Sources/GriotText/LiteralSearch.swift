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
        firstLiteralOffset(of: needle, from: 0) != nil
    }

    /// The text with every occurrence of `target` (left to right, not overlapping) replaced.
    public func replacingLiteral(_ target: some StringProtocol, with replacement: some StringProtocol) -> String {
        guard !target.isEmpty, var found = firstLiteralOffset(of: target, from: 0) else { return String(self) }
        let bytes = Array(utf8)
        let targetCount = target.utf8.count
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var start = 0
        while true {
            out.append(contentsOf: bytes[start..<found])
            out.append(contentsOf: replacement.utf8)
            start = found + targetCount
            guard let next = firstLiteralOffset(of: target, from: start) else { break }
            found = next
        }
        out.append(contentsOf: bytes[start...])
        return String(decoding: out, as: UTF8.self)
    }

    /// The byte offset of the first occurrence of `needle` at or after `from`.
    func firstLiteralOffset(of needle: some StringProtocol, from: Int) -> Int? {
        var haystack = String(self)
        var pattern = String(needle)
        return haystack.withUTF8 { haystack in
            pattern.withUTF8 { pattern in Self.firstOffset(of: pattern, in: haystack, from: from) }
        }
    }

    /// The first byte of the pattern found with `memchr`, the rest compared with `memcmp`.
    private static func firstOffset(of pattern: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
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
