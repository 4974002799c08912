import ArgumentParser
import Foundation
import GriotChat
import GriotSafety

/// The claim-level citation check (`GroundedClaim`, what the turn pipeline runs on every cited
/// sentence) on the perturbation sets scripts/make-claims-set.py writes: the share of each kind
/// of altered sentence it flags, and of unaltered ones it flags wrongly. The peer, measured in
/// the same run, is the whole-answer groundedness score (below 0.4) of the same sentence
/// against the same passage, which is what stood between a lie and the user before.
///
/// ```sh
/// griot-bench claims --set evals/claims/tune.jsonl --examples 20     # tuning: shows what it gets wrong
/// griot-bench claims --set evals/claims/heldout.jsonl                # held out: figures only
/// ```
struct ClaimsBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "claims",
        abstract: "Claim-level citation checks on the perturbation sets (flag rate per kind, false flags on unaltered claims).")

    @Option(parsing: .upToNextOption, help: "Sets (JSON lines from scripts/make-claims-set.py).")
    var set: [String] = ["evals/claims/tune.jsonl", "evals/claims/heldout.jsonl"]

    @Option(help: "Print this many items the check gets wrong per kind (use on a tuning set only).")
    var examples = 0

    struct Item: Decodable {
        var kind: String
        var label: Int
        var claim: String
        var passage: String
        var about: [String]
        var source: String
        var split: String
        /// What a reader has beside the story (the paraphrase sets): its description, date and recorder.
        var story: StoryFacts?
    }

    /// An object in the paraphrase sets; the perturbation sets' `story` (a story id) reads as nothing.
    struct StoryFacts: Decodable {
        var description: String?
        var date: String?
        var creator: String?

        init(from decoder: any Decoder) throws {
            guard let container = try? decoder.container(keyedBy: CodingKeys.self) else { return }
            description = try container.decodeIfPresent(String.self, forKey: .description)
            date = try container.decodeIfPresent(String.self, forKey: .date)
            creator = try container.decodeIfPresent(String.self, forKey: .creator)
        }

        enum CodingKeys: String, CodingKey { case description, date, creator }
    }

    func run() throws {
        for path in set {
            let items = try GroundednessBenchmark.readLines(path, as: Item.self)
            guard !items.isEmpty else { throw ValidationError("\(path) is empty; run scripts/make-claims-set.py") }
            if examples > 0, items.contains(where: { $0.split == "heldout" }) {
                throw ValidationError("\(path) is held out: its items are not shown (leave out --examples)")
            }
            let scorer = GroundednessScorer()
            var flagged: [String: (ours: Int, peer: Int, total: Int)] = [:]
            var shown: [String: Int] = [:]
            let started = Date()
            var verdicts: [GroundedClaim.Verdict] = []
            verdicts.reserveCapacity(items.count)
            // As a turn checks a cited sentence (`CitationCheck`): a quote must be in the passage,
            // then the facts, kinship words and negation around it.
            let abouts = items.map { CitationCheck.about($0.about, description: $0.story?.description, date: $0.story?.date) }
            var outcomes: [CitationCheck.Outcome] = []
            outcomes.reserveCapacity(items.count)
            for (item, about) in zip(items, abouts) {
                outcomes.append(CitationCheck.outcome(claim: item.claim, passage: item.passage, about: about, title: item.about.first ?? ""))
            }
            let seconds = Date().timeIntervalSince(started)
            for (item, about) in zip(items, abouts) { verdicts.append(GroundedClaim.check(item.claim, passage: item.passage, about: about)) }
            for ((item, verdict), outcome) in zip(zip(items, verdicts), outcomes) {
                let ours = outcome != .verified
                let described = (item.about + [item.passage]).joined(separator: "\n")
                let peer = scorer.score(answer: item.claim, passages: [described]).isLowGroundedness
                var row = flagged[item.kind] ?? (0, 0, 0)
                row.ours += ours ? 1 : 0
                row.peer += peer ? 1 : 0
                row.total += 1
                flagged[item.kind] = row
                let wrong = ours != (item.label == 0)
                if wrong, examples > 0, shown[item.kind, default: 0] < examples {
                    shown[item.kind, default: 0] += 1
                    print("  \(item.kind) \(ours ? "flagged (\(outcome.rawValue))" : "passed") [\(verdict.problems.joined(separator: "; "))] support \(String(format: "%.2f", verdict.support)): \(item.claim)")
                }
            }
            print("\n\(path): \(items.count) claims, \(String(format: "%.1f", seconds / Double(items.count) * 1e6)) µs a claim (one thread)")
            print("| kind | claims | flagged (ours) | flagged (peer: groundedness < 0.4) |")
            print("|---|---|---|---|")
            let faithful = ["supported", "teller_kinship", "added_quotes", "joined_facts", "metadata_date", "paraphrase"]
            let order = ["supported", "teller_kinship", "added_quotes", "joined_facts", "metadata_date", "paraphrase", "swap_name", "swap_place", "swap_number", "swap_year", "swap_kinship", "negation", "other_story"]
            for kind in order + flagged.keys.filter({ !order.contains($0) }).sorted() {
                guard let row = flagged[kind] else { continue }
                let label = faithful.contains(kind) ? "\(kind) (faithful: false flags)" : kind
                print(String(format: "| %@ | %d | %.1f%% | %.1f%% |", label, row.total,
                             100 * Double(row.ours) / Double(row.total), 100 * Double(row.peer) / Double(row.total)))
            }
            let faithfulRows = flagged.filter { faithful.contains($0.key) }.values
            if faithfulRows.count > 1 {
                let wrong = faithfulRows.map(\.ours).reduce(0, +), all = faithfulRows.map(\.total).reduce(0, +)
                print(String(format: "| all faithful (false flags) | %d | %.1f%% | %.1f%% |", all, 100 * Double(wrong) / Double(max(1, all)),
                             100 * Double(faithfulRows.map(\.peer).reduce(0, +)) / Double(max(1, all))))
            }
            let altered = flagged.filter { !faithful.contains($0.key) }.values
            guard !altered.isEmpty else { continue }
            let caught = altered.map(\.ours).reduce(0, +), total = altered.map(\.total).reduce(0, +)
            let peerCaught = altered.map(\.peer).reduce(0, +)
            print(String(format: "| all altered | %d | %.1f%% | %.1f%% |", total, 100 * Double(caught) / Double(max(1, total)),
                         100 * Double(peerCaught) / Double(max(1, total))))
        }
    }
}
