import Foundation

/// The uncased BERT tokenizer of all-MiniLM-L6-v2, written to give exactly the ids of
/// Hugging Face's `BertTokenizerFast` (the `tokenizers` library's BertNormalizer,
/// BertPreTokenizer and WordPiece model, which sentence-transformers uses) for
/// `do_lower_case=True`, `tokenize_chinese_chars=True` and accents stripped.
///
///     let tokenizer = try WordPieceTokenizer(vocabularyFile: modelFolder.appending(path: "vocab.txt"))
///     let ids = tokenizer.encode("Hello, wörld!")          // [101, 7592, 1010, 2088, 999, 102]
///     let pieces = tokenizer.wordPieces("unaffable")      // ["una", "##ffa", "##ble"]
///
/// The steps, in the order the fast tokenizer runs them:
/// 1. The special tokens `[CLS]`, `[SEP]`, `[UNK]`, `[PAD]` and `[MASK]`, written exactly so
///    (case-sensitive) in the raw text, are cut out and become their own ids.
/// 2. Cleaning: NUL, U+FFFD and the characters of the categories Cc, Cf, Co and Cs
///    except tab, LF and CR are dropped (unassigned code points, Cn, are kept);
///    white space (tab, LF, CR and Unicode's White_Space) becomes a word break.
/// 3. A CJK ideograph (BERT's code point ranges) is a word of its own.
/// 4. Canonical decomposition (NFD, with canonical reordering of combining marks),
///    nonspacing marks (category Mn) dropped, then lowercasing (full mappings, no
///    final-sigma rule).
/// 5. Punctuation (ASCII 33–47, 58–64, 91–96, 123–126 and every category starting
///    with P) is a word of its own.
/// 6. Greedy longest-match-first WordPiece with `##` before the pieces that continue a
///    word. A word of more than 100 characters (Unicode scalars, after step 4), or one
///    that cannot be covered by pieces, is a single `[UNK]`.
///
/// Quirks of `tokenizers` matched here (each checked against it on every code point):
/// its categories (control, punctuation, Mn) come from Unicode 8.0 data, so a character
/// assigned later counts as unassigned (a plain word character, never dropped, split
/// or stripped), and a handful of characters keep their 8.0 category; its NFD knows
/// Unicode 9.0 (no later decomposition or combining class); and its CJK extension E
/// range starts at U+2B920 instead of BERT's U+2B820. Python's `BertTokenizer` (the
/// slow one) differs from the fast one on such characters and on a final capital
/// sigma; the fast one is the reference.
///
/// The hot path works on the UTF-8 bytes: ASCII goes through a 128-entry table and
/// every other BMP scalar through a table built once per process; words are looked up
/// as byte ranges in an open-addressing hash table, so no `String` is made per word.
public struct WordPieceTokenizer: Sendable {
    /// Longest word, in Unicode scalars after normalization, that WordPiece splits;
    /// a longer one is `[UNK]`.
    public static let maxInputCharsPerWord = 100

    public let clsID: Int32
    public let sepID: Int32
    public let unkID: Int32
    public let padID: Int32

    private let tokens: [String]
    private let table: PieceTable
    /// Special tokens cut out of the raw text, as UTF-8 bytes with their ids.
    private let specials: [(bytes: [UInt8], id: Int32)]

    /// Reads a BERT vocab.txt (one token per line; the line number is the id).
    public init(vocabularyFile: URL) throws {
        let path = vocabularyFile.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw WordPieceTokenizerError.vocabularyFileMissing(path: path)
        }
        let data: Data
        do {
            data = try Data(contentsOf: vocabularyFile)
        } catch {
            throw WordPieceTokenizerError.vocabularyFileUnreadable(path: path, reason: "\(error)")
        }
        let lines = WordPieceTokenizer.lines(of: data)
        if lines.isEmpty {
            throw WordPieceTokenizerError.vocabularyFileUnreadable(path: path, reason: "the file is empty")
        }
        let table = PieceTable(tokens: lines)
        for name in WordPieceTokenizer.requiredSpecialTokens where table.id(ofToken: name) == nil {
            throw WordPieceTokenizerError.missingSpecialToken(name, path: path)
        }
        self.init(tokens: lines, table: table)
    }

    /// Builds the tokenizer from the tokens in id order. The vocabulary must hold
    /// `[CLS]`, `[SEP]`, `[UNK]` and `[PAD]` (a missing one is a programming error and
    /// traps); when a token appears twice the later line wins, as in Hugging Face.
    public init(vocabulary: [String]) {
        precondition(vocabulary.count < Int(Int32.max), "vocabulary too large")
        self.init(tokens: vocabulary, table: PieceTable(tokens: vocabulary))
    }

    private init(tokens: [String], table: PieceTable) {
        func special(_ name: String) -> Int32 {
            guard let id = table.id(ofToken: name) else {
                preconditionFailure("WordPieceTokenizer: the vocabulary has no \(name) token")
            }
            return id
        }
        self.tokens = tokens
        self.table = table
        self.clsID = special("[CLS]")
        self.sepID = special("[SEP]")
        self.unkID = special("[UNK]")
        self.padID = special("[PAD]")
        self.specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].compactMap { name in
            table.id(ofToken: name).map { (Array(name.utf8), $0) }
        }
    }

    /// The lines of a vocab.txt: split at LF, a CR before the LF and a leading
    /// byte-order mark dropped, no entry for the empty text after the final LF.
    static func lines(of data: Data) -> [String] {
        data.withUnsafeBytes { raw -> [String] in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { start = 3 }
            var lines: [String] = []
            lines.reserveCapacity(bytes.count / 6)
            var k = start
            while k < bytes.count {
                if bytes[k] == UInt8(ascii: "\n") {
                    var end = k
                    if end > start && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                    lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
                    start = k + 1
                }
                k += 1
            }
            if start < bytes.count {
                var end = bytes.count
                if bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
            }
            return lines
        }
    }

    static let requiredSpecialTokens = ["[CLS]", "[SEP]", "[UNK]", "[PAD]"]

    public var vocabularySize: Int { tokens.count }

    /// The token for an id (nil when out of range).
    public func token(for id: Int32) -> String? {
        id >= 0 && Int(id) < tokens.count ? tokens[Int(id)] : nil
    }

    /// Token ids: [CLS], the word pieces (truncated so the total is at most maxLength), [SEP].
    /// A `maxLength` below 2 is taken as 2 (`[CLS]` and `[SEP]` are always there).
    public func encode(_ text: String, maxLength: Int = 256) -> [Int32] {
        let maxLength = Swift.max(2, maxLength)
        var sink = IDSink(limit: maxLength - 1, unk: unkID)
        sink.ids.reserveCapacity(Swift.min(maxLength, text.utf8.count / 3 + 8))
        sink.ids.append(clsID)
        scan(text, into: &sink)
        sink.ids.append(sepID)
        return sink.ids
    }

    /// The word pieces as strings, without [CLS]/[SEP] and without truncation (for debugging and tests).
    public func wordPieces(_ text: String) -> [String] {
        var sink = IDSink(limit: Int.max, unk: unkID)
        scan(text, into: &sink)
        return sink.ids.map { tokens[Int($0)] }
    }

    /// The words handed to WordPiece (after cleaning, CJK spacing, NFD, accent
    /// stripping, lowercasing and the white-space and punctuation split); a special
    /// token appears as itself. For tests.
    func normalizedWords(_ text: String) -> [String] {
        var sink = WordListSink(tokens: tokens)
        scan(text, into: &sink)
        return sink.words
    }

    // MARK: - Scanning

    private func scan<Sink: WordSink>(_ text: String, into sink: inout Sink) {
        var text = text
        text.withUTF8 { utf8 in
            var scanner = BertScanner(table: table, specials: specials)
            defer { scanner.deallocate() }
            scanner.run(utf8, into: &sink)
        }
    }
}

/// Why a `WordPieceTokenizer` could not be made from a file.
public enum WordPieceTokenizerError: Error, Equatable, CustomStringConvertible {
    case vocabularyFileMissing(path: String)
    case vocabularyFileUnreadable(path: String, reason: String)
    case missingSpecialToken(String, path: String)

    public var description: String {
        switch self {
        case .vocabularyFileMissing(let path):
            return "the BERT vocabulary of all-MiniLM-L6-v2 is not at \(path); run scripts/fetch-model.sh "
                + "(or set GRIOT_MODEL_DIR to the model's folder)"
        case .vocabularyFileUnreadable(let path, let reason):
            return "the BERT vocabulary at \(path) cannot be read (\(reason)); run scripts/fetch-model.sh "
                + "again to replace it"
        case .missingSpecialToken(let name, let path):
            return "the file \(path) has no \(name) token, so it is not a BERT vocab.txt; "
                + "run scripts/fetch-model.sh again to replace it"
        }
    }
}

extension WordPieceTokenizerError: LocalizedError {
    public var errorDescription: String? { description }
}

// MARK: - Sinks

/// Receives what the scanner finds: the normalized words (UTF-8 bytes, with the
/// scalar boundaries) and the special tokens cut from the raw text.
private protocol WordSink {
    /// True once the sink wants nothing more (the id limit is reached).
    var isFull: Bool { get }
    mutating func word(_ word: borrowing WordBuffer, table: PieceTable)
    mutating func special(_ id: Int32)
}

private struct IDSink: WordSink {
    var ids: [Int32] = []
    let limit: Int
    let unk: Int32

    var isFull: Bool { ids.count >= limit }

    mutating func special(_ id: Int32) {
        ids.append(id)
    }

    /// Greedy longest-match-first WordPiece; the whole word is one [UNK] when it is
    /// longer than 100 scalars or some position matches no piece.
    mutating func word(_ word: borrowing WordBuffer, table: PieceTable) {
        let scalarCount = word.scalarCount
        if scalarCount > WordPieceTokenizer.maxInputCharsPerWord {
            ids.append(unk)
            trim()
            return
        }
        let mark = ids.count
        let bytes = UnsafePointer(word.bytes)
        // bounds[k] is where scalar k starts, for ASCII and other words alike.
        let bounds = word.bounds
        var start = 0
        while start < scalarCount {
            let continuing = start > 0
            let maxBytes = continuing ? table.maxContinuationBytes : table.maxStartBytes
            let from = Int(bounds[start])
            var end = scalarCount
            while end > start && Int(bounds[end]) - from > maxBytes { end -= 1 }
            var found: Int32 = -1
            while end > start {
                found = table.lookup(bytes + from, count: Int(bounds[end]) - from, continuing: continuing)
                if found >= 0 { break }
                end -= 1
            }
            if found < 0 {
                ids.removeSubrange(mark...)
                ids.append(unk)
                trim()
                return
            }
            ids.append(found)
            start = end
        }
        trim()
    }

    private mutating func trim() {
        if ids.count > limit { ids.removeSubrange(limit...) }
    }
}

private struct WordListSink: WordSink {
    var words: [String] = []
    let tokens: [String]
    var isFull: Bool { false }

    mutating func special(_ id: Int32) { words.append(tokens[Int(id)]) }

    mutating func word(_ word: borrowing WordBuffer, table: PieceTable) {
        if word.scalarCount > WordPieceTokenizer.maxInputCharsPerWord {
            words.append(String(repeating: "\u{FFFD}", count: word.scalarCount))  // only its length is known
        } else {
            words.append(String(decoding: UnsafeBufferPointer(start: word.bytes, count: word.byteCount), as: UTF8.self))
        }
    }
}

// MARK: - The word being built

/// The current word as UTF-8 bytes plus the byte offset after each scalar. Words of
/// more than 100 scalars are only counted (they become [UNK] whatever they hold).
private struct WordBuffer: ~Copyable {
    static let scalarCapacity = WordPieceTokenizer.maxInputCharsPerWord
    static let byteCapacity = scalarCapacity * 4

    let bytes: UnsafeMutablePointer<UInt8>
    /// bounds[k] is the byte offset where scalar k starts; bounds[scalarCount] == byteCount.
    let bounds: UnsafeMutablePointer<Int32>
    var byteCount = 0
    var scalarCount = 0

    init() {
        bytes = .allocate(capacity: WordBuffer.byteCapacity)
        bounds = .allocate(capacity: WordBuffer.scalarCapacity + 1)
        bounds[0] = 0
    }

    func deallocate() {
        bytes.deallocate()
        bounds.deallocate()
    }

    @inline(__always)
    mutating func appendASCII(_ byte: UInt8) {
        if scalarCount < WordBuffer.scalarCapacity {
            bytes[byteCount] = byte
            byteCount += 1
            scalarCount += 1
            bounds[scalarCount] = Int32(byteCount)
        } else {
            scalarCount += 1
        }
    }

    mutating func append(_ scalar: UInt32) {
        if scalar < 0x80 { appendASCII(UInt8(scalar)); return }
        if scalarCount < WordBuffer.scalarCapacity {
            byteCount += encodeUTF8(scalar, into: bytes + byteCount)
            scalarCount += 1
            bounds[scalarCount] = Int32(byteCount)
        } else {
            scalarCount += 1
        }
    }

    /// Appends a kept combining character (canonical combining class `ccc` > 0) where
    /// canonical ordering puts it: after the characters of the current combining run
    /// (those from scalar index `runStart` on) whose class is not greater.
    mutating func insertCombining(_ scalar: UInt32, ccc: UInt8, runStart: Int) {
        guard scalarCount < WordBuffer.scalarCapacity else { scalarCount += 1; return }
        var position = scalarCount
        while position > runStart {
            let previous = decodeUTF8(bytes + Int(bounds[position - 1]))
            if combiningClass(previous) <= ccc { break }
            position -= 1
        }
        var encoded: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        let length = withUnsafeMutableBytes(of: &encoded) { raw in
            encodeUTF8(scalar, into: raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        let at = Int(bounds[position])
        (bytes + at + length).update(from: bytes + at, count: byteCount - at)
        withUnsafeBytes(of: encoded) { raw in
            for k in 0..<length { bytes[at + k] = raw[k] }
        }
        var k = scalarCount
        while k > position {
            bounds[k + 1] = bounds[k] + Int32(length)
            k -= 1
        }
        bounds[position + 1] = Int32(at + length)
        byteCount += length
        scalarCount += 1
    }

    mutating func clear() {
        byteCount = 0
        scalarCount = 0
    }
}

// MARK: - The scanner

private struct BertScanner: ~Copyable {
    let table: PieceTable
    let chars: BertCharacterTable
    let specials: [(bytes: [UInt8], id: Int32)]
    var word = WordBuffer()
    /// Scalar index in `word` where the current run of combining characters starts.
    var runStart = 0
    /// Scratch for the items of a scalar outside the BMP.
    var scratch: [UInt32] = []

    init(table: PieceTable, specials: [(bytes: [UInt8], id: Int32)]) {
        self.table = table
        self.chars = BertCharacterTable.shared
        self.specials = specials
    }

    func deallocate() { word.deallocate() }

    mutating func run<Sink: WordSink>(_ utf8: UnsafeBufferPointer<UInt8>, into sink: inout Sink) {
        guard let base = utf8.baseAddress else { return }
        let count = utf8.count
        let ascii = chars.asciiActions
        var i = 0
        while i < count {
            let byte = base[i]
            if byte < 0x80 {
                let action = ascii[Int(byte)]
                if action >= 0x20 {
                    // A letter, digit or other word character, already lowercased.
                    word.appendASCII(action)
                    runStart = word.scalarCount
                } else if action == AsciiAction.space {
                    flush(into: &sink)
                    if sink.isFull { return }
                } else if action == AsciiAction.punctuation {
                    if byte == UInt8(ascii: "["), let (length, id) = matchSpecial(base + i, remaining: count - i) {
                        flush(into: &sink)
                        if sink.isFull { return }
                        sink.special(id)
                        if sink.isFull { return }
                        i += length
                        continue
                    }
                    flush(into: &sink)
                    if sink.isFull { return }
                    word.appendASCII(byte)
                    flush(into: &sink)
                    if sink.isFull { return }
                }
                // AsciiAction.drop: a control character, removed before normalization.
                i += 1
                continue
            }
            // Decode one scalar (the bytes are valid UTF-8).
            let scalar: UInt32
            if byte < 0xE0 {
                scalar = UInt32(byte & 0x1F) << 6 | UInt32(base[i + 1] & 0x3F)
                i += 2
            } else if byte < 0xF0 {
                scalar = UInt32(byte & 0x0F) << 12 | UInt32(base[i + 1] & 0x3F) << 6 | UInt32(base[i + 2] & 0x3F)
                i += 3
            } else {
                scalar = UInt32(byte & 0x07) << 18 | UInt32(base[i + 1] & 0x3F) << 12
                    | UInt32(base[i + 2] & 0x3F) << 6 | UInt32(base[i + 3] & 0x3F)
                i += 4
            }
            if scalar < 0x10000 {
                let entry = chars.bmp[Int(scalar)]
                switch entry & BertCharacterTable.kindMask {
                case BertCharacterTable.kindWord:
                    word.append(scalar)
                    runStart = word.scalarCount
                case BertCharacterTable.kindDrop:
                    break
                case BertCharacterTable.kindSpace:
                    flush(into: &sink)
                case BertCharacterTable.kindPunctuation:
                    flush(into: &sink)
                    if sink.isFull { return }
                    word.append(scalar)
                    flush(into: &sink)
                case BertCharacterTable.kindCJK:
                    flush(into: &sink)
                    if sink.isFull { return }
                    let (offset, length) = BertCharacterTable.span(entry)
                    if length == 0 {
                        word.append(scalar)
                    } else {
                        for k in offset..<(offset + length) { word.append(chars.pool[k] & BertItem.scalarMask) }
                    }
                    flush(into: &sink)
                default:  // kindMapped
                    let (offset, length) = BertCharacterTable.span(entry)
                    for k in offset..<(offset + length) {
                        apply(item: chars.pool[k], into: &sink)
                    }
                }
            } else {
                let kind = BertCharacterTable.classify(scalar, items: &scratch)
                switch kind {
                case BertCharacterTable.kindDrop:
                    break
                case BertCharacterTable.kindSpace:
                    flush(into: &sink)
                case BertCharacterTable.kindCJK:
                    flush(into: &sink)
                    if sink.isFull { return }
                    for item in scratch { word.append(item & BertItem.scalarMask) }
                    flush(into: &sink)
                default:
                    for item in scratch { apply(item: item, into: &sink) }
                }
            }
            if sink.isFull { return }
        }
        flush(into: &sink)
    }

    /// One character of a decomposed, accent-stripped, lowercased scalar.
    @inline(__always)
    private mutating func apply<Sink: WordSink>(item: UInt32, into sink: inout Sink) {
        let ccc = UInt8(truncatingIfNeeded: item >> BertItem.cccShift)
        if item & BertItem.dropped != 0 {
            // A nonspacing mark: removed after canonical ordering, so a starter still ends the run.
            if ccc == 0 { runStart = word.scalarCount }
            return
        }
        let scalar = item & BertItem.scalarMask
        if item & BertItem.punctuation != 0 {
            flush(into: &sink)
            if sink.isFull { return }
            word.append(scalar)
            flush(into: &sink)
        } else if ccc == 0 {
            word.append(scalar)
            runStart = word.scalarCount
        } else {
            word.insertCombining(scalar, ccc: ccc, runStart: runStart)
        }
    }

    @inline(__always)
    private mutating func flush<Sink: WordSink>(into sink: inout Sink) {
        runStart = 0
        if word.scalarCount == 0 { return }
        sink.word(word, table: table)
        word.clear()
    }

    private func matchSpecial(_ at: UnsafePointer<UInt8>, remaining: Int) -> (Int, Int32)? {
        for special in specials where special.bytes.count <= remaining {
            var equal = true
            for (k, b) in special.bytes.enumerated() where at[k] != b {
                equal = false
                break
            }
            if equal { return (special.bytes.count, special.id) }
        }
        return nil
    }
}

private enum AsciiAction {
    static let drop: UInt8 = 0
    static let space: UInt8 = 1
    static let punctuation: UInt8 = 2
}

/// One character produced from an input scalar: the scalar in the low 21 bits, its
/// canonical combining class in bits 21–28, and two flags.
private enum BertItem {
    static let scalarMask: UInt32 = 0x1F_FFFF
    static let cccShift: UInt32 = 21
    static let punctuation: UInt32 = 1 << 29
    /// A nonspacing mark (category Mn), stripped with the accents.
    static let dropped: UInt32 = 1 << 30
}

// MARK: - Character classes

/// What each scalar becomes under the BERT normalizer and pre-tokenizer. Built once
/// per process for the BMP; scalars beyond it are classified when met.
private final class BertCharacterTable: Sendable {
    static let shared = BertCharacterTable()

    static let kindMask: UInt32 = 0x7
    /// A word character that stays itself (no decomposition, no case change, class 0).
    static let kindWord: UInt32 = 0
    /// Removed by the cleaning step (controls, format characters, unassigned, U+FFFD).
    static let kindDrop: UInt32 = 1
    /// White space: a word break.
    static let kindSpace: UInt32 = 2
    /// Punctuation that stays itself: a word of its own.
    static let kindPunctuation: UInt32 = 3
    /// A CJK ideograph: a word of its own; its decomposition, if any, is in the pool.
    static let kindCJK: UInt32 = 4
    /// Anything else: the items are in the pool.
    static let kindMapped: UInt32 = 5

    /// For ASCII: the lowercased byte for word characters (always >= 0x20), else an `AsciiAction`.
    let asciiActions: [UInt8]
    /// kind | pool offset << 8 | item count << 3.
    let bmp: [UInt32]
    let pool: [UInt32]

    static func span(_ entry: UInt32) -> (Int, Int) {
        (Int(entry >> 8), Int((entry >> 3) & 0x1F))
    }

    private init() {
        var ascii = [UInt8](repeating: AsciiAction.drop, count: 128)
        for b in 0..<128 {
            let s = UInt32(b)
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
                ascii[b] = AsciiAction.space
            } else if b < 0x20 || b == 0x7F {
                ascii[b] = AsciiAction.drop
            } else if BertCharacterTable.isPunctuation(s) {
                ascii[b] = AsciiAction.punctuation
            } else if b >= 0x41 && b <= 0x5A {
                ascii[b] = UInt8(b + 0x20)
            } else {
                ascii[b] = UInt8(b)
            }
        }
        asciiActions = ascii

        var bmp = [UInt32](repeating: 0, count: 0x10000)
        var pool: [UInt32] = []
        var items: [UInt32] = []
        for v in UInt32(0)..<0x10000 {
            // The large uniform blocks first, without asking for properties.
            if (0x4E00...0x9FFF).contains(v) || (0x3400...0x4DBF).contains(v) {
                bmp[Int(v)] = Self.kindCJK  // unified ideographs: no decomposition
                continue
            }
            if (0xD800...0xF8FF).contains(v) {
                bmp[Int(v)] = Self.kindDrop  // surrogates and private use
                continue
            }
            if (0xAC00...0xD7A3).contains(v) {
                // Hangul syllables: conjoining jamo, all plain letters of class 0.
                let jamo = Self.hangulJamo(v)
                bmp[Int(v)] = Self.kindMapped | UInt32(pool.count) << 8 | UInt32(jamo.count) << 3
                for k in 0..<jamo.count { pool.append(jamo[k]) }
                continue
            }
            let kind = BertCharacterTable.classify(v, items: &items)
            switch kind {
            case Self.kindDrop, Self.kindSpace:
                bmp[Int(v)] = kind
            case Self.kindCJK:
                if items.count == 1 && items[0] == v {
                    bmp[Int(v)] = Self.kindCJK
                } else {
                    bmp[Int(v)] = Self.kindCJK | UInt32(pool.count) << 8 | UInt32(items.count) << 3
                    pool.append(contentsOf: items)
                }
            default:
                if items.count == 1 && items[0] == v {
                    bmp[Int(v)] = Self.kindWord
                } else if items.count == 1 && items[0] == v | BertItem.punctuation {
                    bmp[Int(v)] = Self.kindPunctuation
                } else {
                    precondition(items.count < 32)
                    bmp[Int(v)] = Self.kindMapped | UInt32(pool.count) << 8 | UInt32(items.count) << 3
                    pool.append(contentsOf: items)
                }
            }
        }
        self.bmp = bmp
        self.pool = pool
    }

    /// The kind of a scalar and, for the CJK and mapped kinds, its items (scalar,
    /// combining class, flags) after decomposition, accent stripping and lowercasing.
    static func classify(_ v: UInt32, items: inout [UInt32]) -> UInt32 {
        items.removeAll(keepingCapacity: true)
        guard let scalar = Unicode.Scalar(v) else { return kindDrop }
        if v == 0 || v == 0xFFFD || isControl(scalar) { return kindDrop }
        if isWhitespace(scalar) { return kindSpace }
        let decomposed = canonicalDecomposition(v)
        if isCJKIdeograph(v) {
            for k in 0..<decomposed.count { items.append(decomposed[k]) }
            return kindCJK
        }
        for k in 0..<decomposed.count {
            let d = decomposed[k]
            guard let ds = Unicode.Scalar(d) else { continue }
            let properties = ds.properties
            let ccc = UInt32(combiningClass(d))
            if legacyCategory(ds) == .nonspacingMark {
                items.append(d | ccc << BertItem.cccShift | BertItem.dropped)
                continue
            }
            let lowered: [UInt32] = properties.changesWhenLowercased
                ? properties.lowercaseMapping.unicodeScalars.map(\.value)
                : [d]
            for l in lowered {
                let lccc = l == d ? ccc : UInt32(combiningClass(l))
                var item = l | lccc << BertItem.cccShift
                if isPunctuation(l) { item |= BertItem.punctuation }
                items.append(item)
            }
        }
        return kindMapped
    }

    /// Whether the scalar was assigned by Unicode 8.0, the version of the character
    /// data that the `tokenizers` library classifies with. Later characters are
    /// unassigned there: neither control, punctuation nor mark, just word characters,
    /// without decomposition.
    static func isLegacyAssigned(_ s: Unicode.Scalar) -> Bool {
        guard let age = s.properties.age else { return false }
        return age.major < 8 || (age.major == 8 && age.minor == 0)
    }

    /// Whether the scalar was assigned by Unicode 9.0, the version of the data of the
    /// normalizer (NFD) of `tokenizers`; for later characters it knows no decomposition
    /// and no combining class.
    static func isKnownToNormalizer(_ s: Unicode.Scalar) -> Bool {
        guard let age = s.properties.age else { return false }
        return age.major < 9 || (age.major == 9 && age.minor == 0)
    }

    /// The general category under Unicode 8.0: unassigned for later characters, and
    /// the old category of the few whose category has changed since in a way that
    /// matters here.
    static func legacyCategory(_ s: Unicode.Scalar) -> Unicode.GeneralCategory {
        guard isLegacyAssigned(s) else { return .unassigned }
        switch s.value {
        case 0x1885, 0x1886: return .otherLetter  // Mongolian baluda: Mn since 9.0
        case 0xA9BD: return .spacingMark  // Javanese consonant sign keret: Mn since 12.0
        case 0x111C9: return .otherPunctuation  // Sharada sandhi mark: Mn since 11.0
        case 0x166D: return .otherPunctuation  // Canadian syllabics chi sign: So since 12.0
        case 0x1734: return .nonspacingMark  // Hanunoo sign pamudpod: Mc since 14.0
        case 0x1171E: return .nonspacingMark  // Ahom consonant sign medial ra: Mc since 14.0
        default: return s.properties.generalCategory
        }
    }

    /// The control test of `tokenizers`: the categories Cc, Cf, Co and Cs (not Cn),
    /// except tab, LF and CR (which are white space).
    static func isControl(_ s: Unicode.Scalar) -> Bool {
        if s.value == 0x09 || s.value == 0x0A || s.value == 0x0D { return false }
        switch legacyCategory(s) {
        case .control, .format, .surrogate, .privateUse: return true
        default: return false
        }
    }

    static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x09, 0x0A, 0x0D, 0x20: return true
        default: return s.properties.isWhitespace
        }
    }

    /// BERT's punctuation: the four ASCII ranges of non-alphanumeric symbols, and every
    /// category starting with P.
    static func isPunctuation(_ v: UInt32) -> Bool {
        if (33...47).contains(v) || (58...64).contains(v) || (91...96).contains(v) || (123...126).contains(v) {
            return true
        }
        guard let s = Unicode.Scalar(v) else { return false }
        switch legacyCategory(s) {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// BERT's "Chinese character" ranges: the CJK Unified Ideographs blocks and
    /// extensions A–E and the two CJK Compatibility Ideographs blocks. As in
    /// `tokenizers`, extension E starts at U+2B920, not U+2B820 (so U+2B820–U+2B91F
    /// are ordinary word characters).
    static func isCJKIdeograph(_ v: UInt32) -> Bool {
        (0x4E00...0x9FFF).contains(v) || (0x3400...0x4DBF).contains(v)
            || (0x20000...0x2A6DF).contains(v) || (0x2A700...0x2B73F).contains(v)
            || (0x2B740...0x2B81F).contains(v) || (0x2B920...0x2CEAF).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0x2F800...0x2FA1F).contains(v)
    }

    /// The full canonical decomposition (NFD) of one scalar.
    static func canonicalDecomposition(_ v: UInt32) -> ScalarList {
        if v >= 0xAC00 && v <= 0xD7A3 { return hangulJamo(v) }
        if v >= 0xC0, let mapped = decompositions[v], let s = Unicode.Scalar(v), isKnownToNormalizer(s) {
            return mapped
        }
        return ScalarList(v)
    }

    /// A Hangul syllable decomposes algorithmically into two or three conjoining jamo.
    static func hangulJamo(_ v: UInt32) -> ScalarList {
        let index = v - 0xAC00
        let lead = 0x1100 + index / 588
        let vowel = 0x1161 + (index % 588) / 28
        let trail = index % 28
        var list = ScalarList(lead)
        list.append(vowel)
        if trail != 0 { list.append(0x11A7 + trail) }
        return list
    }

    /// Every scalar (other than the Hangul syllables) whose NFD is not itself, with its
    /// NFD, found once with Foundation. The normalizer of `tokenizers` knows Unicode 9.0,
    /// whose canonical decompositions (frozen by Unicode's stability policy) all lie in
    /// these ranges; later ones are ignored anyway (see `isKnownToNormalizer`).
    static let decompositions: [UInt32: ScalarList] = {
        let ranges: [ClosedRange<UInt32>] = [
            0xC0...0x233, 0x340...0x477, 0x4C1...0x4F9, 0x622...0x626, 0x6C0...0x6D3,
            0x929...0x95F, 0x9CB...0x9DF, 0xA33...0xA5E, 0xB48...0xBCC, 0xC48...0xC48,
            0xCC0...0xCCB, 0xD4A...0xD4C, 0xDDA...0xDDE, 0xF43...0xFB9, 0x1026...0x1026,
            0x1B06...0x1B43, 0x1E00...0x2001, 0x2126...0x212B, 0x219A...0x232A, 0x2ADC...0x2ADC,
            0x304C...0x30FE, 0xF900...0xFAD9, 0xFB1D...0xFB4E, 0x1109A...0x110AB,
            0x1112E...0x1112F, 0x1134B...0x1134C, 0x114BB...0x114BE, 0x115BA...0x115BB,
            0x1D15E...0x1D164, 0x1D1BB...0x1D1C0, 0x2F800...0x2FA1D,
        ]
        var candidates: [UInt32] = []
        for range in ranges { candidates.append(contentsOf: range) }
        // Each candidate followed by a line feed (a starter that decomposes to itself),
        // so no canonical reordering crosses from one candidate to the next.
        var view = String.UnicodeScalarView()
        view.reserveCapacity(candidates.count * 2)
        for v in candidates {
            view.append(Unicode.Scalar(v)!)
            view.append("\n")
        }
        let decomposed = String(view).decomposedStringWithCanonicalMapping
        var result: [UInt32: ScalarList] = [:]
        var index = 0
        var current = ScalarList()
        for s in decomposed.unicodeScalars {
            if s == "\n" {
                if index < candidates.count && (current.count != 1 || current[0] != candidates[index]) {
                    result[candidates[index]] = current
                }
                index += 1
                current = ScalarList()
            } else {
                current.append(s.value)
            }
        }
        return result
    }()
}

/// Up to four scalars inline (a canonical decomposition is at most four long).
private struct ScalarList: Sendable {
    private var storage: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
    private(set) var count = 0

    init() {}
    init(_ first: UInt32) { append(first) }

    mutating func append(_ v: UInt32) {
        precondition(count < 4, "canonical decomposition longer than four scalars")
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v, toByteOffset: count * 4, as: UInt32.self) }
        count += 1
    }

    subscript(index: Int) -> UInt32 {
        withUnsafeBytes(of: storage) { $0.load(fromByteOffset: index * 4, as: UInt32.self) }
    }
}

/// The canonical combining class, as the normalizer of `tokenizers` knows it.
@inline(__always)
private func combiningClass(_ v: UInt32) -> UInt8 {
    guard let s = Unicode.Scalar(v), BertCharacterTable.isKnownToNormalizer(s) else { return 0 }
    return s.properties.canonicalCombiningClass.rawValue
}

@inline(__always)
private func encodeUTF8(_ v: UInt32, into p: UnsafeMutablePointer<UInt8>) -> Int {
    if v < 0x80 {
        p[0] = UInt8(v)
        return 1
    } else if v < 0x800 {
        p[0] = UInt8(0xC0 | v >> 6)
        p[1] = UInt8(0x80 | v & 0x3F)
        return 2
    } else if v < 0x10000 {
        p[0] = UInt8(0xE0 | v >> 12)
        p[1] = UInt8(0x80 | (v >> 6) & 0x3F)
        p[2] = UInt8(0x80 | v & 0x3F)
        return 3
    } else {
        p[0] = UInt8(0xF0 | v >> 18)
        p[1] = UInt8(0x80 | (v >> 12) & 0x3F)
        p[2] = UInt8(0x80 | (v >> 6) & 0x3F)
        p[3] = UInt8(0x80 | v & 0x3F)
        return 4
    }
}

@inline(__always)
private func decodeUTF8(_ p: UnsafePointer<UInt8>) -> UInt32 {
    let b = p[0]
    if b < 0x80 { return UInt32(b) }
    if b < 0xE0 { return UInt32(b & 0x1F) << 6 | UInt32(p[1] & 0x3F) }
    if b < 0xF0 { return UInt32(b & 0x0F) << 12 | UInt32(p[1] & 0x3F) << 6 | UInt32(p[2] & 0x3F) }
    return UInt32(b & 0x07) << 18 | UInt32(p[1] & 0x3F) << 12 | UInt32(p[2] & 0x3F) << 6 | UInt32(p[3] & 0x3F)
}

// MARK: - The vocabulary hash table

/// Open addressing from (UTF-8 bytes, continuation flag) to id. A vocabulary entry
/// "##xyz" is stored as the bytes "xyz" with the continuation flag.
private struct PieceTable: Sendable {
    struct Slot: Sendable {
        var hash: UInt32 = 0
        var start: UInt32 = 0
        var length: UInt16 = 0
        var continuing: Bool = false
        var id: Int32 = -1
    }

    private(set) var keys: [UInt8] = []
    private(set) var slots: [Slot]
    private let mask: Int
    private(set) var maxStartBytes = 0
    private(set) var maxContinuationBytes = 0

    init(tokens: [String]) {
        var size = 16
        while size < tokens.count * 2 { size <<= 1 }
        slots = [Slot](repeating: Slot(), count: size)
        mask = size - 1
        keys.reserveCapacity(tokens.count * 8)
        for (index, token) in tokens.enumerated() {
            var token = token
            token.withUTF8 { insert($0, id: Int32(index)) }
        }
    }

    /// The id of a whole vocabulary entry ("##" marks a continuation piece).
    func id(ofToken token: String) -> Int32? {
        var bytes = Array(token.utf8)
        let continuing = bytes.count > 2 && bytes[0] == UInt8(ascii: "#") && bytes[1] == UInt8(ascii: "#")
        if continuing { bytes.removeFirst(2) }
        guard !bytes.isEmpty else { return nil }
        let id = bytes.withUnsafeBufferPointer { lookup($0.baseAddress!, count: $0.count, continuing: continuing) }
        return id >= 0 ? id : nil
    }

    @inline(__always)
    static func hash(_ p: UnsafePointer<UInt8>, count: Int, continuing: Bool) -> UInt64 {
        var h: UInt64 = continuing ? 0x84222325CBF29CE4 : 0xCBF29CE484222325
        for k in 0..<count {
            h = (h ^ UInt64(p[k])) &* 0x100000001B3
        }
        return h ^ (h >> 29)
    }

    private mutating func insert(_ token: UnsafeBufferPointer<UInt8>, id: Int32) {
        let continuing = token.count > 2 && token[0] == UInt8(ascii: "#") && token[1] == UInt8(ascii: "#")
        let bytes = continuing ? UnsafeBufferPointer(rebasing: token[2...]) : token
        // An empty line can never be looked up (words are never empty).
        guard let base = bytes.baseAddress, bytes.count > 0, bytes.count <= Int(UInt16.max) else { return }
        let h = PieceTable.hash(base, count: bytes.count, continuing: continuing)
        let h32 = UInt32(truncatingIfNeeded: h)
        var index = Int(truncatingIfNeeded: h) & mask
        while slots[index].id >= 0 {
            let slot = slots[index]
            if slot.hash == h32 && slot.continuing == continuing && Int(slot.length) == bytes.count
                && keys.withUnsafeBufferPointer({ memcmp($0.baseAddress! + Int(slot.start), base, bytes.count) == 0 }) {
                slots[index].id = id  // a repeated token: the later line wins
                return
            }
            index = (index + 1) & mask
        }
        slots[index] = Slot(hash: h32, start: UInt32(keys.count), length: UInt16(bytes.count),
                            continuing: continuing, id: id)
        keys.append(contentsOf: bytes)
        if continuing {
            maxContinuationBytes = Swift.max(maxContinuationBytes, bytes.count)
        } else {
            maxStartBytes = Swift.max(maxStartBytes, bytes.count)
        }
    }

    /// The id of the piece, or -1.
    @inline(__always)
    func lookup(_ p: UnsafePointer<UInt8>, count: Int, continuing: Bool) -> Int32 {
        let h = PieceTable.hash(p, count: count, continuing: continuing)
        let h32 = UInt32(truncatingIfNeeded: h)
        return slots.withUnsafeBufferPointer { slots in
            keys.withUnsafeBufferPointer { keys in
                var index = Int(truncatingIfNeeded: h) & mask
                while true {
                    let slot = slots[index]
                    if slot.id < 0 { return -1 }
                    if slot.hash == h32 && slot.continuing == continuing && Int(slot.length) == count
                        && memcmp(keys.baseAddress! + Int(slot.start), p, count) == 0 {
                        return slot.id
                    }
                    index = (index + 1) & mask
                }
            }
        }
    }
}
