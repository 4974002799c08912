import Foundation

/// The fields of a BERT `config.json` that the forward pass needs.
struct BertConfiguration: Decodable, Sendable {
    var hiddenSize: Int
    var layerCount: Int
    var headCount: Int
    var intermediateSize: Int
    var maxPositions: Int
    var vocabularySize: Int
    var layerNormEpsilon: Float
    var hiddenActivation: String

    enum CodingKeys: String, CodingKey {
        case hiddenSize = "hidden_size"
        case layerCount = "num_hidden_layers"
        case headCount = "num_attention_heads"
        case intermediateSize = "intermediate_size"
        case maxPositions = "max_position_embeddings"
        case vocabularySize = "vocab_size"
        case layerNormEpsilon = "layer_norm_eps"
        case hiddenActivation = "hidden_act"
    }
}

/// A BERT encoder (all-MiniLM-L6-v2: 6 layers, 384 wide, 12 heads) run on the CPU.
///
/// Sequences are packed end to end with no padding: every dense layer is one matrix multiply
/// over all tokens of the batch, and attention runs per sequence over its own length, so no
/// work is spent on pad tokens and no attention mask is needed. Matrix multiplies go to
/// OpenBLAS; softmax, GELU and LayerNorm are loops the compiler vectorises.
///
/// ```swift
/// let encoder = try BertEncoder(folder: modelFolder)
/// let vectors = encoder.meanPooled([[101, 7592, 2088, 102]])   // one 384-wide unit vector
/// ```
final class BertEncoder: @unchecked Sendable {
    let configuration: BertConfiguration
    private let blas: BLAS
    private let file: SafeTensors
    private let wordEmbeddings: UnsafeBufferPointer<Float>
    private let positionEmbeddings: UnsafeBufferPointer<Float>
    private let tokenTypeEmbedding: UnsafeBufferPointer<Float>
    private let embeddingNorm: Norm
    private let layers: [Layer]

    struct Norm {
        var gamma: UnsafeBufferPointer<Float>
        var beta: UnsafeBufferPointer<Float>
    }

    struct Layer {
        /// Query, key and value weights stacked into one [3H, H] matrix, so one multiply does all three.
        var qkvWeight: [Float]
        var qkvBias: [Float]
        var attentionOutputWeight: UnsafeBufferPointer<Float>
        var attentionOutputBias: UnsafeBufferPointer<Float>
        var attentionNorm: Norm
        var intermediateWeight: UnsafeBufferPointer<Float>
        var intermediateBias: UnsafeBufferPointer<Float>
        var outputWeight: UnsafeBufferPointer<Float>
        var outputBias: UnsafeBufferPointer<Float>
        var outputNorm: Norm
    }

    init(folder: URL) throws {
        let configPath = folder.appendingPathComponent("config.json")
        guard let configData = FileManager.default.contents(atPath: configPath.path) else {
            throw EmbeddingError.modelMissing(path: folder.path)
        }
        do {
            configuration = try JSONDecoder().decode(BertConfiguration.self, from: configData)
        } catch {
            throw EmbeddingError.modelDamaged(path: configPath.path, reason: "\(error)")
        }
        guard configuration.hiddenActivation == "gelu", configuration.hiddenSize % configuration.headCount == 0 else {
            throw EmbeddingError.modelDamaged(path: configPath.path, reason: "only BERT encoders with exact GELU are supported")
        }
        blas = try BLAS.shared()
        file = try SafeTensors(path: folder.appendingPathComponent("model.safetensors").path)
        let h = configuration.hiddenSize
        let i = configuration.intermediateSize
        let file = file
        func norm(_ prefix: String) throws -> Norm {
            Norm(gamma: try file.floats(prefix + ".weight", shape: [h]), beta: try file.floats(prefix + ".bias", shape: [h]))
        }
        wordEmbeddings = try file.floats("embeddings.word_embeddings.weight", shape: [configuration.vocabularySize, h])
        positionEmbeddings = try file.floats("embeddings.position_embeddings.weight", shape: [configuration.maxPositions, h])
        tokenTypeEmbedding = UnsafeBufferPointer(rebasing: try file.floats("embeddings.token_type_embeddings.weight", shape: [2, h])[0..<h])
        embeddingNorm = try norm("embeddings.LayerNorm")
        layers = try (0..<configuration.layerCount).map { index in
            let prefix = "encoder.layer.\(index)."
            var qkvWeight: [Float] = []
            var qkvBias: [Float] = []
            for part in ["query", "key", "value"] {
                qkvWeight += try file.floats(prefix + "attention.self.\(part).weight", shape: [h, h])
                qkvBias += try file.floats(prefix + "attention.self.\(part).bias", shape: [h])
            }
            return Layer(
                qkvWeight: qkvWeight, qkvBias: qkvBias,
                attentionOutputWeight: try file.floats(prefix + "attention.output.dense.weight", shape: [h, h]),
                attentionOutputBias: try file.floats(prefix + "attention.output.dense.bias", shape: [h]),
                attentionNorm: try norm(prefix + "attention.output.LayerNorm"),
                intermediateWeight: try file.floats(prefix + "intermediate.dense.weight", shape: [i, h]),
                intermediateBias: try file.floats(prefix + "intermediate.dense.bias", shape: [i]),
                outputWeight: try file.floats(prefix + "output.dense.weight", shape: [h, i]),
                outputBias: try file.floats(prefix + "output.dense.bias", shape: [h]),
                outputNorm: try norm(prefix + "output.LayerNorm"))
        }
    }

    /// The mean of each sequence's final hidden states, L2-normalised. Each sequence holds
    /// token ids including [CLS] and [SEP] and is no longer than the model's positions.
    func meanPooled(_ sequences: [[Int32]]) -> [[Float]] {
        let h = configuration.hiddenSize
        let tokenCount = sequences.reduce(0) { $0 + $1.count }
        guard tokenCount > 0 else { return sequences.map { _ in [Float](repeating: 0, count: h) } }
        var starts: [Int] = []
        var offset = 0
        for sequence in sequences {
            starts.append(offset)
            offset += sequence.count
        }
        var hidden = [Float](repeating: 0, count: tokenCount * h)
        hidden.withUnsafeMutableBufferPointer { hidden in
            embed(sequences, into: hidden.baseAddress!)
            var workspace = Workspace(tokens: tokenCount, configuration: configuration,
                                      longest: sequences.map(\.count).max() ?? 0)
            for layer in layers {
                run(layer, hidden: hidden.baseAddress!, tokens: tokenCount, sequences: zip(starts, sequences.map(\.count)).map { ($0, $1) }, workspace: &workspace)
            }
        }
        return zip(starts, sequences).map { start, sequence in
            var pooled = [Float](repeating: 0, count: h)
            hidden.withUnsafeBufferPointer { hidden in
                for token in start..<(start + sequence.count) {
                    let row = hidden.baseAddress! + token * h
                    for dimension in 0..<h { pooled[dimension] += row[dimension] }
                }
            }
            let scale = 1 / Float(max(sequence.count, 1))
            var squares: Float = 0
            for dimension in 0..<h {
                pooled[dimension] *= scale
                squares += pooled[dimension] * pooled[dimension]
            }
            let inverseNorm = 1 / max(squares.squareRoot(), 1e-12)
            return pooled.map { $0 * inverseNorm }
        }
    }

    /// Scratch buffers for one batch, allocated once and reused by every layer.
    struct Workspace {
        var qkv: [Float]
        var context: [Float]
        var intermediate: [Float]
        var scores: [Float]

        init(tokens: Int, configuration: BertConfiguration, longest: Int) {
            qkv = [Float](repeating: 0, count: tokens * 3 * configuration.hiddenSize)
            context = [Float](repeating: 0, count: tokens * configuration.hiddenSize)
            intermediate = [Float](repeating: 0, count: tokens * configuration.intermediateSize)
            scores = [Float](repeating: 0, count: longest * longest)
        }
    }

    private func embed(_ sequences: [[Int32]], into hidden: UnsafeMutablePointer<Float>) {
        let h = configuration.hiddenSize
        var row = hidden
        for sequence in sequences {
            for (position, token) in sequence.enumerated() {
                let word = wordEmbeddings.baseAddress! + Int(token) * h
                let place = positionEmbeddings.baseAddress! + position * h
                let type = tokenTypeEmbedding.baseAddress!
                for dimension in 0..<h { row[dimension] = word[dimension] + place[dimension] + type[dimension] }
                row += h
            }
        }
        Kernels.layerNorm(hidden, rows: sequences.reduce(0) { $0 + $1.count }, width: h,
                          gamma: embeddingNorm.gamma.baseAddress!, beta: embeddingNorm.beta.baseAddress!,
                          epsilon: configuration.layerNormEpsilon)
    }

    private func run(_ layer: Layer, hidden: UnsafeMutablePointer<Float>, tokens: Int, sequences: [(start: Int, length: Int)], workspace: inout Workspace) {
        let h = configuration.hiddenSize
        let inner = configuration.intermediateSize
        let heads = configuration.headCount
        let headWidth = h / heads
        let epsilon = configuration.layerNormEpsilon
        let scale = 1 / Float(headWidth).squareRoot()
        workspace.qkv.withUnsafeMutableBufferPointer { qkv in
        workspace.context.withUnsafeMutableBufferPointer { context in
        workspace.intermediate.withUnsafeMutableBufferPointer { intermediate in
        workspace.scores.withUnsafeMutableBufferPointer { scores in
            let qkv = qkv.baseAddress!, context = context.baseAddress!
            let intermediate = intermediate.baseAddress!, scores = scores.baseAddress!
            // Q, K and V for every token at once: qkv = hidden · Wqkvᵀ + b.
            layer.qkvBias.withUnsafeBufferPointer { Kernels.fillRows(qkv, rows: tokens, with: $0.baseAddress!, width: 3 * h) }
            layer.qkvWeight.withUnsafeBufferPointer { weight in
                blas.multiply(m: tokens, n: 3 * h, k: h, a: hidden, lda: h, b: weight.baseAddress!, ldb: h, transposeB: true, beta: 1, c: qkv, ldc: 3 * h)
            }
            // Attention, per sequence and head, over the sequence's own tokens only.
            for (start, length) in sequences {
                for head in 0..<heads {
                    let query = qkv + start * 3 * h + head * headWidth
                    let key = query + h
                    let value = query + 2 * h
                    blas.multiply(m: length, n: length, k: headWidth, alpha: scale, a: query, lda: 3 * h,
                                  b: key, ldb: 3 * h, transposeB: true, c: scores, ldc: length)
                    Kernels.softmaxRows(scores, rows: length, width: length)
                    blas.multiply(m: length, n: headWidth, k: length, a: scores, lda: length,
                                  b: value, ldb: 3 * h, transposeB: false, c: context + start * h + head * headWidth, ldc: h)
                }
            }
            // hidden = LayerNorm(hidden + context · Woᵀ + b): the residual rides in C with beta = 1.
            Kernels.addRows(hidden, rows: tokens, bias: layer.attentionOutputBias.baseAddress!, width: h)
            blas.multiply(m: tokens, n: h, k: h, a: context, lda: h, b: layer.attentionOutputWeight.baseAddress!, ldb: h,
                          transposeB: true, beta: 1, c: hidden, ldc: h)
            Kernels.layerNorm(hidden, rows: tokens, width: h, gamma: layer.attentionNorm.gamma.baseAddress!,
                              beta: layer.attentionNorm.beta.baseAddress!, epsilon: epsilon)
            // Feed-forward: hidden = LayerNorm(hidden + GELU(hidden · W1ᵀ + b1) · W2ᵀ + b2).
            Kernels.fillRows(intermediate, rows: tokens, with: layer.intermediateBias.baseAddress!, width: inner)
            blas.multiply(m: tokens, n: inner, k: h, a: hidden, lda: h, b: layer.intermediateWeight.baseAddress!, ldb: h,
                          transposeB: true, beta: 1, c: intermediate, ldc: inner)
            Kernels.gelu(intermediate, count: tokens * inner)
            Kernels.addRows(hidden, rows: tokens, bias: layer.outputBias.baseAddress!, width: h)
            blas.multiply(m: tokens, n: h, k: inner, a: intermediate, lda: inner, b: layer.outputWeight.baseAddress!, ldb: inner,
                          transposeB: true, beta: 1, c: hidden, ldc: h)
            Kernels.layerNorm(hidden, rows: tokens, width: h, gamma: layer.outputNorm.gamma.baseAddress!,
                              beta: layer.outputNorm.beta.baseAddress!, epsilon: epsilon)
        }}}}
    }
}
