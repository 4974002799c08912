import Foundation

/// The learned part of the semantic layer: two logistic-regression heads (self-harm, and harm to
/// others: threats, insults, dehumanising language) over a sentence's static MiniLM word-piece
/// vectors (their mean and their maximum, centred as in `ModerationSemantics`) and its hashed
/// word unigrams and bigrams.
///
/// Why learned and not nearest-prototype: a threshold on the cosine to the closest of 84
/// statements speaks only when a sentence nearly restates one of them; a classifier weighs every
/// dimension and word against hundreds of our own sentences, benign hard cases included
/// (grief, idioms, coaching stress, history, reports). It is trained offline by
/// `scripts/train-moderation-classifier.py` on `evals/moderation/semantic-training.jsonl`,
/// `tuning.jsonl` and `cases.jsonl` only; the weights and thresholds are generated into
/// `ModerationClassifierWeights.swift` with the hash of those inputs. The features here must stay
/// the script's `features()`.
struct ModerationClassifier: Sendable {
    struct Logits: Sendable, Equatable {
        var selfHarm: Float
        var harm: Float
    }

    let dimension: Int
    let buckets: Int
    let meanScale: Float
    private let selfHarm: [Float]
    private let harm: [Float]

    /// The generated weights, or nil when they were made for another vector width.
    static func generated(dimension: Int) -> ModerationClassifier? {
        guard ModerationClassifierWeights.dimension == dimension,
              let selfHarm = decode(ModerationClassifierWeights.selfHarmWeights),
              let harm = decode(ModerationClassifierWeights.harmWeights),
              selfHarm.count == 2 * dimension + ModerationClassifierWeights.buckets, harm.count == selfHarm.count else { return nil }
        return ModerationClassifier(dimension: dimension, buckets: ModerationClassifierWeights.buckets, meanScale: ModerationClassifierWeights.meanScale,
                                    selfHarm: selfHarm, harm: harm)
    }

    private static func decode(_ base64: String) -> [Float]? {
        guard let data = Data(base64Encoded: base64), data.count % 4 == 0 else { return nil }
        return data.withUnsafeBytes { raw in (0..<data.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) } }
    }

    /// How far over its line each head is (positive: the sentence reads as that harm).
    func margins(words: [String], pieceVectors: [UnsafeBufferPointer<Float>.SubSequence]) -> Logits {
        var selfHarmLogit = ModerationClassifierWeights.selfHarmBias
        var harmLogit = ModerationClassifierWeights.harmBias
        if !pieceVectors.isEmpty {
            var mean = [Float](repeating: 0, count: dimension)
            var maximum = [Float](repeating: -.greatestFiniteMagnitude, count: dimension)
            for vector in pieceVectors {
                var column = 0
                for value in vector {
                    mean[column] += value
                    if value > maximum[column] { maximum[column] = value }
                    column += 1
                }
            }
            var norm: Float = 0
            for column in 0..<dimension { mean[column] /= Float(pieceVectors.count); norm += mean[column] * mean[column] }
            let scale = norm > 0 ? meanScale / norm.squareRoot() : 0
            for column in 0..<dimension {
                let m = mean[column] * scale
                selfHarmLogit += m * selfHarm[column] + maximum[column] * selfHarm[dimension + column]
                harmLogit += m * harm[column] + maximum[column] * harm[dimension + column]
            }
        }
        var seen = Set<Int>()
        for (index, word) in words.enumerated() {
            seen.insert(Self.bucket(word, buckets))
            if index > 0 { seen.insert(Self.bucket(words[index - 1] + " " + word, buckets)) }
        }
        for bucket in seen {
            selfHarmLogit += selfHarm[2 * dimension + bucket]
            harmLogit += harm[2 * dimension + bucket]
        }
        return Logits(selfHarm: selfHarmLogit - ModerationClassifierWeights.selfHarmThreshold, harm: harmLogit - ModerationClassifierWeights.harmThreshold)
    }

    /// FNV-1a over the UTF-8 bytes, as the training script hashes.
    static func bucket(_ text: String, _ buckets: Int) -> Int {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        return Int(hash % UInt32(buckets))
    }
}
