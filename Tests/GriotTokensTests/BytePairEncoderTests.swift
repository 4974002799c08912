import Foundation
@testable import GriotTokens
import Testing

/// The byte-pair encoder against OpenAI's tiktoken: every text of Fixtures/tokens.json
/// (made by scripts/make-token-fixture.py) must give tiktoken's ids, token for token, with
/// both encodings; and the rest of the contract (decode, count, loading, errors).
///
/// Needs the rank files in `BytePairEncoder.defaultFolder` (scripts/fetch-tokenizers.sh,
/// which scripts/setup.sh runs).
@Suite struct BytePairEncoderTests {
    struct Fixture: Decodable {
        let tiktoken: String
        let patterns: [String: String]
        let cases: [Case]
    }

    struct Case: Decodable {
        let text: String
        let ids: [String: [Int]]

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            text = try container.decode(String.self, forKey: Key(stringValue: "text"))
            var ids: [String: [Int]] = [:]
            for name in TokenEncodingName.allCases {
                ids[name.rawValue] = try container.decode([Int].self, forKey: Key(stringValue: name.rawValue))
            }
            self.ids = ids
        }
    }

    static let fixture: Fixture? = {
        guard let url = Bundle.module.url(forResource: "tokens", withExtension: "json", subdirectory: "Fixtures"),
              let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(Fixture.self, from: data)
    }()

    func fixture() throws -> Fixture {
        try #require(Self.fixture, "Fixtures/tokens.json is missing or unreadable: run scripts/make-token-fixture.py")
    }

    func encoder(_ name: TokenEncodingName) throws -> BytePairEncoder {
        do {
            return try BytePairEncoder.load(name)
        } catch {
            Issue.record("\(error)")
            throw error
        }
    }

    /// A text as code points, for messages and for comparing: String's == would equate
    /// canonically equivalent spellings, which a tokenizer must tell apart.
    func scalars(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }

    // MARK: Parity with tiktoken

    @Test func theFixtureIsLargeAndCoversBothEncodings() throws {
        let fixture = try fixture()
        #expect(fixture.cases.count >= 600)
        #expect(fixture.cases.contains { $0.text.isEmpty })
        #expect(fixture.cases.contains { $0.text.utf8.count > 2000 })
    }

    /// The splitters are hand-written for one exact pattern each; if tiktoken ever changes a
    /// pattern, regenerating the fixture makes this fail instead of silently drifting.
    @Test(arguments: TokenEncodingName.allCases)
    func theSplitPatternIsTiktokens(_ name: TokenEncodingName) throws {
        #expect(try fixture().patterns[name.rawValue] == name.pattern)
    }

    @Test(arguments: TokenEncodingName.allCases)
    func everyFixtureTextEncodesAsTiktokenDoes(_ name: TokenEncodingName) throws {
        let encoder = try encoder(name)
        var failures = 0
        for item in try fixture().cases {
            let expected = try #require(item.ids[name.rawValue])
            let actual = encoder.encode(item.text)
            if actual != expected {
                failures += 1
                if failures <= 10 {
                    Issue.record("""
                        \(name.rawValue) differs on \(item.text.debugDescription.prefix(300))
                          tiktoken: \(expected.prefix(40))
                          griot:    \(actual.prefix(40))
                        """)
                }
            }
        }
        #expect(failures == 0, "\(failures) texts encode differently")
    }

    @Test(arguments: TokenEncodingName.allCases)
    func decodingGivesBackTheText(_ name: TokenEncodingName) throws {
        let encoder = try encoder(name)
        for item in try fixture().cases {
            let decoded = encoder.decode(encoder.encode(item.text))
            #expect(Array(decoded.utf8) == Array(item.text.utf8), "\(item.text.debugDescription.prefix(200))")
        }
    }

    @Test(arguments: TokenEncodingName.allCases)
    func countIsTheNumberOfTokens(_ name: TokenEncodingName) throws {
        let encoder = try encoder(name)
        for item in try fixture().cases {
            #expect(encoder.count(item.text) == item.ids[name.rawValue]?.count, "\(item.text.debugDescription.prefix(200))")
        }
    }

    /// Pieces longer than `RankTable.longPieceBytes` use the heap merge; both merges must
    /// agree on every piece, including short ones the heap merge never sees in use.
    @Test(arguments: TokenEncodingName.allCases)
    func theHeapMergeAgreesWithTheSimpleMerge(_ name: TokenEncodingName) throws {
        let ranks = try encoder(name).ranks
        var generator = SeededRandom(seed: 20261122)
        var samples: [[UInt8]] = try fixture().cases.suffix(300).map { Array($0.text.utf8.prefix(400)) }
        for length in 2...300 {
            samples.append((0..<length).map { _ in UInt8.random(in: 97...122, using: &generator) })
        }
        for sample in samples where sample.count >= 2 {
            let (short, long) = sample.withUnsafeBufferPointer { bytes in
                let first = UnsafeMutablePointer<UInt32>.allocate(capacity: bytes.count)
                let second = UnsafeMutablePointer<UInt32>.allocate(capacity: bytes.count)
                defer { first.deallocate(); second.deallocate() }
                let a = ranks.mergeShort(bytes.baseAddress!, count: bytes.count, into: first)
                let b = ranks.mergeLong(bytes.baseAddress!, count: bytes.count, into: second)
                return (Array(UnsafeBufferPointer(start: first, count: a)), Array(UnsafeBufferPointer(start: second, count: b)))
            }
            #expect(short == long, "\(String(decoding: sample, as: UTF8.self).debugDescription.prefix(120))")
        }
    }

    /// The encoder is shared across a process, so it must give the same ids from many threads.
    @Test func encodingFromManyTasksAtOnceGivesTheSameIDs() async throws {
        let encoder = try encoder(.o200kBase)
        let cases = try fixture().cases
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for part in 0..<4 {
                group.addTask {
                    cases.enumerated().filter { $0.offset % 4 == part }
                        .filter { encoder.encode($0.element.text) != $0.element.ids["o200k_base"] }.count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    // MARK: The documented examples

    @Test func theExamplesInTheDocumentationHold() throws {
        let cl100k = try encoder(.cl100kBase)
        #expect(cl100k.encode("Hello, world!") == [9906, 11, 1917, 0])
        #expect(cl100k.count("Hello, world!") == 4)
        #expect(cl100k.decode([9906, 11, 1917, 0]) == "Hello, world!")
        #expect(try encoder(.o200kBase).count("How many tokens is this?") == 6)
    }

    @Test func specialTokenTextIsOrdinaryTextWhenEncoding() throws {
        let encoder = try encoder(.cl100kBase)
        #expect(encoder.encode("<|endoftext|>") != [100257])
        #expect(encoder.encode("<|endoftext|>").count > 1)
    }

    @Test func specialAndUnknownIDsDecode() throws {
        #expect(try encoder(.cl100kBase).decode([100257]) == "<|endoftext|>")
        #expect(try encoder(.o200kBase).decode([13225, 199999]) == "Hello<|endoftext|>")
        #expect(try encoder(.cl100kBase).decode([-1, 9906, 1_000_000]) == "\u{FFFD}Hello\u{FFFD}")
    }

    @Test func aMultiByteCharacterCutInHalfDecodesAsAReplacementCharacter() throws {
        let encoder = try encoder(.cl100kBase)
        let ids = encoder.encode("😀")
        #expect(ids.count > 1)  // the emoji is several byte tokens
        #expect(encoder.decode(Array(ids.dropLast())).hasSuffix("\u{FFFD}"))
    }

    // MARK: Loading

    @Test func loadingTwiceGivesTheSameEncoder() throws {
        #expect(try BytePairEncoder.load(.o200kBase) === BytePairEncoder.load(.o200kBase))
        #expect(try BytePairEncoder.load(.o200kBase) !== BytePairEncoder.load(.cl100kBase))
    }

    @Test func aMissingRankFileNamesTheFileAndTheFetchScript() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-no-ranks-\(UUID().uuidString)")
        let expected = folder.appendingPathComponent("cl100k_base.tiktoken").path
        #expect(throws: BytePairEncoderError.rankFileMissing(path: expected)) {
            try BytePairEncoder.load(.cl100kBase, folder: folder)
        }
        let message = BytePairEncoderError.rankFileMissing(path: expected).description
        #expect(message.contains(expected) && message.contains("scripts/fetch-tokenizers.sh"))
    }

    @Test func aDamagedRankFileSaysWhichLineAndToFetchAgain() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-bad-ranks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("o200k_base.tiktoken")
        try Data("IQ== 0\nIg== 1\nnot base64! 2\n".utf8).write(to: file)
        do {
            _ = try BytePairEncoder.load(.o200kBase, folder: folder)
            Issue.record("a damaged rank file loaded")
        } catch let error as BytePairEncoderError {
            guard case .rankFileUnreadable(let path, let reason) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path == file.path)
            #expect(reason.contains("line 3"))
            #expect(error.description.contains("scripts/fetch-tokenizers.sh"))
        }
    }

    @Test func aRankFileWithoutEverySingleByteIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-few-ranks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("IQ== 0\nIg== 1\n".utf8).write(to: folder.appendingPathComponent("cl100k_base.tiktoken"))
        #expect(throws: BytePairEncoderError.self) { try BytePairEncoder.load(.cl100kBase, folder: folder) }
    }
}
