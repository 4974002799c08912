import ArgumentParser
import Foundation
import GriotArchive
import GriotSearch

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Rank story passages for a query, among the stories the viewer may see.",
        discussion: """
            Without --viewer only public stories are searched. A viewer also sees their own \
            private stories, and family_only stories of the families given with --families.
            """)

    @Argument(help: "What to look for.")
    var query: String

    @Option(name: .long, help: "How many passages to show.")
    var k = 10

    @Option(name: .long, help: "The user id of the person searching.")
    var viewer: String?

    @Option(name: .long, help: "The viewer's family group ids, comma-separated.")
    var families: String?

    @Option(name: .long, help: "Only stories naming one of these people (comma-separated).")
    var people: String?

    @Option(name: .long, help: "Only stories set in one of these places (comma-separated).")
    var places: String?

    @Option(name: .long, help: "Only stories with one of these topics (comma-separated).")
    var topics: String?

    @Option(name: .long, help: "Only stories with one of these tags (comma-separated).")
    var tags: String?

    @Option(name: .long, help: "Only stories about years in this range, e.g. 1920-1939 or 1927.")
    var years: String?

    @Flag(name: .long, help: "Print machine-readable JSON.")
    var json = false

    @Option(name: .long, help: "hybrid (BM25 and vectors, fused), bm25, or dense.")
    var mode: SearchMode = .hybrid

    @Option(name: .long, help: "How hybrid ranks are fused: weighted (normalised scores, --lexical-weight) or rrf (--rrf-k).")
    var fusion: FusionName?

    @Option(name: .long, help: "RRF's k (default 60).")
    var rrfK: Float?

    @Option(name: .long, help: "The BM25 arm's weight in weighted fusion, 0...1 (default 0.5).")
    var lexicalWeight: Float?

    @Flag(name: .long, help: "Show each passage's rank and score in each arm, and spelling expansions.")
    var explain = false

    enum SearchMode: String, ExpressibleByArgument, CaseIterable { case hybrid, bm25, dense }
    enum FusionName: String, ExpressibleByArgument, CaseIterable { case weighted, rrf }

    @OptionGroup var options: ArchiveOptions

    func validate() throws {
        guard k > 0, k <= 1000 else { throw ValidationError("--k must be between 1 and 1000") }
        if query.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("the query is empty; say what to look for, e.g. griot search \"the 1927 flood\"")
        }
        _ = try yearRange()
        if let lexicalWeight, !(0...1).contains(lexicalWeight) { throw ValidationError("--lexical-weight must be between 0 and 1, e.g. 0.5") }
        if let rrfK, rrfK < 0 { throw ValidationError("--rrf-k must be 0 or more, e.g. 60") }
    }

    var settings: RetrievalSettings {
        var settings = RetrievalSettings()
        settings.mode = switch mode {
        case .hybrid: .hybrid
        case .bm25: .lexical
        case .dense: .dense
        }
        if fusion == .rrf || (fusion == nil && rrfK != nil) {
            settings.fusion = .reciprocalRank(k: rrfK ?? 60)
        } else if let lexicalWeight {
            settings.fusion = .weighted(lexicalWeight: lexicalWeight)
        }
        return settings
    }

    func run() async throws {
        let archive = try await options.openArchive(embedding: mode != .bm25)
        let filter = SearchFilter(
            viewer: Viewer(userID: viewer, familyGroupIDs: Set(list(families))),
            people: list(people), places: list(places), topics: list(topics), tags: list(tags),
            years: try yearRange())
        let outcome = try await archive.search(query, filter: filter, k: k, settings: settings)
        let results = outcome.results
        if json {
            print(try jsonText(results, expansions: outcome.spellingExpansions))
        } else if results.isEmpty {
            print("No passages match \"\(query)\" among the stories this viewer may see. Try fewer or other words, or drop a filter.")
        } else {
            printHuman(results)
            if explain {
                print("\nmode \(mode.rawValue)\(mode == .hybrid ? ", fusion \(settings.fusion)" : "")")
                for (word, replacements) in outcome.spellingExpansions.sorted(by: { $0.key < $1.key }) {
                    print("spelling: \(word) → \(replacements.joined(separator: ", "))")
                }
            }
        }
    }

    private func printHuman(_ results: [PassageResult]) {
        let bold = Terminal.standardOutputIsTerminal
        for (rank, result) in results.enumerated() {
            let passage = result.passage
            var place = [passage.storyID]
            if let start = passage.startSeconds { place.append("at " + clock(start)) }
            if let speaker = passage.speaker { place.append(speaker) }
            print(String(format: "%2d. %@  (%@)  score %.2f", rank + 1, result.storyTitle, place.joined(separator: " · "), result.score))
            let snippet = bold ? result.snippet.marked(open: "\u{1B}[1;33m", close: "\u{1B}[0m") : result.snippet.marked()
            print("    " + snippet)
            if explain {
                func arm(_ name: String, _ rank: ArmRank?) -> String {
                    rank.map { String(format: "%@ #%d (%.4f)", name, $0.rank, $0.score) } ?? "\(name) —"
                }
                print("    " + arm("bm25", result.lexical) + "   " + arm("dense", result.dense) + String(format: "   fused %.4f", result.score))
            }
        }
    }

    private func jsonText(_ results: [PassageResult], expansions: [String: [String]]) throws -> String {
        let rows = results.enumerated().map { rank, result in
            JSONResult(
                rank: rank + 1, storyID: result.passage.storyID, passageID: result.passage.id,
                title: result.storyTitle, score: rounded(result.score),
                snippet: result.snippet.text, highlights: result.snippet.highlights.map { [$0.start, $0.end] },
                startOffset: result.passage.startOffset, endOffset: result.passage.endOffset,
                speaker: result.passage.speaker, startSeconds: result.passage.startSeconds, endSeconds: result.passage.endSeconds,
                lexical: result.lexical.map { JSONArm(rank: $0.rank, score: rounded($0.score)) },
                dense: result.dense.map { JSONArm(rank: $0.rank, score: rounded($0.score)) })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(JSONResults(query: query, mode: mode.rawValue, spellingExpansions: expansions, results: rows)), as: UTF8.self)
    }

    private func rounded(_ value: Float) -> Double { (Double(value) * 10_000).rounded() / 10_000 }

    private func list(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private func yearRange() throws -> ClosedRange<Int>? {
        guard let years else { return nil }
        let parts = years.split(separator: "-", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        switch parts.count {
        case 1: if let year = parts[0] { return year...year }
        case 2: if let from = parts[0], let to = parts[1], from <= to { return from...to }
        default: break
        }
        throw ValidationError("--years \"\(years)\" is not a year or a range; write e.g. 1927 or 1920-1939")
    }

    private func clock(_ seconds: Double) -> String {
        let total = Int(seconds)
        return String(format: "%d:%02d", total / 60, total % 60)
    }
}

/// The stable JSON form of `griot search --json`.
struct JSONResults: Encodable {
    var query: String
    var mode: String
    var spellingExpansions: [String: [String]]
    var results: [JSONResult]

    enum CodingKeys: String, CodingKey {
        case query, mode, results
        case spellingExpansions = "spelling_expansions"
    }
}

/// A passage's rank (1-based) and score in one arm.
struct JSONArm: Encodable {
    var rank: Int
    var score: Double
}

struct JSONResult: Encodable {
    var rank: Int
    var storyID: String
    var passageID: String
    var title: String
    var score: Double
    var snippet: String
    var highlights: [[Int]]
    var startOffset: Int
    var endOffset: Int
    var speaker: String?
    var startSeconds: Double?
    var endSeconds: Double?
    var lexical: JSONArm?
    var dense: JSONArm?

    enum CodingKeys: String, CodingKey {
        case rank, title, score, snippet, highlights, speaker, lexical, dense
        case storyID = "story_id"
        case passageID = "passage_id"
        case startOffset = "start_offset"
        case endOffset = "end_offset"
        case startSeconds = "start_seconds"
        case endSeconds = "end_seconds"
    }
}
