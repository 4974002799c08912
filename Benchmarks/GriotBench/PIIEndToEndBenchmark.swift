import ArgumentParser
import Foundation
import GriotAuth
import GriotSafety
import NIOCore
import NIOPosix

/// The PII scorer of record: what a person receives. Each labelled text is the reply of a stub
/// model, streamed token by token (numbers in pieces of up to three digits, as a model's tokenizer
/// cuts them) through `griot serve` to a client of `POST /api/griot/chat/stream`; the deltas the
/// client receives are put together and aligned back onto the text, each "[PHONE]", "[EMAIL]" …
/// standing for the characters it replaced, and scored with the set's rules. The whole-text
/// scrubber's scores on the same texts are printed beside it.
struct PIIEndToEndBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "end-to-end",
        abstract: "pii-eval and the crafted files streamed by a stub model through griot serve, scored on what the client receives.")

    // Not `--data` and `--file`: the parent command `pii` has options of those names.
    @Option(name: .customLong("shared-data"), help: "The shared data folder (holds pii-eval/).")
    var data = "../shared/data"

    @Option(name: .customLong("labelled"), help: "The labelled file inside the data folder.")
    var file = "pii-eval/pii_faker_seed905.jsonl"

    @Option(parsing: .upToNextOption, help: "Crafted-format files streamed the same way, each scored on its own.")
    var crafted = ["evals/pii/crafted-tuning.txt", "evals/pii/crafted-heldout.txt",
                   "evals/pii/addresses-tuning.txt", "evals/pii/addresses-heldout.txt"]

    @OptionGroup var griot: GriotOptions

    @Option(help: "Chats streaming at once.")
    var concurrency = 16

    @Option(help: "Seconds between two tokens of a reply.")
    var pace = 0.001

    @Option(help: "Only the first N texts of the labelled file (0: all).")
    var limit = 0

    // Not `--verbose`: the parent command `pii` has a flag of that name and would take it.
    @Flag(name: .customLong("show-misses"), help: "Print every miss and every masked negative (the tuning sets only).")
    var verbose = false

    @Flag(help: "Keep the temporary folder (database and the service's log).")
    var keep = false

    func run() async throws {
        var sets: [(name: String, records: [PIIRecord], verbose: Bool)] = []
        var main = try PIIRecord.load(URL(fileURLWithPath: data).appendingPathComponent(file))
        if limit > 0 { main = Array(main.prefix(limit)) }
        sets.append((file, main, verbose))
        for path in crafted {
            // The held-out half is scored without its misses printed, so they are never read.
            sets.append((path, try PIICraftedSet.load(URL(fileURLWithPath: path)), verbose && !path.contains("heldout")))
        }
        var replies: [String: [String]] = [:]
        var markers: [[String]] = []
        for (setIndex, set) in sets.enumerated() {
            markers.append(set.records.indices.map { PacedModelStub.markerPrefix + "pii\(setIndex)-\($0)" })
            for (record, marker) in zip(set.records, markers[setIndex]) { replies[marker] = Self.tokens(record.text) }
        }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let stub = try await PacedModelStub.start(pieces: ["Hello."], pace: pace, replies: replies, group: group)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("griot-pii-e2e-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { if keep { print("kept \(work.path)") } else { try? FileManager.default.removeItem(at: work) } }

        let database = work.appendingPathComponent("serve.sqlite")
        try ServiceProcess.ingest(griot.executable, corpus: griot.corpus, into: database, log: work.appendingPathComponent("ingest.log"))
        let (service, client) = try await ServiceProcess.serve(griot.executable, database: database,
                                                               environment: ServiceProcess.environment(servingModel: stub, prompts: griot.prompts),
                                                               log: work.appendingPathComponent("serve.log"), group: group, timeout: 120)
        defer { service.stop() }
        let minter = try await TokenVerifier.make(AuthConfiguration(hs256Secret: AuthConfiguration.developmentSecret, development: true))
        print("stub model on \(stub.baseURL); griot serve on 127.0.0.1:\(client.port); \(concurrency) chats at a time, a token every \(pace * 1000) ms")

        let scrubber = try PIIScrubber()
        var summary: [String] = []
        for (setIndex, set) in sets.enumerated() {
            let started = Date()
            var outcomes: [StreamingChatClient.Outcome] = []
            var next = 0
            while next < set.records.count {
                let batch = next..<min(set.records.count, next + concurrency)
                var chats: [StreamingChatClient.Chat] = []
                for index in batch {
                    // One user a chat: the per-user rate limit is not what is measured here.
                    let token = try await minter.mintDevelopmentToken(userID: "pii-e2e-\(setIndex)-\(index)", role: .client, expiresIn: 3600)
                    chats.append(chat(marker: markers[setIndex][index], token: token))
                }
                let futures = chats.map { client.send($0, at: .now()) }
                outcomes += try await EventLoopFuture.whenAllSucceed(futures, on: group.next()).get()
                next = batch.upperBound
            }
            var predictions: [[PIIMatch]] = []
            var failed = 0, diverged: [String] = []
            for (record, outcome) in zip(set.records, outcomes) {
                if outcome.failure != nil || !outcome.sawDone || outcome.status != 200 { failed += 1 }
                let aligned = PIIReplyAlignment.predictions(original: record.text, received: outcome.text)
                if !aligned.complete { diverged.append("\(record.id): sent \(record.text.debugDescription), received \(outcome.text.debugDescription)") }
                predictions.append(aligned.masks)
            }
            print("\n== \(set.name) through griot serve: \(set.records.count) replies in \(String(format: "%.1f", Date().timeIntervalSince(started))) s; "
                  + "\(failed) failed streams, \(diverged.count) replies that do not align with their text ==")
            if set.verbose { diverged.prefix(20).forEach { print("does not align: \($0)") } }
            let endToEnd = PIIScore(records: set.records, predictions: predictions)
            endToEnd.printReport(verbose: false)
            if set.verbose {
                endToEnd.misses.forEach { print("missed: \($0)") }
                endToEnd.overMasked.forEach { print("over-masked: \($0)") }
            }
            let whole = PIIScore(records: set.records, predictions: set.records.map { scrubber.matches(in: $0.text) })
            print("whole-text scrubber on the same texts: full mask \(PIIScore.sum(whole.fullMask).text), "
                  + "over-masking \(PIIScore.sum(whole.negatives).text)")
            let address = endToEnd.fullMask["ADDRESS"]?.text ?? "-"
            summary.append("\(set.name): end to end full mask \(PIIScore.sum(endToEnd.fullMask).text), ADDRESS \(address), "
                           + "over-masking \(PIIScore.sum(endToEnd.negatives).text); whole text \(PIIScore.sum(whole.fullMask).text); "
                           + "\(failed) failed, \(diverged.count) unaligned")
        }
        print("\n== summary ==")
        summary.forEach { print($0) }
        try await stub.stop()
        try await group.shutdownGracefully()
    }

    private func chat(marker: String, token: String) -> StreamingChatClient.Chat {
        let message = "Tell me about the family's old places. (\(marker))"
        return .init(marker: marker, path: "/api/griot/chat/stream",
                     headers: [("content-type", "application/json"), ("accept", "text/event-stream"), ("authorization", "Bearer \(token)")],
                     body: Array(try! JSONSerialization.data(withJSONObject: ["message": message])), dialect: .griot, keepsText: true)
    }

    /// The reply cut as a model's tokenizer would: a word with the space before it, runs of up to
    /// three digits, each other mark alone.
    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var kind = 0  // 1 letters, 2 digits
        for scalar in text.unicodeScalars {
            let newKind = scalar.properties.isAlphabetic ? 1 : scalar.properties.numericType != nil ? 2 : 0
            let continues = (newKind == 1 && kind == 1) || (newKind == 2 && kind == 2 && current.unicodeScalars.filter { $0.properties.numericType != nil }.count < 3)
                || (current == " " && newKind != 0)
            if !continues && !current.isEmpty {
                tokens.append(current)
                current = ""
            }
            current.unicodeScalars.append(scalar)
            kind = newKind
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}

/// Lines a received reply up with the text the model sent: equal characters pair off, and each
/// mask ("[PHONE]", "[EMAIL]" …) stands for a stretch of the text, chosen so that the rest of the
/// reply lines up too (a value may itself hold what follows its mask, "Dr." before ".").
/// The masked stretches, as UTF-16 ranges of the text, are the predictions.
enum PIIReplyAlignment {
    static let masks: [(token: [UInt16], type: PIIType)] = PIIType.allCases.map { (Array("[\($0.rawValue)]".utf16), $0) }

    static func predictions(original: String, received: String) -> (masks: [PIIMatch], complete: Bool) {
        let text = Array(original.utf16), reply = Array(received.utf16)
        var found: [PIIMatch] = []
        if align(text, 0, reply, 0, &found) { return (found, true) }
        // Keep what lines up from the start, for the report.
        found.removeAll()
        return (found, false)
    }

    private static func align(_ text: [UInt16], _ start: Int, _ reply: [UInt16], _ replyStart: Int, _ found: inout [PIIMatch]) -> Bool {
        var i = start, j = replyStart
        while j < reply.count {
            if let mask = masks.first(where: { reply[j...].starts(with: $0.token) }), !text[i...].starts(with: mask.token) {
                let after = j + mask.token.count
                // Each place the text could resume, nearest first; the first that lines up wins.
                var resume = i + 1
                while resume <= text.count {
                    if resume == text.count ? after == reply.count : (after < reply.count && text[resume] == reply[after]) {
                        found.append(PIIMatch(type: mask.type, range: i..<resume, value: ""))
                        if align(text, resume, reply, after, &found) { return true }
                        found.removeLast()
                    }
                    resume += 1
                }
                return false
            }
            guard i < text.count, text[i] == reply[j] else { return false }
            i += 1
            j += 1
        }
        return i == text.count
    }
}
