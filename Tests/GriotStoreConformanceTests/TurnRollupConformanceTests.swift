import Foundation
import GriotStore
import Testing

/// The dashboard's rollup on both databases: writes add into the row of their minute, node,
/// assistant and model (never replace it), so several nodes and concurrent turns sum exactly;
/// a quarter hour holds the sum of its minutes; refusals count without an assistant; the
/// activity number moves with each write; old rows are purged.
@Suite struct TurnRollupConformanceTests {
    /// 2026-11-29 12:00:00 UTC, the start of a quarter hour.
    let noon = Date(timeIntervalSince1970: 1_795_953_600)

    func turn(_ node: String, at offset: TimeInterval, assistant: String = "griot", model: String = "griot-extractive-1",
              tokensIn: Int = 100, tokensOut: Int = 40, latency: Double = 400, firstToken: Double? = 50, error: String? = nil,
              flags: [String] = [], crisis: Bool = false) -> TurnRollup {
        var rollup = TurnRollup(at: noon.addingTimeInterval(offset), node: node, assistant: assistant, model: model)
        rollup.turns = 1
        rollup.tokensIn = tokensIn
        rollup.tokensOut = tokensOut
        if let error {
            rollup.errors = 1
            rollup.errorCodes[error] = 1
        }
        for flag in flags { rollup.flags[flag, default: 0] += 1 }
        rollup.crisis = crisis ? 1 : 0
        rollup.latency.record(milliseconds: latency)
        if let firstToken { rollup.firstToken.record(milliseconds: firstToken) }
        return rollup
    }

    @Test("Two nodes' turns in one minute add up; the report sums every node, assistant and model", arguments: StoreBackend.allCases)
    func nodesAddIntoTheMinute(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            try await chats.addRollup(turn("node-a", at: 5, tokensIn: 100, tokensOut: 40, latency: 400))
            try await chats.addRollup(turn("node-a", at: 20, tokensIn: 50, tokensOut: 10, latency: 800, error: "provider_error"))
            try await chats.addRollup(turn("node-b", at: 30, assistant: "coach", model: "gpt-4o-mini", tokensIn: 7, tokensOut: 3, latency: 2_000,
                                           flags: ["crisis"], crisis: true))
            try await chats.addRollup(turn("node-b", at: 65, tokensIn: 1, tokensOut: 1, latency: 100, flags: ["low_groundedness", "pii_masked"]))
            try await chats.addRollup(.refusal(at: noon.addingTimeInterval(70), node: "node-a"))

            let minute = Int64(noon.timeIntervalSince1970)
            let report = try await chats.rollupReport(from: minute, through: minute + 60, resolution: .minute)
            #expect(report.buckets.map(\.start) == [minute, minute + 60])
            let first = report.buckets[0], second = report.buckets[1]
            #expect((first.turns, first.tokensIn, first.tokensOut, first.errors, first.flags, first.crisis) == (3, 157, 53, 1, 1, 1))
            #expect((second.turns, second.tokensIn, second.flags, second.rateLimited) == (1, 1, 2, 1))
            #expect(first.latency.total == 3 && first.firstToken.total == 3)
            #expect(first.latency.counts[LatencyHistogram.bin(milliseconds: 2_000)] == 1)
            #expect(report.nodes == ["node-a", "node-b"])
            #expect(report.errorCodes == ["provider_error": 1])
            #expect(report.flags == ["crisis": 1, "low_groundedness": 1, "pii_masked": 1])
            let usage = Dictionary(uniqueKeysWithValues: report.models.map { ("\($0.assistant)/\($0.model)", $0) })
            #expect(usage.keys.sorted() == ["coach/gpt-4o-mini", "griot/griot-extractive-1"], "the refusal's \"-\" row is no model")
            #expect(usage["griot/griot-extractive-1"].map { ($0.turns, $0.tokensIn, $0.tokensOut) } ?? (0, 0, 0) == (3, 151, 51))
            #expect(report.total.turns == 4 && report.total.rateLimited == 1)

            let quarter = try await chats.rollupReport(from: minute, through: minute, resolution: .quarterHour)
            #expect(quarter.buckets.count == 1)
            #expect(quarter.total.turns == 4 && quarter.total.tokensIn == 158 && quarter.total.latency == report.total.latency,
                    "a quarter hour holds the sum of its minutes")

            let outside = try await chats.rollupReport(from: minute + 120, through: minute + 600, resolution: .minute)
            #expect(outside.buckets.isEmpty && outside.nodes.isEmpty && outside.errorCodes.isEmpty)
        }
    }

    @Test("Concurrent writes to one row all count", arguments: StoreBackend.allCases)
    func concurrentWritesAdd(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let rollup = turn("node-a", at: 10, error: "ai_unavailable", flags: ["crisis"])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<24 { group.addTask { try await chats.addRollup(rollup) } }
                try await group.waitForAll()
            }
            let minute = Int64(noon.timeIntervalSince1970)
            let report = try await chats.rollupReport(from: minute, through: minute, resolution: .minute)
            #expect(report.total.turns == 24 && report.total.tokensIn == 2_400 && report.total.errors == 24)
            #expect(report.errorCodes == ["ai_unavailable": 24] && report.flags == ["crisis": 24])
            #expect(report.total.latency.total == 24)
        }
    }

    @Test("The activity number moves with each write; purging drops only the old rows", arguments: StoreBackend.allCases)
    func activityAndPurge(on backend: StoreBackend) async throws {
        try await backend.withStorage { storage in
            let chats = storage.chats
            let minute = Int64(noon.timeIntervalSince1970)
            let before = try await chats.rollupActivity(since: minute)
            try await chats.addRollup(turn("node-a", at: 1))
            let once = try await chats.rollupActivity(since: minute)
            try await chats.addRollup(turn("node-a", at: 2))
            let twice = try await chats.rollupActivity(since: minute)
            try await chats.addRollup(.refusal(at: noon.addingTimeInterval(3), node: "node-a"))
            let refused = try await chats.rollupActivity(since: minute)
            #expect(before != once && once != twice && twice != refused)

            let old = noon.addingTimeInterval(-40 * 86_400)
            try await chats.addRollup(turn("node-a", at: -40 * 86_400, error: "provider_error", flags: ["crisis"]))
            let purged = try await chats.purgeRollups(before: minute - TurnRollup.retentionSeconds)
            #expect(purged > 0)
            let oldMinute = Int64(old.timeIntervalSince1970)
            let gone = try await chats.rollupReport(from: oldMinute - 60, through: oldMinute + 60, resolution: .minute)
            #expect(gone.buckets.isEmpty && gone.errorCodes.isEmpty && gone.flags.isEmpty)
            let kept = try await chats.rollupReport(from: minute, through: minute, resolution: .minute)
            #expect(kept.total.turns == 2)
        }
    }
}
