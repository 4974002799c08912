import Foundation
import GriotSafety
import Testing

struct SafetyVerdictTests {
    @Test func verdictRoundTripsThroughJSON() throws {
        let verdict = SafetyVerdict(stage: "pii", score: 1, decision: .mask, reason: "1 PHONE masked")
        let data = try JSONEncoder().encode(verdict)
        #expect(try JSONDecoder().decode(SafetyVerdict.self, from: data) == verdict)
        #expect(String(decoding: data, as: UTF8.self).contains("\"decision\":\"mask\""))
    }
}
