import Foundation
import Synchronization

/// OpenAI's byte-level BPE tokenizer for cl100k_base and o200k_base, giving exactly the ids
/// of tiktoken's `encode_ordinary`, so that Griot can count what a prompt will cost and how
/// much of a model's context it fills without asking the model.
///
///     let encoder = try BytePairEncoder.load(.cl100kBase)
///     let ids = encoder.encode("Hello, world!")   // [9906, 11, 1917, 0]
///     encoder.count("Hello, world!")              // 4
///     encoder.decode(ids)                         // "Hello, world!"
///
/// Encoding runs in two steps, as in tiktoken: the encoding's split pattern cuts the text
/// into pieces (words with their leading space, runs of up to three digits, punctuation,
/// white space; see `Cl100kSplitter` and `O200kSplitter`), then each piece's UTF-8 bytes
/// are one token if the whole piece is one, or else are merged pair by pair by rank.
/// Special-token text such as `<|endoftext|>` is encoded as ordinary text, never as the
/// special token: text from users and documents must not be able to forge one.
///
/// Loading reads the encoding's `.tiktoken` rank file from `defaultFolder`
/// (scripts/fetch-tokenizers.sh puts them there); an encoder is loaded once per process
/// and folder, then shared, and is safe to use from any thread.
public final class BytePairEncoder: Sendable {
    public let name: TokenEncodingName
    let ranks: RankTable
    private let classes: ScalarClassTable
    private let specialTexts: [Int: [UInt8]]

    /// `GRIOT_TOKENIZER_DIR`, or `~/.cache/griot/tokenizers` where the fetch script puts the files.
    public static var defaultFolder: URL {
        if let folder = ProcessInfo.processInfo.environment["GRIOT_TOKENIZER_DIR"], !folder.isEmpty {
            return URL(fileURLWithPath: folder)
        }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/griot/tokenizers")
    }

    /// Encoders already loaded, by rank file path, so a second load costs nothing.
    private static let loaded = Mutex<[String: BytePairEncoder]>([:])

    /// The encoder for `name`, read from `folder/<name>.tiktoken` the first time it is asked
    /// for in this process (measured: about 20 ms for cl100k's 100,000 ranks, 50 ms for o200k's 200,000, plus 16 ms once per process for the scalar classes) and shared afterwards.
    public static func load(_ name: TokenEncodingName, folder: URL = BytePairEncoder.defaultFolder) throws -> BytePairEncoder {
        let file = folder.appendingPathComponent(name.fileName)
        let key = file.standardizedFileURL.path
        return try loaded.withLock { encoders in
            if let encoder = encoders[key] { return encoder }
            let encoder = BytePairEncoder(name: name, ranks: try RankTable(contentsOf: file))
            encoders[key] = encoder
            return encoder
        }
    }

    init(name: TokenEncodingName, ranks: RankTable) {
        self.name = name
        self.ranks = ranks
        self.classes = ScalarClassTable.shared
        self.specialTexts = Dictionary(uniqueKeysWithValues: name.specialTokens.map { ($0.value, Array($0.key.utf8)) })
    }

    /// The token ids of `text`, as tiktoken's `encode_ordinary`.
    public func encode(_ text: String) -> [Int] {
        var tokens: [Int] = []
        tokens.reserveCapacity(text.utf8.count / 3 + 1)
        forEachPiece(of: text) { bytes, count in
            let whole = ranks.rank(of: bytes, count: count)
            if whole != RankTable.absent {
                tokens.append(Int(whole))
                return
            }
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: count) { merged in
                let written = ranks.merge(bytes, count: count, into: merged.baseAddress!)
                for index in 0..<written { tokens.append(Int(merged[index])) }
            }
        }
        return tokens
    }

    /// How many tokens `text` encodes to: `encode(text).count` without building the array.
    public func count(_ text: String) -> Int {
        var total = 0
        forEachPiece(of: text) { bytes, count in
            if ranks.rank(of: bytes, count: count) != RankTable.absent {
                total += 1
                return
            }
            total += withUnsafeTemporaryAllocation(of: UInt32.self, capacity: count) { merged in
                ranks.merge(bytes, count: count, into: merged.baseAddress!)
            }
        }
        return total
    }

    /// The text of `tokens`. Special tokens become their text; an id that is no token of
    /// this encoding, or bytes that do not form whole UTF-8 characters (a multi-byte
    /// character split across a cut-off list), become U+FFFD, as tiktoken's `decode` does.
    public func decode(_ tokens: [Int]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tokens.count * 4)
        for token in tokens {
            if let tokenBytes = ranks.bytes(ofRank: token) {
                bytes.append(contentsOf: tokenBytes)
            } else if let special = specialTexts[token] {
                bytes.append(contentsOf: special)
            } else {
                bytes.append(contentsOf: [0xEF, 0xBF, 0xBD])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Calls `body` with the UTF-8 bytes of each piece of `text`, in order.
    @inline(__always) private func forEachPiece(of text: String, _ body: (UnsafePointer<UInt8>, Int) -> Void) {
        switch name {
        case .cl100kBase: forEachPiece(of: text, splitter: Cl100kSplitter.self, body)
        case .o200kBase: forEachPiece(of: text, splitter: O200kSplitter.self, body)
        }
    }

    @inline(__always) private func forEachPiece<Splitter: PieceSplitter>(
        of text: String, splitter: Splitter.Type, _ body: (UnsafePointer<UInt8>, Int) -> Void
    ) {
        var text = text
        text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, !utf8.isEmpty else { return }
            let reader = ScalarReader(base, count: utf8.count, table: classes)
            var start = 0
            while start < utf8.count {
                let end = Splitter.pieceEnd(from: start, in: reader)
                body(base + start, end - start)
                start = end
            }
        }
    }
}
