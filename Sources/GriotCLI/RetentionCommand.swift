import ArgumentParser
import Foundation
import GriotStore

/// `griot retention report`: what the retention jobs have still to do and what they did, read
/// from the database and its audit log, so that a purge can be shown to have happened.
struct RetentionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "What the retention jobs owe and what they ran (purges, archives, erasures).",
        subcommands: [Report.self], defaultSubcommand: Report.self)

    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print what is past its limit and not yet removed, and the jobs' runs in the audit log.",
            discussion: "Example: griot retention report --days 30 --json")

        @Option(name: .long, help: "How far back to read the jobs' runs, in days.") var days = 30
        @Flag(name: .long, help: "One JSON object.") var json = false
        @OptionGroup var options: ArchiveOptions

        static let jobActions: [(AuditAction, String)] = [
            (.messagePurge, "messages purged 30 days after deletion"),
            (.threadPurge, "threads purged 30 days after deletion"),
            (.messageArchive, "archive runs (messages over 18 months)"),
            (.verdictPurge, "safety verdict purges (over 2 years)"),
            (.auditPurge, "audit log trims"),
            (.userPurge, "user erasures"),
            (.retainedTextPurge, "retained text purges"),
            (.warningExpire, "moderation warning counts expired (90 days)"),
        ]

        struct Ran: Encodable {
            var action: String
            var what: String
            var entries: Int
            var removed: Int
            var last: Date?
        }

        func run() async throws {
            guard days > 0 else { throw ValidationError("--days must be positive") }
            let now = Date()
            var reports: [Output] = []
            for storage in try await options.openEveryStorage() {
                reports.append(try await report(storage, now: now))
            }
            if json {
                print(try Terminal.json(["reports": reports]))
                return
            }
            for output in reports { print(output.text) }
        }

        struct Output: Encodable {
            var database: String
            var at: Date
            var days: Int
            var due: RetentionDue
            var ran: [Ran]

            var text: String {
                var lines = ["retention report for \(database) at \(ISO8601DateFormatter().string(from: at))", "due now (past the limit, not yet removed):"]
                lines.append("  messages deleted over 30 days ago   \(due.deletedMessages)")
                lines.append("  threads deleted over 30 days ago    \(due.deletedThreads)")
                lines.append("  messages over 18 months to archive  \(due.messagesToArchive)")
                lines.append("  safety verdicts over 2 years        \(due.verdicts)")
                lines.append("  retained texts past their purge     \(due.retainedTexts)")
                if let oldest = due.oldestDeletedAt { lines.append("  oldest deletion waiting             \(ISO8601DateFormatter().string(from: oldest))") }
                lines.append("ran in the last \(days) days (audit log):")
                for job in ran {
                    let last = job.last.map { ISO8601DateFormatter().string(from: $0) } ?? "never"
                    lines.append("  \(job.what.padding(toLength: 42, withPad: " ", startingAt: 0)) \(job.entries) entr\(job.entries == 1 ? "y" : "ies"), \(job.removed) removed, last \(last)")
                }
                return lines.joined(separator: "\n")
            }
        }

        func report(_ storage: Storage, now: Date) async throws -> Output {
            let due = try await storage.chats.retentionDue(now: now)
            let since = now.addingTimeInterval(-Double(days) * 86_400)
            var ran: [Ran] = []
            for (action, what) in Self.jobActions {
                var entries: [AuditEntry] = []
                var offset = 0
                while true {
                    let page = try await storage.chats.auditEntries(AuditFilter(actions: [action], since: since, limit: 1_000, offset: offset))
                    entries += page
                    if page.count < 1_000 { break }
                    offset += page.count
                }
                ran.append(Ran(action: action.rawValue, what: what, entries: entries.count,
                               removed: entries.reduce(0) { $0 + Self.removed($1) }, last: entries.map(\.at).max()))
            }
            return Output(database: storage.location.description, at: now, days: days, due: due, ran: ran)
        }

        /// The count an entry's details give (`count`, `messages`, `threads`), or 1 for an entry
        /// that stands for one removed row.
        static func removed(_ entry: AuditEntry) -> Int {
            guard let details = entry.details, let object = try? JSONSerialization.jsonObject(with: Data(details.utf8)) as? [String: Any] else { return 1 }
            for key in ["count", "removed", "messages", "verdicts", "entries"] { if let value = object[key] as? Int { return value } }
            return 1
        }
    }
}
