import Foundation
import GriotTokens
import Testing

/// A far larger check than the fixture, run on demand: scripts/fuzz-tokens.sh has tiktoken
/// encode fresh random texts (a new seed each run) into a file and points this test at it.
/// It found a bug that the fixture then lacked a text for, so it is kept.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["GRIOT_TOKEN_FUZZ"] != nil,
                "set GRIOT_TOKEN_FUZZ to a file from scripts/fuzz-tokens.sh"))
struct TiktokenFuzzTests {
    @Test(arguments: TokenEncodingName.allCases)
    func randomTextsEncodeAsTiktokenDoes(_ name: TokenEncodingName) throws {
        let path = try #require(ProcessInfo.processInfo.environment["GRIOT_TOKEN_FUZZ"])
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let cases = try JSONDecoder().decode(BytePairEncoderTests.Fixture.self, from: data).cases
        let encoder = try BytePairEncoder.load(name)
        var failures = 0
        for item in cases {
            let expected = try #require(item.ids[name.rawValue])
            let actual = encoder.encode(item.text)
            guard actual != expected else { continue }
            failures += 1
            if failures <= 10 {
                Issue.record("""
                    \(name.rawValue) differs on \(item.text.debugDescription.prefix(300)) \
                    (scalars \(item.text.unicodeScalars.prefix(60).map { String($0.value, radix: 16) }.joined(separator: " ")))
                      tiktoken: \(expected.prefix(40))
                      griot:    \(actual.prefix(40))
                    """)
            }
        }
        #expect(failures == 0, "\(failures) of \(cases.count) texts encode differently")
    }
}
