import ArgumentParser
import Foundation
import GriotSafety

/// The moderation stage, measured: HateCheck's 3,728 functional tests scored with the deployed
/// block decision (toxicity > 0.8) as "predicted hateful", our own case set, and the time per
/// message; with a peer in the same run (better_profanity from Python, when a venv has it).
/// Never prints a HateCheck sentence: the suite holds slurs on purpose.
struct ModerationBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moderation",
        abstract: "HateCheck precision, recall and F1 with the block decision, our own cases, and µs per message.")

    @Option(help: "The shared data folder (hatecheck/test_suite_cases.csv).")
    var data = "../shared/data"

    @Option(help: "Our own case set.")
    var cases = "evals/moderation/cases.jsonl"

    @Option(help: "Timed passes over the messages; the fastest counts.")
    var passes = 5

    @Option(help: "A Python with better_profanity (scripts/bench-moderation.sh makes one); the peer is skipped without it.")
    var peerPython: String?

    struct Labelled {
        var functionality: String
        var text: String
        var hateful: Bool
    }

    struct Scores {
        var truePositives = 0, falsePositives = 0, falseNegatives = 0, trueNegatives = 0
        var perFunctionality: [String: (right: Int, total: Int)] = [:]

        init(_ suite: [Labelled], predicted: [Bool]) {
            for (item, hateful) in zip(suite, predicted) {
                switch (item.hateful, hateful) {
                case (true, true): truePositives += 1
                case (true, false): falseNegatives += 1
                case (false, true): falsePositives += 1
                case (false, false): trueNegatives += 1
                }
                var entry = perFunctionality[item.functionality, default: (0, 0)]
                entry.total += 1
                if item.hateful == hateful { entry.right += 1 }
                perFunctionality[item.functionality] = entry
            }
        }

        var precision: Double { Double(truePositives) / Double(max(1, truePositives + falsePositives)) }
        var recall: Double { Double(truePositives) / Double(max(1, truePositives + falseNegatives)) }
        var f1: Double { precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall) }
        func accuracy(_ functionality: String) -> String {
            guard let entry = perFunctionality[functionality] else { return "" }
            return String(format: "%.3f (%d/%d)", Double(entry.right) / Double(entry.total), entry.right, entry.total)
        }
    }

    func run() async throws {
        let csvPath = data + "/hatecheck/test_suite_cases.csv"
        let suite = try Self.loadHateCheck(csvPath)
        print("HateCheck: \(suite.count) cases, \(suite.filter(\.hateful).count) hateful (\(csvPath))")
        let moderator = LocalModerator()

        let ours = Scores(suite, predicted: suite.map { moderator.classify($0.text).blocks })
        var peer: Scores?
        var peerMicroseconds: Double?
        var peerOwn: (right: Int, total: Int)?
        let own = try Self.loadCases(cases)

        if let peerPython {
            let object = try PeerProcess.object(python: peerPython, script: "-c", arguments: [Self.peerScript, csvPath, cases])
            guard let flags = object["hatecheck"] as? [Bool], flags.count == suite.count, let ownFlags = object["own"] as? [Bool],
                  let seconds = object["seconds"] as? Double, let version = object["version"] as? String else {
                throw ValidationError("the better_profanity peer printed an unexpected object; run scripts/bench-moderation.sh again")
            }
            peer = Scores(suite, predicted: flags)
            peerMicroseconds = seconds / Double(suite.count) * 1e6
            peerOwn = (zip(own, ownFlags).filter { ($0.expect == "block") == $1 }.count, own.count)
            print("peer: better_profanity \(version), \"contains profanity\" as the block decision")
        } else {
            print("peer skipped: pass --peer-python (scripts/bench-moderation.sh sets up better_profanity in a venv)")
        }

        print("\nHateCheck, predicted hateful = blocks (toxicity > \(ModerationResult.blockThreshold))")
        print("| classifier | precision | recall | F1 | TP | FP | FN | TN |")
        print("|---|---|---|---|---|---|---|---|")
        func row(_ name: String, _ scores: Scores) {
            print(String(format: "| %@ | %.3f | %.3f | %.3f | %d | %d | %d | %d |", name, scores.precision, scores.recall, scores.f1,
                         scores.truePositives, scores.falsePositives, scores.falseNegatives, scores.trueNegatives))
        }
        row("griot LocalModerator", ours)
        if let peer { row("better_profanity (peer)", peer) }

        print("\nAccuracy per functionality")
        print("| functionality | gold | griot | \(peer == nil ? "" : "better_profanity |")")
        print("|---|---|---|\(peer == nil ? "" : "---|")")
        var seen: [String] = []
        for item in suite where !seen.contains(item.functionality) { seen.append(item.functionality) }
        for functionality in seen {
            let gold = functionality.hasSuffix("_nh") ? "non-hateful" : "hateful"
            print("| \(functionality) | \(gold) | \(ours.accuracy(functionality)) | \(peer.map { $0.accuracy(functionality) + " |" } ?? "")")
        }

        print("\nOur own cases (\(cases))")
        var failures = 0
        var perExpectation: [String: (right: Int, total: Int)] = [:]
        for item in own {
            let result = moderator.classify(item.text)
            let got = result.needsCrisisResponse ? "crisis" : result.blocks ? "block" : "allow"
            var entry = perExpectation[item.expect, default: (0, 0)]
            entry.total += 1
            if got == item.expect { entry.right += 1 } else {
                failures += 1
                print("  FAIL expected \(item.expect), got \(got): \(item.text)")
            }
            perExpectation[item.expect] = entry
        }
        for (expect, entry) in perExpectation.sorted(by: { $0.key < $1.key }) { print("  \(expect): \(entry.right)/\(entry.total)") }
        print("  griot: \(own.count - failures)/\(own.count) pass")
        if let peerOwn { print("  better_profanity (block when profane; no crisis routing): \(peerOwn.right)/\(peerOwn.total) agree on block or not") }

        print("\nSpeed (one thread, best of \(passes) passes)")
        let suiteTexts = suite.map(\.text)
        let ownTexts = own.map(\.text)
        let longReply = String(repeating: "My grandmother remembered the church on Fifth Street, the choir, and the night in 1958 when it burned. ", count: 8)
        for (name, texts) in [("HateCheck messages", suiteTexts), ("own cases", ownTexts), ("800-character reply", [longReply])] {
            let seconds = Self.best(of: passes) {
                var flagged = 0
                for _ in 0..<(texts.count == 1 ? 2000 : 1) { for text in texts where moderator.classify(text).blocks { flagged += 1 } }
                return flagged
            }
            let count = Double(texts.count == 1 ? 2000 : texts.count)
            print(String(format: "  griot %@: %.1f µs per message", name, seconds / count * 1e6))
        }
        if let peerMicroseconds { print(String(format: "  better_profanity HateCheck messages: %.1f µs per message", peerMicroseconds)) }
    }

    static func best(of passes: Int, _ body: () -> Int) -> Double {
        var best = Double.infinity
        var sink = 0
        for _ in 0..<max(1, passes) {
            let start = ContinuousClock.now
            sink &+= body()
            let elapsed = ContinuousClock.now - start
            best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        if sink == Int.min { print(sink) }
        return best
    }

    struct Case: Decodable {
        var text: String
        var expect: String
    }

    static func loadCases(_ path: String) throws -> [Case] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("cannot read \(path); run from the repository root or pass --cases")
        }
        return try text.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }
            .map { try JSONDecoder().decode(Case.self, from: Data($0.utf8)) }
    }

    /// Reads HateCheck's CSV (RFC 4180 quoting) by its header's column names.
    static func loadHateCheck(_ path: String) throws -> [Labelled] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ValidationError("cannot read \(path); pass --data with the shared data folder (it holds hatecheck/)")
        }
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let scalar = pending ?? scalars.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    if let next = scalars.next() {
                        if next == "\"" { field.unicodeScalars.append("\"") } else { quoted = false; pending = next }
                    } else { quoted = false }
                } else { field.unicodeScalars.append(scalar) }
                continue
            }
            switch scalar {
            case "\"": quoted = true
            case ",": row.append(field); field = ""
            case "\n": row.append(field); rows.append(row); row = []; field = ""
            case "\r": break
            default: field.unicodeScalars.append(scalar)
            }
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        guard let header = rows.first, let functionality = header.firstIndex(of: "functionality"),
              let testCase = header.firstIndex(of: "test_case"), let label = header.firstIndex(of: "label_gold") else {
            throw ValidationError("\(path) has no functionality, test_case and label_gold columns")
        }
        return rows.dropFirst().filter { $0.count == header.count }.map {
            Labelled(functionality: $0[functionality], text: $0[testCase], hateful: $0[label] == "hateful")
        }
    }

    /// The peer, run as `python -c`: better_profanity's contains_profanity on every HateCheck case
    /// (read by path, in file order) and every own case. Prints one JSON object.
    static let peerScript = #"""
import csv, json, sys, time
from importlib.metadata import version
from better_profanity import profanity
profanity.load_censor_words()
with open(sys.argv[1], encoding="utf-8", newline="") as f:
    suite = [row["test_case"] for row in csv.DictReader(f)]
with open(sys.argv[2], encoding="utf-8") as f:
    own = [json.loads(line)["text"] for line in f if line.strip()]
start = time.perf_counter()
flags = [profanity.contains_profanity(text) for text in suite]
seconds = time.perf_counter() - start
print(json.dumps({"version": version("better_profanity"), "hatecheck": flags, "seconds": seconds,
                  "own": [profanity.contains_profanity(text) for text in own]}))
"""#
}
