import Foundation
import GriotEmbedding
import GriotText

/// The moderator's semantic layer: how close a sentence comes to a bank of prototype statements
/// per kind of harm (`ModerationPrototypes`), so that plain words without a listed phrase
/// ("there are forty tablets in my drawer and it's tonight") still reach the crisis reply.
///
/// Why static vectors and not the encoder: the full six-layer MiniLM takes about 5 ms for a
/// short message on one thread here (measured: 11-22 tokens, 5.1-5.6 ms), five times the
/// whole stage's p95 budget of 1 ms, and running it only on messages with a risk cue would still
/// put it on far more than 5 % of them. So each word piece is run through the full encoder once,
/// on its own, and its output kept as a static vector (the model2vec idea; made on first use,
/// about 20 s, and cached beside the model as `griot-moderation-static-v1.f32`). A sentence's
/// vector is the weighted mean of its pieces' vectors, centred on the vocabulary's mean
/// (function words and sub-word tails count less); the prototypes are pooled the same way, so
/// both live in one space. This is a soft keyword match that knows "tablets" is near "pills";
/// it separates only coarsely, so the thresholds sit high and the rules still decide speaker,
/// negation, quotation and history (see `ModerationSemanticGate`).
///
/// ```swift
/// let semantics = try ModerationSemantics(folder: ModerationSemantics.defaultModelFolder)
/// let moderator = LocalModerator(semantics: semantics)
/// ```
public final class ModerationSemantics: Sendable {
    /// The kinds of harm the prototype bank holds, each with its own calibrated threshold.
    public enum Kind: String, Sendable, CaseIterable {
        case selfHarm = "self-harm", threat, dehumanising, insult
    }

    /// The most similar prototype of one kind for one sentence.
    public struct Match: Sendable, Equatable {
        public var kind: Kind
        public var similarity: Float
        public var prototype: String
    }

    public let dimension: Int
    private let tokenizer: WordPieceTokenizer
    /// One vector per word piece: the encoder's output for the piece alone.
    private let table: [Float]
    private let centre: [Float]
    private let weights: [Float]
    private let prototypes: [(kind: Kind, text: String, vector: [Float])]
    public var prototypeCount: Int { prototypes.count }
    /// The learned heads over the same table; nil when the generated weights do not fit it.
    let classifier: ModerationClassifier?
    /// The hash of the training inputs of the learned heads in use, or nil when they are not loaded.
    public var learnedLayerInputs: String? { classifier == nil ? nil : ModerationClassifierWeights.inputsHash }

    /// `GRIOT_MODEL_DIR`, else `~/.cache/griot/models/all-MiniLM-L6-v2` (scripts/fetch-model.sh), as for the embedder.
    public static var defaultModelFolder: URL { SentenceEmbedder.defaultModelFolder }

    public init(folder: URL, prototypes bank: [(Kind, String)] = ModerationPrototypes.all) throws {
        let weightsPath = folder.appendingPathComponent("model.safetensors").path
        guard FileManager.default.fileExists(atPath: weightsPath) else { throw EmbeddingError.modelMissing(path: folder.path) }
        let tokenizer = try WordPieceTokenizer(vocabularyFile: folder.appendingPathComponent("vocab.txt"))
        self.tokenizer = tokenizer
        let rows = tokenizer.vocabularySize
        let modelBytes = (try? FileManager.default.attributesOfItem(atPath: weightsPath)[.size] as? Int) ?? 0
        let cache = folder.appendingPathComponent("griot-moderation-static-v1.f32")
        var columns = 0
        var table: [Float]
        if let cached = Self.readCache(cache, rows: rows, modelBytes: modelBytes) {
            (columns, table) = cached
        } else {
            // Each word piece run through the whole encoder on its own ([CLS] piece [SEP]),
            // once: its contextual vector, so "tablets" sits near "pills" as the encoder sees
            // them, which the raw input table does far less. About 30,000 short sequences.
            let embedder = try SentenceEmbedder(folder: folder, maxTokens: 16)
            columns = embedder.dimension
            let pieces = (0..<rows).map { id -> String in
                let piece = tokenizer.token(for: Int32(id)) ?? ""
                if piece.hasPrefix("[") && piece.hasSuffix("]") { return "" }
                return piece.hasPrefix("##") ? String(piece.dropFirst(2)) : piece
            }
            table = embedder.embed(pieces, batchTokens: 8192).flatMap { $0 }
            Self.writeCache(cache, table: table, rows: rows, columns: columns, modelBytes: modelBytes)
        }
        dimension = columns
        self.table = table

        // The mean direction is shared by every piece (the [CLS] and [SEP] of each run among
        // it); without removing it every pair of sentences looks alike.
        var centre = [Float](repeating: 0, count: columns)
        for row in 0..<rows { for column in 0..<columns { centre[column] += table[row * columns + column] } }
        for column in 0..<columns { centre[column] /= Float(rows) }
        self.centre = centre

        var weights = [Float](repeating: 1, count: rows)
        for id in 0..<rows {
            let piece = tokenizer.token(for: Int32(id)) ?? ""
            if piece.hasPrefix("[") && piece.hasSuffix("]") { weights[id] = 0 }
            else if piece.hasPrefix("##") { weights[id] = 0.5 }
            else if piece.unicodeScalars.allSatisfy({ !CharacterSet.alphanumerics.contains($0) }) { weights[id] = 0 }
            else if Self.lightWords.contains(piece) { weights[id] = 0.15 }
        }
        self.weights = weights
        classifier = ModerationClassifier.generated(dimension: columns)
        prototypes = table.withUnsafeBufferPointer { table in
            bank.map { kind, text in
                (kind, text, Self.pooled(tokenizer.encode(text, maxLength: 128), table: table, centre: centre, weights: weights, dimension: columns))
            }
        }
    }

    /// The distilled table from an earlier run, when it was made from this model file.
    private static func readCache(_ url: URL, rows: Int, modelBytes: Int) -> (Int, [Float])? {
        guard let data = try? Data(contentsOf: url), data.count > 24 else { return nil }
        let header = data.prefix(24).withUnsafeBytes { Array($0.bindMemory(to: Int64.self)) }
        let columns = Int(header[1])
        guard header.count == 3, Int(header[0]) == rows, Int(header[2]) == modelBytes, columns > 0,
              data.count == 24 + rows * columns * 4 else { return nil }
        let table = data.dropFirst(24).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return (columns, table)
    }

    /// Best effort: a folder that cannot be written only means the table is made again next start.
    private static func writeCache(_ url: URL, table: [Float], rows: Int, columns: Int, modelBytes: Int) {
        var data = Data()
        for value in [Int64(rows), Int64(columns), Int64(modelBytes)] { withUnsafeBytes(of: value) { data.append(contentsOf: $0) } }
        table.withUnsafeBytes { data.append(contentsOf: $0) }
        try? data.write(to: url, options: .atomic)
    }

    /// Function words carry little of what a sentence is about; pronouns stay heavy, since
    /// "myself" against "him" is the difference between self-harm and a threat.
    private static let lightWords: Set<String> = StopWords.english.subtracting([
        "i", "me", "my", "myself", "you", "your", "yourself", "not", "no", "never", "nobody", "all", "again", "off", "over", "out",
    ]).union(["el", "la", "los", "las", "de", "del", "que", "y", "a", "en", "un", "una", "por", "para", "con", "es", "lo"])

    /// The centred, weighted mean of the text's word-piece vectors, L2-normalised; zero when the
    /// text has no content word.
    public func vector(_ text: String) -> [Float] {
        table.withUnsafeBufferPointer { table in
            Self.pooled(tokenizer.encode(text, maxLength: 128), table: table, centre: centre, weights: weights, dimension: dimension)
        }
    }

    private static func pooled(_ ids: [Int32], table: UnsafeBufferPointer<Float>, centre: [Float], weights: [Float], dimension: Int) -> [Float] {
        var sum = [Float](repeating: 0, count: dimension)
        var total: Float = 0
        sum.withUnsafeMutableBufferPointer { out in
            for id in ids {
                let weight = weights[Int(id)]
                guard weight > 0 else { continue }
                total += weight
                let row = Int(id) * dimension
                for column in 0..<dimension { out[column] += weight * (table[row + column] - centre[column]) }
            }
        }
        guard total > 0 else { return sum }
        var norm: Float = 0
        for value in sum { norm += value * value }
        norm = norm.squareRoot()
        guard norm > 0 else { return sum }
        return sum.map { $0 / norm }
    }

    /// The learned heads' margins over their lines for one sentence's words (positive: the
    /// sentence reads as that harm); nil without generated weights for this model.
    func classified(_ words: [String]) -> ModerationClassifier.Logits? {
        guard let classifier else { return nil }
        let ids = tokenizer.encode(words.joined(separator: " "), maxLength: 128)
        let centred: [Float] = table.withUnsafeBufferPointer { table in
            var rows: [Float] = []
            for id in ids where weights[Int(id)] > 0 {
                let row = Int(id) * dimension
                for column in 0..<dimension { rows.append(table[row + column] - centre[column]) }
            }
            return rows
        }
        return centred.withUnsafeBufferPointer { buffer in
            let vectors = stride(from: 0, to: buffer.count, by: dimension).map { buffer[$0..<$0 + dimension] }
            return classifier.margins(words: words, pieceVectors: vectors)
        }
    }

    /// For each kind, the closest prototype to `text`.
    public func matches(_ text: String) -> [Kind: Match] {
        let query = vector(text)
        var best: [Kind: Match] = [:]
        guard query.contains(where: { $0 != 0 }) else { return best }
        for prototype in prototypes {
            var dot: Float = 0
            for column in 0..<dimension { dot += query[column] * prototype.vector[column] }
            if dot > (best[prototype.kind]?.similarity ?? -2) {
                best[prototype.kind] = Match(kind: prototype.kind, similarity: dot, prototype: prototype.text)
            }
        }
        return best
    }
}
