import ArgumentParser
import Foundation
import GriotExport
import GriotStore

/// Exporting a long coaching thread as PDF (issue 23): the service's renderer (Pango lays out
/// and shapes every message, Cairo writes the PDF with its fonts embedded and subset) against
/// the hand-written WinAnsi writer it replaced, in the same run on the same thread. The target:
/// a 1,000-message thread in at most 1 s.
///
/// The thread's messages come from a fixed mix in the scripts a user may write (Latin with
/// diacritics, Greek, Cyrillic, Chinese, Arabic, Hebrew, emoji) and English coaching replies of
/// a few sentences; the old writer prints what it cannot encode as "?".
struct PDFExportBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pdf-export", abstract: "A 1,000-message thread exported as PDF: Pango and Cairo against the old WinAnsi writer.")

    @Option(help: "Messages in the thread.")
    var messages = 1_000

    @Option(help: "Timed exports of each writer (after one untimed export each).")
    var rounds = 5

    @Option(help: "Write the last export of each writer here (pango.pdf, winansi.pdf) to look at.")
    var output: String?

    func run() throws {
        let export = try Self.thread(messages: messages)
        let ours = measure { export.pdf() }
        let peer = measure { export.winAnsiPDF() }
        print("PDF export of a \(messages)-message thread, \(rounds) timed rounds each (release build)")
        for (name, result) in [("pango + cairo (the service)", ours), ("winansi by hand (before)", peer)] {
            print(String(format: "  %-28@ median %8.1f ms  max %8.1f ms  %7.1f kB", name as NSString,
                         result.median, result.max, Double(result.bytes) / 1024))
        }
        print(String(format: "  ratio median %.2f (ours / before); target: at most 1,000 ms — %@", ours.median / peer.median,
                     (ours.max <= 1_000 ? "met (max \(Int(ours.max)) ms)" : "NOT met (max \(Int(ours.max)) ms)") as NSString))
        if let output {
            let folder = URL(fileURLWithPath: output)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try export.pdf().write(to: folder.appendingPathComponent("pango.pdf"))
            try export.winAnsiPDF().write(to: folder.appendingPathComponent("winansi.pdf"))
        }
    }

    struct Result {
        var median: Double
        var max: Double
        var bytes: Int
    }

    func measure(_ write: () -> Data) -> Result {
        var bytes = write().count
        var times: [Double] = []
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            bytes = write().count
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        times.sort()
        return Result(median: times[times.count / 2], max: times.last ?? 0, bytes: bytes)
    }

    static let userLines = [
        "Zofia Łukasiewicz here. Моя бабушка said 我想念她 — Ελένη too 😊",
        "How do I keep a gratitude journal when the week has been hard?",
        "李秀英 asked whether the exercise works in the evening; 她说早上太忙了。",
        "جدتي فاطمة كانت تقول إن الصبر مفتاح الفرج",
        "סבתא שלי רבקה אמרה שכל יום הוא התחלה חדשה",
        "Ich habe heute drei Dinge aufgeschrieben, für die ich dankbar bin. Ça m'a aidé! 🎉",
    ]

    static let reply = "That is a good place to start. Write down three things each evening, however small, and "
        + "note why each one mattered to you. After a week, read them back and notice what repeats. "
        + "If a day feels empty, one line is enough: the habit matters more than the length."

    /// A thread as the store would hand it over, built through the records' Codable form (their
    /// memberwise initialisers are internal to GriotStore).
    static func thread(messages count: Int) throws -> ThreadExport {
        let start = Date(timeIntervalSince1970: 1_746_108_180)
        let decoder = JSONDecoder()
        let thread = try decoder.decode(ThreadRecord.self, from: JSONSerialization.data(withJSONObject: [
            "id": "bench-thread", "assistant": "coach", "userID": "u-bench", "courseID": "gratitude-101",
            "title": "Gratitude practice — Zofia Łukasiewicz", "createdAt": start.timeIntervalSinceReferenceDate,
            "updatedAt": start.timeIntervalSinceReferenceDate,
        ]))
        let records = try (1...count).map { sequence -> MessageRecord in
            let time = start.addingTimeInterval(Double(sequence) * 30).timeIntervalSinceReferenceDate
            let isUser = !sequence.isMultiple(of: 2)
            let content = isUser ? userLines[(sequence / 2) % userLines.count] : reply
            return try decoder.decode(MessageRecord.self, from: JSONSerialization.data(withJSONObject: [
                "id": "m-\(sequence)", "threadID": "bench-thread", "sequence": sequence, "role": isUser ? "user" : "assistant",
                "content": content, "status": "complete", "createdAt": time, "updatedAt": time, "version": 1,
            ]))
        }
        return ThreadExport(thread: thread, messages: records, courseTitle: "Gratitude 101", exportedBy: "coach@example.edu",
                            exportedAt: start.addingTimeInterval(86_400))
    }
}
