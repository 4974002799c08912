import Foundation
@testable import GriotEmbedding
import Testing

/// The BERT tokenizer: (a) its rules, pinned on a tiny hand-made vocabulary; (b) parity
/// with Hugging Face's tokenizer on every text of Fixtures/minilm-reference.json, with
/// the real all-MiniLM-L6-v2 vocabulary.
@Suite struct WordPieceTokenizerTests {
    // MARK: (a) The rules, on a tiny vocabulary

    static let vocabulary = [
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",  // 0-4
        "hello", "world", "un", "##aff", "##able",  // 5-9
        "want", "##ed", "runn", "##ing", "cafe",  // 10-14
        "naive", ",", ".", "!", "'",  // 15-19
        "中", "文", "a", "##a", "x",  // 20-24
        "##x", "[", "]", "sep", "\u{3BF}\u{3B4}\u{3BF}\u{3C3}",  // 25-29: οδοσ, with σ not ς
        "\u{3C3}", "i", "##stanbul", "ab", "##b",  // 30-34
        "1", "##0", "-", "\u{1112}", "##\u{1161}",  // 35-39: Hangul conjoining jamo
        "##\u{11AB}", "fi", "##\u{3C3}",  // 40-42
    ]
    static let tokenizer = WordPieceTokenizer(vocabulary: vocabulary)

    func pieces(_ text: String) -> [String] { Self.tokenizer.wordPieces(text) }

    /// The words before WordPiece, as scalar values (String's == would equate
    /// canonically equivalent spellings, which is exactly what must be told apart here).
    func words(_ text: String) -> [[UInt32]] {
        Self.tokenizer.normalizedWords(text).map { $0.unicodeScalars.map(\.value) }
    }

    func scalars(_ words: String...) -> [[UInt32]] { words.map { $0.unicodeScalars.map(\.value) } }

    @Test func specialIDsComeFromTheVocabulary() {
        let t = Self.tokenizer
        #expect(t.vocabularySize == Self.vocabulary.count)
        #expect((t.padID, t.unkID, t.clsID, t.sepID) == (0, 1, 2, 3))
    }

    @Test func punctuationIsAlwaysAWordOfItsOwn() {
        #expect(pieces("hello,world!") == ["hello", ",", "world", "!"])
        #expect(pieces("want'ed") == ["want", "'", "[UNK]"])  // "ed" alone is not a word start
        #expect(pieces("10-10.") == ["1", "##0", "-", "1", "##0", "."])
        // Unicode punctuation (category P*) splits too; so do the ASCII symbols such as $ and +.
        #expect(pieces("hello\u{2014}world\u{00BF}") == ["hello", "[UNK]", "world", "[UNK]"])
        #expect(words("a$b+c") == scalars("a", "$", "b", "+", "c"))
        // Other Unicode symbols (category S*) do not split.
        #expect(words("a\u{00A9}b") == scalars("a\u{00A9}b"))
    }

    @Test func casesAndAccentsAreRemoved() {
        #expect(pieces("Café NAÏVE") == ["cafe", "naive"])
        #expect(pieces("HELLO Wo\u{0301}rld") == ["hello", "world"])  // a combining accent is stripped
        #expect(pieces("\u{0130}stanbul") == ["i", "##stanbul"])  // İ: NFD gives I + dot above
        // Accents are stripped after decomposition, so precomposed and combining spellings agree.
        #expect(words("\u{1E69}") == scalars("s"))  // ṩ = s + dot below + dot above
        // Counting is done after normalization: 60 × (a + accent) is a 60-character word.
        #expect(pieces(String(repeating: "a\u{0301}", count: 60)).count == 60)
        // Capital sigma lowercases to σ everywhere (no final-sigma rule, as in tokenizers).
        #expect(words("\u{39F}\u{394}\u{39F}\u{3A3}") == scalars("\u{3BF}\u{3B4}\u{3BF}\u{3C3}"))
        #expect(pieces("\u{39F}\u{394}\u{39F}\u{3A3}") == ["\u{3BF}\u{3B4}\u{3BF}\u{3C3}"])
        #expect(pieces("\u{3A3}\u{3A3}") == ["\u{3C3}", "##\u{3C3}"])
    }

    @Test func ligaturesAreNotDecomposed() {
        // NFD is canonical only: ﬁ (U+FB01) stays one character, which is not in the vocabulary.
        #expect(pieces("\u{FB01}") == ["[UNK]"])
    }

    @Test func cjkIdeographsAreSpacedOut() {
        #expect(pieces("中文hello") == ["中", "文", "hello"])
        #expect(pieces("a中a") == ["a", "中", "a"])
        // A CJK compatibility ideograph is a word of its own and decomposes to its unified form.
        #expect(words("x\u{F900}x") == scalars("x", "\u{8C48}", "x"))
        // Hangul is not in BERT's CJK ranges: it decomposes into jamo within the word.
        #expect(pieces("\u{D55C}") == ["\u{1112}", "##\u{1161}", "##\u{11AB}"])
        #expect(words("x\u{D55C}") == scalars("x\u{1112}\u{1161}\u{11AB}"))
        // tokenizers' extension E range starts at U+2B920, so U+2B820 is a plain word character.
        #expect(words("x\u{2B820}x") == scalars("x\u{2B820}x"))
        #expect(words("x\u{2B920}x") == scalars("x", "\u{2B920}", "x"))
    }

    @Test func continuationPiecesAreGreedyLongestFirst() {
        #expect(pieces("unaffable") == ["un", "##aff", "##able"])
        #expect(pieces("wanted running") == ["want", "##ed", "runn", "##ing"])
        #expect(pieces("xxx") == ["x", "##x", "##x"])
        #expect(pieces("abb") == ["ab", "##b"])  // "ab" is preferred to "a" + "##b"
    }

    @Test func aWordThatCannotBeCoveredIsOneUnknown() {
        #expect(pieces("unaffablez") == ["[UNK]"])
        #expect(pieces("hello zzz world") == ["hello", "[UNK]", "world"])
        #expect(pieces("\u{1F600}") == ["[UNK]"])
    }

    @Test func aWordOfMoreThan100CharactersIsOneUnknown() {
        let hundred = String(repeating: "a", count: 100)
        #expect(pieces(hundred) == ["a"] + Array(repeating: "##a", count: 99))
        #expect(pieces(hundred + "a") == ["[UNK]"])
        #expect(pieces("hello " + hundred + "a world") == ["hello", "[UNK]", "world"])
        // Characters are counted after normalization: 100 accented a's are 100 characters.
        #expect(pieces(String(repeating: "\u{E1}", count: 100)).count == 100)
        #expect(pieces(String(repeating: "\u{E1}", count: 101)) == ["[UNK]"])
    }

    @Test func charactersNewerThanTheTokenizersUnicodeDataArePlainWordCharacters() {
        // tokenizers classifies with Unicode 8.0 data: a later punctuation mark does not
        // split, a later format character is not dropped, a later nonspacing mark is kept,
        // and an unassigned code point is kept.
        #expect(words("a\u{2E52}b") == scalars("a\u{2E52}b"))  // TIRONIAN SIGN CAPITAL ET (13.0, Po)
        #expect(words("a\u{0890}b") == scalars("a\u{0890}b"))  // ARABIC POUND MARK ABOVE (14.0, Cf)
        #expect(words("a\u{0897}b") == scalars("a\u{0897}b"))  // ARABIC PEPET (16.0, Mn)
        #expect(words("a\u{0378}b") == scalars("a\u{0378}b"))  // unassigned
        // ... and its NFD knows Unicode 9.0: DIVES AKURU VOWEL SIGN O (13.0) is not decomposed.
        #expect(words("a\u{11938}") == scalars("a\u{11938}"))
    }

    @Test func combiningMarksThatAreKeptAreCanonicallyOrdered() {
        // U+302E (class 224) and U+1D165 (class 216) are spacing marks, so they survive
        // accent stripping, in canonical order; the dropped U+0301 (230) does not block.
        #expect(words("x\u{302E}\u{0301}\u{1D165}") == scalars("x\u{1D165}\u{302E}"))
        // A starter in between (even one that is then dropped, like U+034F) blocks reordering.
        #expect(words("x\u{302E}\u{034F}\u{1D165}") == scalars("x\u{302E}\u{1D165}"))
    }

    @Test func cleaningDropsControlsAndTurnsWhiteSpaceIntoBreaks() {
        #expect(pieces("hel\u{0}lo\u{7} wor\u{200B}ld\u{FFFD}") == ["hello", "world"])
        #expect(pieces("\thello\r\nworld\u{3000}a\u{A0}a\u{2028}x") == ["hello", "world", "a", "a", "x"])
        #expect(pieces("hel\u{AD}lo") == ["hello"])  // the soft hyphen is a format character
        #expect(pieces("a\u{E000}a") == ["a", "##a"])  // private use is dropped
        #expect(pieces("") == [])
        #expect(pieces(" \n\t ") == [])
    }

    @Test func specialTokensWrittenInTheTextAreKept() {
        let t = Self.tokenizer
        #expect(t.encode("hello [SEP] world[MASK]") == [2, 5, 3, 6, 4, 3])
        #expect(pieces("[sep]") == ["[", "sep", "]"])  // only the exact spelling
        #expect(pieces("[CLS") == ["[", "[UNK]"])
    }

    @Test func encodeAddsClsAndSep() {
        let t = Self.tokenizer
        #expect(t.encode("Hello, world!") == [2, 5, 16, 6, 18, 3])
        #expect(t.encode("") == [2, 3])
    }

    @Test func truncationKeepsSepLast() {
        let t = Self.tokenizer
        let text = Array(repeating: "hello world", count: 10).joined(separator: " ")
        #expect(t.encode(text).count == 22)
        #expect(t.encode(text, maxLength: 5) == [2, 5, 6, 5, 3])
        #expect(t.encode(text, maxLength: 22) == t.encode(text))
        #expect(t.encode(text, maxLength: 3) == [2, 5, 3])
        #expect(t.encode(text, maxLength: 2) == [2, 3])
        #expect(t.encode(text, maxLength: 0) == [2, 3])
        // Truncation cuts word pieces, not words.
        #expect(t.encode("unaffable hello", maxLength: 4) == [2, 7, 8, 3])
        // A special token in the text counts as a piece.
        #expect(t.encode("[SEP] [SEP] [SEP]", maxLength: 4) == [2, 3, 3, 3])
        let long = String(repeating: "hello ", count: 1_000)
        let ids = t.encode(long)
        #expect(ids.count == 256 && ids.first == 2 && ids.last == 3)
    }

    @Test func aVocabularyFileIsReadLineByLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-wordpiece-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("vocab.txt")
        try Data((Self.vocabulary.joined(separator: "\r\n") + "\r\n").utf8).write(to: file)
        let t = try WordPieceTokenizer(vocabularyFile: file)
        #expect(t.vocabularySize == Self.vocabulary.count)
        #expect(t.encode("Unaffable, NAÏVE café!") == Self.tokenizer.encode("Unaffable, NAÏVE café!"))

        try Data("hello\nworld\n".utf8).write(to: file)
        #expect(throws: WordPieceTokenizerError.missingSpecialToken("[CLS]", path: file.path)) {
            _ = try WordPieceTokenizer(vocabularyFile: file)
        }
    }

    @Test func aMissingVocabularySaysWhichCommandFetchesIt() {
        #expect {
            _ = try WordPieceTokenizer(vocabularyFile: URL(fileURLWithPath: "/nonexistent/model/vocab.txt"))
        } throws: { error in
            "\(error)".contains("run scripts/fetch-model.sh")
        }
    }

    // MARK: (b) Parity with Hugging Face on the real vocabulary

    struct Reference: Decodable {
        struct Text: Decodable {
            var text: String
            var ids: [Int32]
        }

        var texts: [Text]
    }

    /// $GRIOT_MODEL_DIR/vocab.txt, else ~/.cache/griot/models/all-MiniLM-L6-v2/vocab.txt.
    static func realVocabularyURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let folder: URL
        if let dir = environment["GRIOT_MODEL_DIR"], !dir.isEmpty {
            folder = URL(fileURLWithPath: dir)
        } else {
            folder = FileManager.default.homeDirectoryForCurrentUser
                .appendingPathComponent(".cache/griot/models/all-MiniLM-L6-v2")
        }
        return folder.appendingPathComponent("vocab.txt")
    }

    @Test func idsEqualHuggingFaceOnEveryReferenceText() throws {
        let vocabulary = Self.realVocabularyURL()
        guard FileManager.default.fileExists(atPath: vocabulary.path) else {
            Issue.record("""
                The all-MiniLM-L6-v2 vocabulary is missing at \(vocabulary.path): \
                run scripts/fetch-model.sh (or set GRIOT_MODEL_DIR to the model's folder).
                """)
            return
        }
        let tokenizer = try WordPieceTokenizer(vocabularyFile: vocabulary)
        #expect(tokenizer.vocabularySize == 30_522)

        let url = try #require(
            Bundle.module.url(forResource: "minilm-reference", withExtension: "json", subdirectory: "Fixtures"),
            "Fixtures/minilm-reference.json is missing: run scripts/make-embedding-fixture.py")
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
        #expect(reference.texts.count >= 200)

        var mismatches: [String] = []
        for entry in reference.texts {
            let ids = tokenizer.encode(entry.text, maxLength: 256)
            guard ids != entry.ids else { continue }
            let first = zip(ids, entry.ids).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? Swift.min(ids.count, entry.ids.count)
            let expected = entry.ids[Swift.max(0, first - 2)..<Swift.min(entry.ids.count, first + 3)]
            let got = ids[Swift.max(0, first - 2)..<Swift.min(ids.count, first + 3)]
            mismatches.append("""
                \(entry.text.prefix(120).debugDescription): first difference at \(first) \
                (of \(entry.ids.count) expected, \(ids.count) got): expected …\(Array(expected))…, \
                got …\(Array(got))…
                """)
        }
        if !mismatches.isEmpty {
            Issue.record("""
                \(mismatches.count) of \(reference.texts.count) texts tokenize differently; the first:
                \(mismatches.prefix(5).joined(separator: "\n"))
                """)
        }
        print("tokenizer parity: \(reference.texts.count) texts, \(mismatches.count) mismatches")
    }
}
