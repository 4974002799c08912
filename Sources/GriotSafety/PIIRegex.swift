import CPCRE2

/// One PCRE2 pattern over UTF-8 bytes, compiled and JIT-compiled once, then shared read-only
/// across threads (PCRE2 allows that; each match needs its own `PIIRegex.MatchData`).
///
///     let regex = try PIIRegex(#"\d+"#)
///     let data = regex.makeMatchData()
///     if let range = regex.firstMatch(in: bytes, from: 0, data: data) { … }
final class PIIRegex: @unchecked Sendable {
    /// PCRE2's own constants, spelled out because Swift does not see every macro.
    private static let anchoredOption: UInt32 = 0x8000_0000
    private static let jitComplete: UInt32 = 0x0000_0001

    let pattern: String
    private let code: OpaquePointer
    private let isJIT: Bool

    /// `anchored`: every match starts where the search does. JIT-compiled code ignores the
    /// match-time option, so a pattern only ever tried at one place is compiled anchored.
    init(_ pattern: String, anchored: Bool = false) throws {
        self.pattern = pattern
        var errorCode: Int32 = 0
        var errorOffset = 0
        let compiled: OpaquePointer? = pattern.utf8CString.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UInt8.self) { bytes in
                pcre2_compile_8(bytes.baseAddress, bytes.count - 1, anchored ? Self.anchoredOption : 0, &errorCode, &errorOffset, nil)
            }
        }
        guard let compiled else {
            var message = [UInt8](repeating: 0, count: 256)
            let length = pcre2_get_error_message_8(errorCode, &message, message.count)
            throw PIIScrubberError.badPattern(
                String(decoding: message.prefix(max(0, Int(length))), as: UTF8.self) + " at offset \(errorOffset)")
        }
        code = compiled
        isJIT = pcre2_jit_compile_8(compiled, Self.jitComplete) == 0
    }

    deinit { pcre2_code_free_8(code) }

    /// Room for the whole match and every capture group; one per call, never shared.
    final class MatchData {
        let pointer: OpaquePointer
        init(for code: OpaquePointer) { pointer = pcre2_match_data_create_from_pattern_8(code, nil) }
        deinit { pcre2_match_data_free_8(pointer) }
    }

    func makeMatchData() -> MatchData { MatchData(for: code) }

    /// The next match at or after `start`: the whole match's byte range and the index of the
    /// first capture group that took part (0 when none did).
    func firstMatch(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, anchored: Bool = false,
                    data: MatchData) -> (range: Range<Int>, group: Int)? {
        guard start <= bytes.count, let base = bytes.baseAddress else { return nil }
        let options = anchored ? Self.anchoredOption : 0
        let rc = isJIT
            ? pcre2_jit_match_8(code, base, bytes.count, start, options, data.pointer, nil)
            : pcre2_match_8(code, base, bytes.count, start, options, data.pointer, nil)
        guard rc > 0, let ovector = pcre2_get_ovector_pointer_8(data.pointer) else { return nil }
        var group = 0
        for index in 1..<Int(rc) {
            // An unset group holds PCRE2_UNSET, ~0, which is -1 here.
            let groupStart = Int(truncatingIfNeeded: ovector[2 * index])
            if groupStart >= 0 && groupStart <= bytes.count {
                group = index
                break
            }
        }
        return (Int(truncatingIfNeeded: ovector[0])..<Int(truncatingIfNeeded: ovector[1]), group)
    }
}

public enum PIIScrubberError: Error, CustomStringConvertible {
    case badPattern(String)

    public var description: String {
        switch self {
        case .badPattern(let reason):
            return "A PII pattern did not compile (\(reason)); this is a bug in GriotSafety, please report it."
        }
    }
}
