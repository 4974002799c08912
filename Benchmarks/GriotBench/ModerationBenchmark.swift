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

    @Option(help: "Our own case set (every failure is printed: these are not held out).")
    var cases = "evals/moderation/cases.jsonl"

    @Option(help: "The held-out file: only figures per category are printed, never a line, so it can stay held out.")
    var holdout = "evals/moderation/holdout.jsonl"

    @Option(help: "The crafted-spelling file (held out too: figures only).")
    var crafted = "evals/moderation/crafted.jsonl"

    @Option(help: "The tuning file: thresholds and rules are set on it, so its failures are printed.")
    var tuning = "evals/moderation/tuning.jsonl"

    @Option(help: "Held-out harmful messages whose disguised variants are scored (figures only), with the harmful lines of the other held-out files.")
    var fuzzHoldout = "evals/moderation/fuzz-holdout.jsonl"

    @Option(help: "Held-out indirect harm and its benign look-alikes (issue 35; figures only).")
    var indirectHoldout = "evals/moderation/indirect-holdout.jsonl"

    @Option(help: "The tuning file for indirect harm and its benign look-alikes (failures printed).")
    var indirectTuning = "evals/moderation/indirect-tuning.jsonl"

    @Option(help: "The second held-out set of indirect harm and benign look-alikes (written 2026-11-29 before further tuning; figures only).")
    var indirectHoldout2 = "evals/moderation/indirect-holdout-2.jsonl"

    @Option(help: "The second held-out set of harmful messages to disguise (figures only), with the harmful lines of --indirect-holdout2.")
    var fuzzHoldout2 = "evals/moderation/fuzz-holdout-2.jsonl"

    @Option(help: "Print how the moderator reads this message (its words after normalising, and its decision), then stop. Repeatable.")
    var explain: [String] = []

    @Flag(help: "Tuning runs: print the tuning files and their misses only; no held-out file is read, so none of its figures is seen while rules are set.")
    var tuningOnly = false

    @Option(help: "The second tuning file for indirect harm and its benign look-alikes (issue 35, second round; failures printed).")
    var indirectTuning2 = "evals/moderation/indirect-tuning-2.jsonl"

    @Option(help: "The multilingual held-out file (figures only): normalising must leave other scripts as they read.")
    var multilingual = "evals/moderation/multilingual.jsonl"

    @Option(help: "Disguised variants per message and technique.")
    var fuzzVariants = 3

    @Option(help: "The all-MiniLM-L6-v2 folder for the semantic layer (default: GRIOT_MODEL_DIR or ~/.cache/griot/models/all-MiniLM-L6-v2).")
    var model: String?

    @Flag(help: "Rules alone, without the semantic layer (the first-run configuration).")
    var rulesOnly = false

    @Flag(help: "Print each tuning and own-case line's closest prototype similarity per kind (for calibrating; never the held-out files).")
    var similarities = false

    @Option(help: "Extra logit margins for the learned self-harm and harm heads, 'SELF,HARM' (calibration sweeps; default 0,0).")
    var learnedMargins: String?

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
        let moderator: LocalModerator
        if rulesOnly {
            moderator = LocalModerator()
            print("moderator: rules alone")
        } else {
            let folder = model.map { URL(fileURLWithPath: $0) } ?? ModerationSemantics.defaultModelFolder
            let semantics = try ModerationSemantics(folder: folder)
            var thresholds = ModerationSemanticGate.Thresholds.calibrated
            if let learnedMargins {
                let parts = learnedMargins.split(separator: ",").compactMap { Float($0.trimmingCharacters(in: .whitespaces)) }
                guard parts.count == 2 else { throw ValidationError("--learned-margins takes two numbers, 'SELF,HARM', for example 0.5,0.3") }
                thresholds.learnedSelfHarmMargin = parts[0]
                thresholds.learnedHarmMargin = parts[1]
                print("learned heads: extra margins self-harm \(parts[0]), harm \(parts[1])")
            }
            moderator = LocalModerator(semantics: semantics, thresholds: thresholds)
            print("moderator: rules and the semantic layer (\(semantics.prototypeCount) prototypes, static MiniLM vectors from \(folder.path))")
        }

        if !explain.isEmpty {
            for text in explain {
                let result = moderator.classify(text)
                print("\(Self.decision(result)) | \(LocalModerator.reading(text)) | \(result)")
            }
            return
        }

        let ours = Scores(suite, predicted: suite.map { moderator.classify($0.text).blocks })
        var peer: Scores?
        var peerMicroseconds: Double?
        var peerOwn: (right: Int, total: Int)?
        var peerFiles: [String: [Bool]] = [:]
        let ownForPeer = try Self.loadCases(cases)

        if let peerPython {
            let object = try PeerProcess.object(python: peerPython, script: "-c", arguments: [Self.peerScript, csvPath, cases] + [holdout, crafted, tuning].filter { FileManager.default.fileExists(atPath: $0) })
            guard let flags = object["hatecheck"] as? [Bool], flags.count == suite.count, let ownFlags = object["own"] as? [Bool],
                  let seconds = object["seconds"] as? Double, let version = object["version"] as? String else {
                throw ValidationError("the better_profanity peer printed an unexpected object; run scripts/bench-moderation.sh again")
            }
            peer = Scores(suite, predicted: flags)
            peerMicroseconds = seconds / Double(suite.count) * 1e6
            peerOwn = (zip(ownForPeer, ownFlags).filter { ($0.expect == "block") == $1 }.count, ownForPeer.count)
            peerFiles = object["files"] as? [String: [Bool]] ?? [:]
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

        if similarities, let semantics = moderator.semantics {
            for path in [tuning, cases] {
                for item in try Self.loadCases(path) {
                    let matches = semantics.matches(item.text)
                    let figures = ModerationSemantics.Kind.allCases.map { String(format: "%@ %.2f", $0.rawValue, matches[$0]?.similarity ?? 0) }
                    print("SIM \(item.expect) \(item.category ?? "") | \(figures.joined(separator: " ")) | \(item.text)")
                }
            }
        }

        print("\nOur own cases (\(cases))")
        let own = try Self.loadCases(cases)
        Self.report(own, moderator: moderator, printFailures: true)
        if let peerOwn { print("  better_profanity (block when profane; no crisis routing): \(peerOwn.right)/\(peerOwn.total) agree on block or not") }
        var files: [(name: String, cases: [Case])] = [("cases", own)]
        for (name, path, printFailures) in [("held-out", holdout, false), ("crafted", crafted, false), ("tuning", tuning, true),
                                            ("indirect held-out", indirectHoldout, false), ("indirect held-out, second set", indirectHoldout2, false),
                                            ("indirect tuning", indirectTuning, true), ("indirect tuning, second round", indirectTuning2, true),
                                            ("multilingual", multilingual, false)] where printFailures || !tuningOnly {
            guard FileManager.default.fileExists(atPath: path) else { print("\n\(name): \(path) not found, skipped"); continue }
            let loaded = try Self.loadCases(path)
            print("\n\(name.capitalized) (\(path), \(loaded.count) lines\(printFailures ? "" : "; figures only, no line is printed"))")
            Self.report(loaded, moderator: moderator, printFailures: printFailures)
            if let flags = peerFiles[path], flags.count == loaded.count {
                let harmful = zip(loaded, flags).filter { $0.0.expect != "allow" }
                let benign = zip(loaded, flags).filter { $0.0.expect == "allow" }
                print(String(format: "  better_profanity (peer, profane = caught): harmful caught %.3f (%d/%d), benign stopped %.3f (%d/%d)",
                             Double(harmful.filter(\.1).count) / Double(max(1, harmful.count)), harmful.filter(\.1).count, harmful.count,
                             Double(benign.filter(\.1).count) / Double(max(1, benign.count)), benign.filter(\.1).count, benign.count))
            }
            files.append((name, loaded))
        }

        try reportFuzz(moderator: moderator, suite: suite)

        print("\nSpeed (one thread, best of \(passes) passes)")
        let suiteTexts = suite.map(\.text)
        let longReply = String(repeating: "My grandmother remembered the church on Fifth Street, the choir, and the night in 1958 when it burned. ", count: 8)
        for (name, texts) in [("HateCheck messages", suiteTexts), ("own cases", own.map(\.text)), ("800-character reply", [longReply])] {
            let seconds = Self.best(of: passes) {
                var flagged = 0
                for _ in 0..<(texts.count == 1 ? 2000 : 1) { for text in texts where moderator.classify(text).blocks { flagged += 1 } }
                return flagged
            }
            let count = Double(texts.count == 1 ? 2000 : texts.count)
            print(String(format: "  griot %@: %.1f µs per message", name, seconds / count * 1e6))
        }
        if let peerMicroseconds { print(String(format: "  better_profanity HateCheck messages: %.1f µs per message", peerMicroseconds)) }

        // Each message timed on its own, after one untimed pass (the lexicon and the vectors are
        // loaded lazily): the per-message distribution the p95 target is about.
        let everyMessage = suiteTexts + files.flatMap { $0.cases.map(\.text) }
        for text in everyMessage { _ = moderator.classify(text) }
        var microseconds: [Double] = []
        microseconds.reserveCapacity(everyMessage.count * passes)
        for _ in 0..<max(1, passes) {
            for text in everyMessage {
                let start = ContinuousClock.now
                let result = moderator.classify(text)
                let elapsed = ContinuousClock.now - start
                if result.selfHarm < -1 { print(result) }
                microseconds.append(Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
            }
        }
        microseconds.sort()
        func percentile(_ p: Double) -> Double { microseconds[min(microseconds.count - 1, Int(p * Double(microseconds.count)))] }
        print(String(format: "  per message, one thread, %d timings (HateCheck and every file above, %d passes): p50 %.1f µs, p95 %.1f µs, p99 %.1f µs, max %.1f µs",
                     microseconds.count, passes, percentile(0.50), percentile(0.95), percentile(0.99), microseconds.last ?? 0))
    }

    /// Disguised variants (`ModerationFuzz`) of messages the moderator stops as written: the share
    /// still stopped per technique, and of benign messages: the share still allowed. Tuning
    /// sources print their misses; held-out and HateCheck sources print figures only.
    func reportFuzz(moderator: LocalModerator, suite: [Labelled]) throws {
        let tuningCases = try [cases, tuning, indirectTuning, indirectTuning2].filter { FileManager.default.fileExists(atPath: $0) }.flatMap { try Self.loadCases($0) }
        let heldOutCases = try [fuzzHoldout, holdout, "evals/moderation/holdout-2.jsonl", "evals/moderation/holdout-3.jsonl", indirectHoldout]
            .filter { FileManager.default.fileExists(atPath: $0) }.flatMap { try Self.loadCases($0) }
        let sets: [(name: String, harmful: [String], benign: [String], printMisses: Bool)] = [
            ("tuning (cases, tuning, both indirect tuning files)", tuningCases.filter { $0.expect != "allow" }.map(\.text), tuningCases.filter { $0.expect == "allow" }.map(\.text), true),
            ("held-out (fuzz-holdout and the held-out files)", heldOutCases.filter { $0.expect != "allow" }.map(\.text), heldOutCases.filter { $0.expect == "allow" }.map(\.text), false),
            ("HateCheck", suite.filter(\.hateful).map(\.text), suite.filter { !$0.hateful }.map(\.text), false),
        ] + (try secondHeldOutSet())
        print("\nDisguised variants (\(fuzzVariants) per message and technique; each word of 3+ letters disguised with probability 0.6)")
        print("| sources | technique | harmful still stopped | benign still allowed |")
        print("|---|---|---|---|")
        for set in sets where set.printMisses || !tuningOnly {
            let caught = set.harmful.filter { moderator.classify($0).blocks || moderator.classify($0).needsCrisisResponse }
            let allowed = set.benign.filter { !moderator.classify($0).blocks && !moderator.classify($0).needsCrisisResponse }
            let variants = set.name == "HateCheck" ? 1 : fuzzVariants
            var misses: [String] = []
            for technique in ModerationFuzz.Technique.allCases {
                var stopped = 0, total = 0, kept = 0, benignTotal = 0
                for text in caught {
                    for number in 0..<variants {
                        let variant = ModerationFuzz.variant(of: text, technique: technique, number: number)
                        total += 1
                        if Self.decision(moderator.classify(variant)) != "allow" { stopped += 1 } else if set.printMisses { misses.append("\(technique.rawValue): \(variant)") }
                    }
                }
                for text in allowed {
                    for number in 0..<variants {
                        benignTotal += 1
                        let variant = ModerationFuzz.variant(of: text, technique: technique, number: number)
                        if Self.decision(moderator.classify(variant)) == "allow" { kept += 1 } else if set.printMisses { misses.append("benign stopped, \(technique.rawValue): \(variant)") }
                    }
                }
                print(String(format: "| %@ | %@ | %.3f (%d/%d) | %.3f (%d/%d) |", set.name, technique.rawValue, Double(stopped) / Double(max(1, total)), stopped, total,
                             Double(kept) / Double(max(1, benignTotal)), kept, benignTotal))
            }
            for miss in misses { print("  FUZZ \(miss)") }
        }
    }

    /// The second held-out set (issue 35, written before the second round of tuning): its own row,
    /// so its first run and after can be read apart from the files tuned against since.
    func secondHeldOutSet() throws -> [(name: String, harmful: [String], benign: [String], printMisses: Bool)] {
        let paths = [fuzzHoldout2, indirectHoldout2].filter { FileManager.default.fileExists(atPath: $0) }
        guard !paths.isEmpty else { return [] }
        let cases = try paths.flatMap { try Self.loadCases($0) }
        return [("held-out, second set (fuzz-holdout-2, indirect-holdout-2)", cases.filter { $0.expect != "allow" }.map(\.text), cases.filter { $0.expect == "allow" }.map(\.text), false)]
    }

    /// The pipeline's decision for one message: crisis first, then block, else allow.
    static func decision(_ result: ModerationResult) -> String {
        result.needsCrisisResponse ? "crisis" : result.blocks ? "block" : "allow"
    }

    /// Figures per category of a case file: for harmful categories the share routed as expected
    /// (and the share caught at all, crisis or block), for benign ones the share wrongly stopped.
    static func report(_ cases: [Case], moderator: LocalModerator, printFailures: Bool) {
        struct Tally { var right = 0, caught = 0, total = 0 }
        var byCategory: [String: Tally] = [:]
        var order: [String] = []
        var harmful = Tally(), benign = Tally()
        for item in cases {
            let result = moderator.classify(item.text)
            let got = decision(result)
            let category = item.category ?? item.expect
            if byCategory[category] == nil { order.append(category) }
            var tally = byCategory[category, default: Tally()]
            tally.total += 1
            if got == item.expect { tally.right += 1 }
            if got != "allow" { tally.caught += 1 }
            byCategory[category] = tally
            if item.expect == "allow" {
                benign.total += 1
                if got == "allow" { benign.right += 1 } else { benign.caught += 1 }
            } else {
                harmful.total += 1
                if got == item.expect { harmful.right += 1 }
                if got != "allow" { harmful.caught += 1 }
            }
            if printFailures && got != item.expect { print("  FAIL expected \(item.expect), got \(got): \(item.text)\(result.reasons.isEmpty ? "" : "  [" + result.reasons.joined(separator: "; ") + "]")") }
        }
        print("| category | expected | as expected | caught (crisis or block) |")
        print("|---|---|---|---|")
        for category in order {
            let tally = byCategory[category]!
            let expect = cases.first { ($0.category ?? $0.expect) == category }?.expect ?? ""
            print(String(format: "| %@ | %@ | %.3f (%d/%d) | %d |", category, expect, Double(tally.right) / Double(tally.total), tally.right, tally.total, tally.caught))
        }
        if harmful.total > 0 {
            print(String(format: "  harmful routed as expected %.3f (%d/%d), caught %.3f (%d/%d)", Double(harmful.right) / Double(harmful.total), harmful.right, harmful.total,
                         Double(harmful.caught) / Double(harmful.total), harmful.caught, harmful.total))
        }
        if benign.total > 0 {
            print(String(format: "  benign wrongly stopped %.3f (%d/%d)", Double(benign.caught) / Double(benign.total), benign.caught, benign.total))
        }
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
        var category: String?
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
files = {}
for path in sys.argv[3:]:
    with open(path, encoding="utf-8") as f:
        files[path] = [profanity.contains_profanity(json.loads(line)["text"]) for line in f if line.strip()]
print(json.dumps({"version": version("better_profanity"), "hatecheck": flags, "seconds": seconds,
                  "own": [profanity.contains_profanity(text) for text in own], "files": files}))
"""#
}
