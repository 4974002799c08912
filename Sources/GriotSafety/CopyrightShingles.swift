/// A text as the copyright check compares it: letters and digits lowercased, every run of
/// anything else one space, hashed into overlapping character shingles. Each shingle keeps
/// the UTF-16 offset where it starts in the original text, so a finding points into the output.
///
/// ```swift
/// let shingles = CopyrightShingles("Ida Mae rowed.", length: 5)
/// shingles.hashes.count   // 9 ("ida m", "da ma", …)
/// ```
struct CopyrightShingles {
    static let defaultLength = 5

    /// One hash per shingle, in text order.
    var hashes: [UInt64] = []
    /// UTF-16 offset in the original text where each normalised character came from, plus the end.
    var offsets: [Int] = []
    let length: Int

    init(_ text: String, length: Int = defaultLength) {
        self.length = length
        var normalized: [UInt32] = []
        normalized.reserveCapacity(text.utf16.count)
        offsets.reserveCapacity(text.utf16.count + 1)
        var utf16Offset = 0
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            if properties.isAlphabetic || properties.numericType != nil {
                if pendingSpace, !normalized.isEmpty {
                    normalized.append(32)
                    offsets.append(utf16Offset)
                }
                pendingSpace = false
                let folded = scalar.isASCII ? (scalar.value &- 65 < 26 ? scalar.value | 0x20 : scalar.value)
                                            : (properties.lowercaseMapping.unicodeScalars.first?.value ?? scalar.value)
                normalized.append(folded)
                offsets.append(utf16Offset)
            } else {
                pendingSpace = true
            }
            utf16Offset += scalar.utf16.count
        }
        offsets.append(utf16Offset)
        guard normalized.count >= length else { return }
        hashes.reserveCapacity(normalized.count - length + 1)
        for start in 0...(normalized.count - length) {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for index in start..<(start + length) {
                hash = (hash ^ UInt64(normalized[index])) &* 0x0000_0100_0000_01b3
            }
            hashes.append(hash)
        }
    }

    /// Normalised characters, the unit windows are measured in.
    var characterCount: Int { offsets.count - 1 }

    /// The UTF-16 range of the original text that shingles `first..<last` (exclusive) cover.
    func utf16Range(shingles range: Range<Int>) -> Range<Int> {
        offsets[range.lowerBound]..<offsets[min(range.upperBound - 1 + length, characterCount)]
    }
}
