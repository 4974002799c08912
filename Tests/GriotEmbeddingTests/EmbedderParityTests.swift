import Foundation
import GriotEmbedding
import Testing

/// Our embeddings against sentence-transformers' on the same model (the fixture was made by
/// scripts/make-embedding-fixture.py with torch on the CPU): cosine 0.999 or better for every text.
@Suite struct EmbedderParityTests {
    struct Reference: Decodable {
        struct Text: Decodable {
            var text: String
            var ids: [Int32]
            var embedding: String
        }

        var texts: [Text]
    }

    static func reference() throws -> Reference {
        let url = try #require(Bundle.module.url(forResource: "minilm-reference", withExtension: "json", subdirectory: "Fixtures"))
        return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }

    static func embedder() throws -> SentenceEmbedder {
        do {
            return try SentenceEmbedder()
        } catch {
            Issue.record("\(error)")  // says to run scripts/fetch-model.sh
            throw error
        }
    }

    static func floats(_ base64: String) -> [Float] {
        let data = Data(base64Encoded: base64) ?? Data()
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test func everyReferenceTextEmbedsToCosineAtLeast0999() throws {
        let reference = try Self.reference()
        let embedder = try Self.embedder()
        #expect(reference.texts.count >= 200)
        let vectors = embedder.embed(reference.texts.map(\.text))
        var worst: (cosine: Float, text: String) = (1, "")
        for (text, vector) in zip(reference.texts, vectors) {
            let expected = Self.floats(text.embedding)
            #expect(expected.count == embedder.dimension)
            let cosine = zip(expected, vector).reduce(0) { $0 + $1.0 * $1.1 }
            if cosine < worst.cosine { worst = (cosine, text.text) }
            #expect(cosine >= 0.999, "cosine \(cosine) for \(text.text.prefix(60))")
        }
        print("embedding parity: \(reference.texts.count) texts, lowest cosine \(worst.cosine)")
    }

    @Test func batchingDoesNotChangeAVector() throws {
        let embedder = try Self.embedder()
        let texts = ["Where did Ida Mae live?", String(repeating: "The levee broke at Mounds Landing. ", count: 40), "Opelousas"]
        let together = embedder.embed(texts, batchTokens: 10_000)
        for (text, vector) in zip(texts, together) {
            let alone = embedder.embed(text)
            #expect(zip(alone, vector).allSatisfy { abs($0 - $1) < 1e-5 })
        }
    }

    @Test func aMissingModelSaysWhichCommandFetchesIt() {
        #expect {
            _ = try SentenceEmbedder(folder: URL(fileURLWithPath: "/nonexistent/model"))
        } throws: { error in
            "\(error)".contains("run scripts/fetch-model.sh")
        }
    }
}
