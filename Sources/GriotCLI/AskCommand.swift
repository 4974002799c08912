import ArgumentParser
import Dispatch
import Foundation
import GriotArchive
import GriotChat
import GriotSearch

struct AskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ask",
        abstract: "Ask an assistant a question; the answer streams with its citations and token ledger.",
        discussion: """
            Uses the same pipeline as the HTTP service: the question is stored in a thread before \
            any model is called, passages are retrieved among the stories the viewer may see, and \
            the request is built under the assistant's token budget. Without OPENAI_API_KEY or \
            OPENAI_BASE_URL the offline extractive responder answers (model griot-extractive-1). \
            Ctrl-C stops the answer; what was written so far is stored marked stopped. The \
            assistant's safety stages run as in the service: a message that breaks the content \
            policy is refused (exit status 3) before any model sees it. When the reader of the \
            output goes away (griot ask --json ... | head -1), the answer is stopped and stored \
            marked stopped, and griot exits 0 without a message.
            """)

    @Argument(help: "The question, or a command: /quiz, /summary, /resources.")
    var question: String

    @Option(name: .long, help: "griot (Ask the Griot) or coach.")
    var assistant = "griot"

    @Option(name: .long, help: "The user id of the person asking (default: cli-user).")
    var viewer = "cli-user"

    @Option(name: .long, help: "The asker's family group ids, comma-separated (they see those families' family_only stories).")
    var families: String?

    @Option(name: .long, help: "Continue this thread (its id is printed with every answer).")
    var thread: String?

    @Option(name: .long, help: "The course, for the coach: its thread, title and custom instructions.")
    var course: String?

    @Option(name: .long, help: "The asker's role for assistants with role variants (coach: client or coach).")
    var role: String?

    @Option(name: .long, help: "The asker's display name.")
    var name: String?

    @Option(name: .long, help: "The prompt version: a label (production, latest) or a number.")
    var promptVersion = "production"

    @Flag(name: .long, help: "The question is a voice transcript (it passes the same moderation as typed text).")
    var voice = false

    @Flag(name: .long, help: "Print each event as a line of JSON ({\"event\": ..., \"data\": ...}).")
    var json = false

    @OptionGroup var options: ArchiveOptions

    func validate() throws {
        if question.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("the question is empty; ask something, e.g. griot ask \"Who was Ida Mae Carter?\"")
        }
    }

    func run() async throws {
        let archive = try await options.openArchive()
        let configuration = try options.configuration()
        let engine = try await ChatEngine.open(archive: archive, configuration: configuration,
                                               assistants: try await .served(chats: archive.storage.chats, configuration: configuration))
        let familyIDs = Set((families ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        let request = TurnRequest(assistant: assistant, message: question, viewer: Viewer(userID: viewer, familyGroupIDs: familyIDs),
                                  threadID: thread, courseID: course, role: role, userName: name, promptLabel: promptVersion,
                                  voice: voice)
        let turn: ChatTurn
        do {
            turn = try await engine.startTurn(request)
        } catch let error as ChatError {
            throw ValidationError(error.description)
        }

        // Ctrl-C stops the turn instead of killing the process, so the partial reply is stored.
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
        interrupt.setEventHandler { turn.stop() }
        interrupt.resume()
        defer { interrupt.cancel() }

        var status = "complete"
        var printer = AnswerPrinter(json: json)
        var readerGone = false
        for await event in turn.events {
            // A reader that went away (`| head`) stops the turn as Ctrl-C does; the rest is not printed.
            if !readerGone, !printer.print(event) {
                readerGone = true
                turn.stop()
            }
            if case .done(let summary) = event { status = summary.status.rawValue }
        }
        // The reader took what it wanted; the answer so far is stored (marked stopped) and that is no error.
        if readerGone { return }
        if status == "failed" { throw ExitCode(1) }
        if status == "blocked" { throw ExitCode(3) }
        if status == "stopped" { throw ExitCode(130) }
    }
}

/// Writes a turn's events to the terminal: the answer as it streams, then its sources and ledger.
struct AnswerPrinter {
    var json: Bool
    private var citations: [Citation] = []
    private var ledger: TokenLedger?
    private var meta: TurnMeta?

    init(json: Bool) { self.json = json }

    /// Prints one event; false when standard output's reader has gone away.
    mutating func print(_ event: TurnEvent) -> Bool {
        if json {
            var line = Data("{\"event\":\"\(event.name)\",\"data\":".utf8)
            line.append(event.jsonData())
            line.append(Data("}\n".utf8))
            return StandardOutput.write(line)
        }
        switch event {
        case .meta(let meta):
            self.meta = meta
            Terminal.note("\(meta.assistant) v\(meta.promptVersion) (\(meta.promptHash.prefix(15))…) · \(meta.model) · thread \(meta.threadID)")
        case .delta(let text):
            return StandardOutput.write(Data(text.utf8))
        case .citation(let citation):
            citations.append(citation)
        case .flag(let flag):
            Terminal.note("\n[\(flag.kind.rawValue)] \(flag.message)")
        case .chips, .budget:
            if case .budget(let ledger) = event { self.ledger = ledger }
        case .error(let failure):
            // The operator at the terminal also gets what went wrong inside (redacted).
            Terminal.note("\nerror (\(failure.code)): \(failure.message)" + (failure.detail.map { "\n  \($0)" } ?? ""))
        case .done(let summary):
            var out = "\n"
            if summary.status == .stopped { out += "\n[stopped; the answer so far is saved]\n" }
            if !citations.isEmpty {
                out += "\nSources:\n"
                for citation in citations.sorted(by: { $0.number < $1.number }) {
                    let at = citation.startSeconds.map { " at \(Timestamp.format($0))" } ?? ""
                    let teller = citation.interviewee.map { ", \($0)" } ?? ""
                    out += "[\(citation.number)] \(citation.title)\(teller) (\(citation.storyID)\(at))\n    “\(citation.quote)”\n"
                }
            }
            if let ledger {
                out += "\n" + Self.describe(ledger) + "\n"
            }
            guard StandardOutput.write(Data(out.utf8)) else { return false }
            if let meta { Terminal.note("continue with: griot ask --thread \(meta.threadID) \"...\"") }
        }
        return true
    }

    static func describe(_ ledger: TokenLedger) -> String {
        var parts: [String: Int] = [:]
        var order: [String] = []
        for entry in ledger.entries {
            let key = entry.part.hasPrefix("passage") ? "passages" : entry.part
            if parts[key] == nil { order.append(key) }
            parts[key, default: 0] += entry.tokens
        }
        let passageCount = ledger.entries.filter { $0.part.hasPrefix("passage") }.count
        var text = "Token budget (\(ledger.encoding)): \(ledger.total) of \(ledger.budget) — "
        text += order.map { key in key == "passages" ? "\(passageCount) passages \(parts[key]!)" : "\(key) \(parts[key]!)" }.joined(separator: ", ")
        text += ", reply reserve \(ledger.replyReserve)"
        for drop in ledger.dropped { text += "\n  dropped \(drop.part) (\(drop.tokens) tokens): \(drop.reason)" }
        return text
    }
}
