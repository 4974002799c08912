import Foundation
import Synchronization

/// Sentence embeddings from all-MiniLM-L6-v2, computed here in Swift: WordPiece tokens
/// (at most 256, as the model was trained), the BERT encoder, mean pooling, L2 normalisation.
/// Equal to sentence-transformers' output to a cosine of 0.999 or better (a test checks 248 texts).
///
/// ```swift
/// let embedder = try SentenceEmbedder()                  // reads ~/.cache/griot/models/all-MiniLM-L6-v2
/// let vectors = embedder.embed(["Where did Ida Mae live?"])
/// ```
public final class SentenceEmbedder: Sendable {
    /// Names the model and its settings; stored beside every vector so a change is noticed.
    public let modelID: String
    public let dimension: Int
    public let maxTokens: Int
    let tokenizer: WordPieceTokenizer
    let encoder: BertEncoder
    /// Vectors of the single texts embedded lately (questions), so that a question embedded
    /// in a pass with other turns' questions, or by the first of a turn's searches, is not
    /// run through the encoder again.
    private let recent = RecentVectors(capacity: 1024)

    /// `GRIOT_MODEL_DIR`, else `~/.cache/griot/models/all-MiniLM-L6-v2` (where scripts/fetch-model.sh puts it).
    public static var defaultModelFolder: URL {
        if let folder = ProcessInfo.processInfo.environment["GRIOT_MODEL_DIR"], !folder.isEmpty {
            return URL(fileURLWithPath: folder)
        }
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/griot/models/all-MiniLM-L6-v2")
    }

    public init(folder: URL = SentenceEmbedder.defaultModelFolder, maxTokens: Int = 256) throws {
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("model.safetensors").path) else {
            throw EmbeddingError.modelMissing(path: folder.path)
        }
        tokenizer = try WordPieceTokenizer(vocabularyFile: folder.appendingPathComponent("vocab.txt"))
        encoder = try BertEncoder(folder: folder)
        dimension = encoder.configuration.hiddenSize
        self.maxTokens = min(maxTokens, encoder.configuration.maxPositions)
        modelID = "all-MiniLM-L6-v2/mean/\(self.maxTokens)"
    }

    /// The token ids a text is embedded from ([CLS] … [SEP], truncated to `maxTokens`).
    public func tokenIDs(_ text: String) -> [Int32] { tokenizer.encode(text, maxLength: maxTokens) }

    /// One text's vector: from the recent texts when it is there, else computed and kept there.
    public func embed(_ text: String) -> [Float] {
        if let vector = recent.vector(for: text) { return vector }
        let vector = embed([text])[0]
        recent.keep([(text, vector)])
        return vector
    }

    /// Embeds questions in one pass and keeps their vectors, for `embed(_:)` to find.
    /// A text's vector does not depend on the other texts of its pass: sequences are packed
    /// without padding and attend only to themselves.
    public func embedQueries(_ texts: [String]) {
        let missing = Array(Set(texts.filter { recent.vector(for: $0) == nil }))
        guard !missing.isEmpty else { return }
        recent.keep(Array(zip(missing, embed(missing, batchTokens: .max))))
    }

    /// Embeds texts in batches of about `batchTokens` tokens, grouped by length;
    /// `progress` hears (texts done, total). The result is in the order of `texts`.
    public func embed(_ texts: [String], batchTokens: Int = 4096, progress: ((Int, Int) -> Void)? = nil) -> [[Float]] {
        let sequences = texts.map(tokenIDs)
        let order = sequences.indices.sorted { sequences[$0].count < sequences[$1].count }
        var vectors = [[Float]](repeating: [], count: texts.count)
        var batch: [Int] = []
        var batchSize = 0
        var done = 0
        func flush() {
            guard !batch.isEmpty else { return }
            for (index, vector) in zip(batch, encoder.meanPooled(batch.map { sequences[$0] })) { vectors[index] = vector }
            done += batch.count
            progress?(done, texts.count)
            batch.removeAll(keepingCapacity: true)
            batchSize = 0
        }
        for index in order {
            if batchSize + sequences[index].count > batchTokens { flush() }
            batch.append(index)
            batchSize += sequences[index].count
        }
        flush()
        return vectors
    }
}

/// The vectors of the last `capacity` single texts embedded, the oldest forgotten first.
final class RecentVectors: Sendable {
    private struct Store {
        var vectors: [String: [Float]] = [:]
        var order: [String] = []
        var oldest = 0
    }

    let capacity: Int
    private let store = Mutex(Store())

    init(capacity: Int) { self.capacity = capacity }

    func vector(for text: String) -> [Float]? { store.withLock { $0.vectors[text] } }

    func keep(_ pairs: [(String, [Float])]) {
        store.withLock { store in
            for (text, vector) in pairs where store.vectors.updateValue(vector, forKey: text) == nil {
                if store.order.count < capacity {
                    store.order.append(text)
                } else {
                    store.vectors[store.order[store.oldest]] = nil
                    store.order[store.oldest] = text
                    store.oldest = (store.oldest + 1) % capacity
                }
            }
        }
    }
}
