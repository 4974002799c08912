/// Parses the text of a `.tiktoken` rank file: lines of base64 bytes, one space, a decimal
/// rank (tiktoken's `load_tiktoken_bpe`). Written by hand because decoding 200,000 base64
/// lines through Foundation takes most of a second; this takes a few milliseconds.
enum RankFileParser {
    /// Every token's bytes, concatenated in file order, with its rank.
    struct Entries {
        var bytes: [UInt8] = []
        /// Where token i's bytes start; one more entry than there are tokens.
        var starts: [UInt32] = [0]
        var ranks: [UInt32] = []
    }

    static func parse(_ text: UnsafeBufferPointer<UInt8>, path: String) throws -> Entries {
        var entries = Entries()
        entries.bytes.reserveCapacity(text.count / 2)
        var lineStart = 0
        var lineNumber = 0
        while lineStart < text.count {
            lineNumber += 1
            var lineEnd = lineStart
            while lineEnd < text.count && text[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            let next = lineEnd + 1
            if lineEnd > lineStart && text[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            if lineEnd > lineStart {
                try parseLine(text, from: lineStart, to: lineEnd, into: &entries, line: lineNumber, path: path)
            }
            lineStart = next
        }
        return entries
    }

    private static func parseLine(_ text: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
                                  into entries: inout Entries, line: Int, path: String) throws {
        func damaged(_ what: String) -> BytePairEncoderError {
            .rankFileUnreadable(path: path, reason: "line \(line) \(what)")
        }
        var space = start
        while space < end && text[space] != UInt8(ascii: " ") { space += 1 }
        guard space < end, space > start else { throw damaged("is not \"<base64 token> <rank>\"") }

        var rank: UInt64 = 0
        var digit = space + 1
        guard digit < end else { throw damaged("has no rank after the space") }
        while digit < end {
            let value = text[digit] &- UInt8(ascii: "0")
            guard value < 10 else { throw damaged("has a rank that is not a decimal number") }
            rank = rank * 10 + UInt64(value)
            guard rank < UInt64(Int32.max) else { throw damaged("has a rank too large for a token id") }
            digit += 1
        }

        // Base64: four characters carry three bytes; '=' pads the last group.
        var accumulator: UInt32 = 0
        var bits = 0
        var index = start
        while index < space {
            let character = text[index]
            if character == UInt8(ascii: "=") { break }
            let value = base64Values[Int(character)]
            guard value < 64 else { throw damaged("has a token that is not base64") }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                entries.bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
            index += 1
        }
        entries.starts.append(UInt32(entries.bytes.count))
        entries.ranks.append(UInt32(rank))
    }

    /// The value of each base64 character, 64 for any other byte.
    private static let base64Values: [UInt8] = {
        var values = [UInt8](repeating: 64, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            values[Int(character)] = UInt8(value)
        }
        return values
    }()
}
