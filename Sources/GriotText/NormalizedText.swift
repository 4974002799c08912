import Foundation

/// A text as the safety checks read it, with the way back to what was written.
///
/// The view is built in passes, each optional: Unicode NFKC (full-width forms, ligatures,
/// non-breaking spaces), invisible and format characters removed (zero-width space and joiners,
/// soft hyphen, word joiner, BOM, direction marks, variation selectors), digits of any script
/// read as ASCII digits ("٥٥٥", "５５５", "५५५"), dashes and other punctuation look-alikes read as
/// ASCII ("555‑0187"), letters that look Latin folded to Latin where the text is Latin (below),
/// and readings a check may ask for: spelled-out digits, emails written "at … dot", letters
/// spread out with spaces, symbols standing in for letters.
///
/// The original is never changed: a check runs on `text` and maps each span it finds back with
/// `originalRange(of:)`, so a mask or a highlight lands on exactly the characters the person
/// wrote (a span that touches a rewritten character covers all of it; an invisible character
/// inside a span is covered, at its edges it is left out).
///
/// Look-alike letters (Unicode's confusables table, UTS #39) are folded only where folding
/// cannot damage a real word: a look-alike from another script ("а", Cyrillic) is folded inside
/// a word that also holds Latin letters ("kаt"), or in a word made only of look-alikes when the
/// text around it is Latin ("ѕех" in an English sentence). In a Russian or Greek text the same
/// letters stay as written, so "рука" is read as Russian, not as "pyka".
///
/// ```swift
/// let view = NormalizedText("Call ５５５‑０１８７", options: .pii)
/// view.text                                             // "Call 555-0187"
/// let span = view.text.range(of: "555-0187")!
/// view.original[view.originalRange(of: span)]          // "５５５‑０１８７"
/// ```
public struct NormalizedText: Sendable {
    /// Which passes and readings to make. `standard` is what every check wants; `pii` and
    /// `moderation` add the readings those checks need.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Unicode NFKC: full-width and other compatibility forms become plain characters.
        public static let compatibility = Options(rawValue: 1 << 0)
        /// Format characters (zero-width space, joiners, soft hyphen, BOM, direction marks) and
        /// variation selectors removed.
        public static let removeInvisible = Options(rawValue: 1 << 1)
        /// Decimal digits of every script read as ASCII digits.
        public static let asciiDigits = Options(rawValue: 1 << 2)
        /// Look-alikes of ASCII punctuation ("‐", "‑", "–", "−", "‚") read as it, and look-alike
        /// letters folded to Latin where the text is Latin.
        public static let foldLookalikes = Options(rawValue: 1 << 3)
        /// "five five five, oh one eight seven" read as "555 0187" (three or more number words).
        public static let readSpelledDigits = Options(rawValue: 1 << 4)
        /// "ida.mae at gmail dot com", "ida [at] gmail [dot] com" read as "ida.mae@gmail.com".
        public static let readSpelledEmail = Options(rawValue: 1 << 5)
        /// "k i l l", "k.i.l.l" read as "kill" (three or more single letters, one separator).
        public static let joinSpacedLetters = Options(rawValue: 1 << 6)
        /// Symbols and digits standing in for letters inside a word read as letters ("f@g" as
        /// "fag", "sh!t", "$hit", "k1ll", "h4te"); masking symbols inside a word ("k*ll",
        /// "f#ck", "f__k") read as `censorMark`, which a check may take for any one letter.
        public static let uncensorLetters = Options(rawValue: 1 << 7)
        /// A number read out one digit at a time with a separator after each ("4 1 2 - 5 5 5 - 0 1 8 7",
        /// "4.1.2.-.5.5.5", "4_1_2"), seven digits or more, read as "412-555-0187": the separator
        /// that follows most digits goes, a longer or other one marks a group.
        public static let joinSpacedDigits = Options(rawValue: 1 << 8)

        public static let standard: Options = [.compatibility, .removeInvisible, .asciiDigits, .foldLookalikes]
        public static let pii: Options = [.standard, .readSpelledDigits, .readSpelledEmail, .joinSpacedDigits]
        public static let moderation: Options = [.standard, .joinSpacedLetters, .uncensorLetters]
    }

    /// What `uncensorLetters` leaves where a symbol hid a letter.
    public static let censorMark: Character = "*"

    /// The text as written.
    public let original: String
    /// The normalised view.
    public let text: String
    public let options: Options
    /// The passes that changed something, first to last; empty when `text == original`.
    private let passes: [TextEdits]

    public init(_ original: String, options: Options = .standard) {
        self.original = original
        self.options = options
        // The original's bytes are read in place; a copy is made only once a pass changes them.
        var current: [UInt8]?
        var passes: [TextEdits] = []
        func read<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            if let current { return current.withUnsafeBufferPointer(body) }
            if let result = original.utf8.withContiguousStorageIfAvailable(body) { return result }
            return Array(original.utf8).withUnsafeBufferPointer(body)
        }
        func run(_ pass: (UnsafeBufferPointer<UInt8>) -> TextEdits) {
            let edits = read(pass)
            guard !edits.isEmpty else { return }
            current = read { edits.apply(to: $0) }
            passes.append(edits)
        }
        let characterPass: Options = [.compatibility, .removeInvisible, .asciiDigits, .foldLookalikes]
        if !options.isDisjoint(with: characterPass), !read(Self.isASCII) {
            run { Self.characterEdits(in: $0, options: options) }
            if options.contains(.foldLookalikes), !read(Self.isASCII) {
                run { Self.lookalikeEdits(in: $0) }
            }
        }
        let readings: Options = [.readSpelledDigits, .readSpelledEmail, .joinSpacedLetters, .uncensorLetters, .joinSpacedDigits]
        if !options.isDisjoint(with: readings) {
            run { Self.readingEdits(in: $0, options: options) }
        }
        self.passes = passes
        text = current.map { String(decoding: $0, as: UTF8.self) } ?? original
    }

    /// No byte has its high bit set; eight bytes at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var index = 0
        let raw = UnsafeRawPointer(base)
        while index + 8 <= bytes.count {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }

    /// True when the view is the original, byte for byte (offsets need no mapping).
    public var isUnchanged: Bool { passes.isEmpty }

    // MARK: - Back to the original

    /// The original UTF-8 byte range a UTF-8 byte range of `text` came from.
    public func originalUTF8Range(of range: Range<Int>) -> Range<Int> {
        var range = range
        for pass in passes.reversed() { range = pass.inputRange(of: range) }
        return range
    }

    /// The original characters a range of `text` came from.
    public func originalRange(of range: Range<String.Index>) -> Range<String.Index> {
        let lower = text.utf8.distance(from: text.startIndex, to: range.lowerBound)
        let upper = text.utf8.distance(from: text.startIndex, to: range.upperBound)
        let mapped = originalUTF8Range(of: lower..<upper)
        let start = original.utf8.index(original.startIndex, offsetBy: mapped.lowerBound)
        let end = original.utf8.index(start, offsetBy: mapped.count)
        return start..<end
    }

    /// Original UTF-16 ranges (what `NSString` and JSON clients count) of UTF-8 byte ranges of
    /// `text`, sorted by start, in one walk over the original.
    public func originalUTF16Ranges(of ranges: [Range<Int>]) -> [Range<Int>] {
        let byteRanges = ranges.map(originalUTF8Range(of:))
        if let ranges = original.utf8.withContiguousStorageIfAvailable({ Self.utf16Ranges(byteRanges, in: $0) }) {
            return ranges
        }
        return Array(original.utf8).withUnsafeBufferPointer { Self.utf16Ranges(byteRanges, in: $0) }
    }

    private static func utf16Ranges(_ byteRanges: [Range<Int>], in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        // Walk once in byte order; ranges may overlap or come out of order after widening, so
        // each bound is found from the sorted list of all bounds.
        var bounds = byteRanges.flatMap { [$0.lowerBound, $0.upperBound] }
        bounds.sort()
        var utf16At: [Int: Int] = [:]
        var byteOffset = 0, utf16Offset = 0
        for bound in bounds {
            while byteOffset < bound {
                let byte = bytes[byteOffset]
                if byte < 0x80 || byte >= 0xC0 { utf16Offset += byte >= 0xF0 ? 2 : 1 }
                byteOffset += 1
            }
            utf16At[bound] = utf16Offset
        }
        return byteRanges.map { utf16At[$0.lowerBound]!..<utf16At[$0.upperBound]! }
    }
}
