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

    @OptionGroup var options: ArchiveOptions

    func validate() throws {
        guard k > 0, k <= 1000 else { throw ValidationError("--k must be between 1 and 1000") }
        if query.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("the query is empty; say what to look for, e.g. griot search \"the 1927 flood\"")
        }
        _ = try yearRange()
    }

    func run() async throws {
        let archive = try options.openArchive()
        let filter = SearchFilter(
            viewer: Viewer(userID: viewer, familyGroupIDs: Set(list(families))),
            people: list(people), places: list(places), topics: list(topics), tags: list(tags),
            years: try yearRange())
        let results = try archive.search(query, filter: filter, k: k)
        if json {
            print(try jsonText(results))
        } else if results.isEmpty {
            print("No passages match \"\(query)\" among the stories this viewer may see. Try fewer or other words, or drop a filter.")
        } else {
            printHuman(results)
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
        }
    }

    private func jsonText(_ results: [PassageResult]) throws -> String {
        let rows = results.enumerated().map { rank, result in
            JSONResult(
                rank: rank + 1, storyID: result.passage.storyID, passageID: result.passage.id,
                title: result.storyTitle, score: (Double(result.score) * 10_000).rounded() / 10_000,
                snippet: result.snippet.text, highlights: result.snippet.highlights.map { [$0.start, $0.end] },
                startOffset: result.passage.startOffset, endOffset: result.passage.endOffset,
                speaker: result.passage.speaker, startSeconds: result.passage.startSeconds, endSeconds: result.passage.endSeconds)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(JSONResults(query: query, results: rows)), as: UTF8.self)
    }

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
    var results: [JSONResult]
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

    enum CodingKeys: String, CodingKey {
        case rank, title, score, snippet, highlights, speaker
        case storyID = "story_id"
        case passageID = "passage_id"
        case startOffset = "start_offset"
        case endOffset = "end_offset"
        case startSeconds = "start_seconds"
        case endSeconds = "end_seconds"
    }
}
