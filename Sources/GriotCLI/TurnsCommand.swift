import ArgumentParser
import Foundation
import GriotChat
import GriotEval
import GriotSafety
import GriotStore

extension MessageStatus: ExpressibleByArgument {}

struct TurnsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "turns",
        abstract: "List recent turns, newest first, to find one to replay (GET /api/ops/turns on the command line).")

    @Option(name: .long, help: "Only this assistant's turns (griot, coach).") var assistant: String?
    @Option(name: .long, help: "Only turns that raised this safety flag (low_groundedness, pii_masked, crisis, ...).") var flag: String?
    @Flag(name: .long, help: "Only answers whose groundedness is under 0.4.") var lowGroundedness = false
    @Option(name: .long, help: "Only turns that ended so (complete, stopped, failed, blocked, interrupted).") var status: MessageStatus?
    @Option(name: .long, help: "Only turns started at or after this time (ISO 8601, e.g. 2026-11-01T00:00:00Z).") var since: String?
    @Option(name: .long, help: "How many (1-500).") var limit = 20
    @Flag(name: .long, help: "Print the turns as JSON, the fields of GET /api/ops/turns: {\"turns\": [{\"turn_id\": ...}]}.") var json = false
    @OptionGroup var options: ArchiveOptions

    func run() async throws {
        if let flag, SafetyFlag.Kind(rawValue: flag) == nil {
            throw ValidationError("--flag \(flag) is not a flag; use one of \(SafetyFlag.kindNames)")
        }
        let start = try since.map { value -> Date in
            guard let date = try? Date(value, strategy: .iso8601) else { throw ValidationError("--since must be an ISO 8601 time such as 2026-11-01T00:00:00Z") }
            return date
        }
        guard (1...500).contains(limit) else { throw ValidationError("--limit must be from 1 to 500") }
        let chats = try await options.openArchive(embedding: false).storage.chats
        let turns = try await chats.recentTurns(TurnFilter(assistant: assistant, flag: flag, lowGroundedness: lowGroundedness, status: status,
                                                     since: start, limit: limit))
        // As operators may read them (README, "What operators may read"): personal details masked.
        let listed = OperatorView.listing(turns.map(TurnListing.init), scrubber: try? PIIScrubber())
        if json {
            print(try Terminal.json(["turns": listed]))
            return
        }
        if listed.isEmpty { Terminal.note("no turns match") }
        let format = ISO8601DateFormatter()
        for turn in listed {
            let question = (turn.question ?? "").replacingOccurrences(of: "\n", with: " ")
            let flags = turn.flags.joined(separator: ",")
            let grounded = turn.groundedness.map { String(format: "%.2f", $0) } ?? "-"
            print("\(turn.turnID)  \(format.string(from: turn.startedAt))  \(turn.assistant) v\(turn.promptVersion)  \(turn.status)  grounded \(grounded)  \(flags.isEmpty ? "-" : flags)  “\(question.prefix(60))”")
        }
    }
}
