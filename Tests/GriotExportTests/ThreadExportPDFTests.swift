import Foundation
@testable import GriotExport
import GriotStore
import GriotTestSupport
import Testing

/// The PDF is read back by poppler-utils, an independent reader: what `pdftotext` recovers is
/// what a person searching or copying from the file gets. In the reading-order text
/// (`-nodiag`) the diagonal watermark is left out; in content-stream order (`raw`) it comes first.
@Suite("Thread export as PDF")
struct ThreadExportPDFTests {
    private let shortThread = ExportFixtures.export([
        ExportFixtures.message(1, .user, "Who was Aunt Lil?"),
        ExportFixtures.message(2, .assistant, "She ran the boarding house on Dumaine Street from 1931."),
    ])

    /// Messages in every script the export must keep: Latin with diacritics, Greek, Cyrillic,
    /// Chinese, Arabic and Hebrew (right to left), combining marks and emoji.
    static let everyScript: [(MessageRecord.Role, String)] = [
        (.user, "Zofia Łukasiewicz here. Моя бабушка said 我想念她 — Ελένη too 😊"),
        (.assistant, "Your grandmother Ελένη Παπαδοπούλου baked bread in Θεσσαλονίκη every Sunday 🍞"),
        (.user, "Дедушка Алексей Иванович работал на заводе в Харькове с 1952 года."),
        (.assistant, "李秀英 was born in 上海 in 1931; 她的女儿叫王芳。"),
        (.user, "جدتي فاطمة الزهراء كانت تخبز الخبز كل صباح في حلب"),
        (.assistant, "סבתא שלי רבקה אפתה חלות בכל יום שישי בירושלים"),
        (.user, "Nguyễn Thị Hương lived in Huế; Ñandú, São Paulo, Zoë and Søren came too 🎉"),
    ]

    @Test("A thread in seven scripts reads back exactly, every font embedded")
    func everyScriptReadsBack() throws {
        let messages = Self.everyScript.enumerated().map { ExportFixtures.message($0.offset + 1, $0.element.0, $0.element.1) }
        let pdf = ExportFixtures.export(messages, thread: ExportFixtures.thread(title: "Zofia Łukasiewicz — 李秀英")).pdf()
        let (text, errors) = try Poppler.text(of: pdf, noDiagonal: true)
        #expect(errors.isEmpty, "poppler complained: \(errors)")
        let lines = text.split(whereSeparator: \.isNewline).map { Self.comparable(String($0)) }
        for (_, message) in Self.everyScript {
            let expected = Self.comparable(message)
            #expect(lines.contains { $0 == expected }, "'\(message)' is not on the page as written; pdftotext gave:\n\(text)")
        }
        #expect(text.contains("Zofia Łukasiewicz — 李秀英"), "the header's title keeps its characters")

        let fonts = try Poppler.fonts(of: pdf)
        #expect(fonts.count >= 4, "Latin, CJK, Arabic or Hebrew and the emoji outlines each need a font: \(fonts)")
        for font in fonts {
            #expect(font.embedded, "\(font.name) (\(font.type)) is not embedded")
        }
    }

    @Test("A long thread, laid out on several threads at once, reads back in order with each font embedded once")
    func aLongThreadLaidOutInParallelReadsBack() throws {
        let rounds = 20 // 140 messages: enough for the layout to be split between threads
        let messages = (0..<(rounds * Self.everyScript.count)).map { index in
            let (role, text) = Self.everyScript[index % Self.everyScript.count]
            return ExportFixtures.message(index + 1, role, text)
        }
        let pdf = ExportFixtures.export(messages).pdf()
        let (text, errors) = try Poppler.text(of: pdf, noDiagonal: true)
        #expect(errors.isEmpty, "poppler complained: \(errors)")
        let lines = text.split(whereSeparator: \.isNewline).map { Self.comparable(String($0)) }
        for (_, message) in Self.everyScript {
            let expected = Self.comparable(message)
            #expect(lines.filter { $0 == expected }.count == rounds, "'\(message)' is not on the pages \(rounds) times as written")
        }
        // In the thread's order: the seven messages follow each other round after round.
        let order = lines.compactMap { line in Self.everyScript.firstIndex { Self.comparable($0.1) == line } }
        #expect(order == Array(repeating: Array(0..<Self.everyScript.count), count: rounds).flatMap { $0 })
        let short = try Poppler.fonts(of: ExportFixtures.export(Self.everyScript.enumerated().map {
            ExportFixtures.message($0.offset + 1, $0.element.0, $0.element.1)
        }).pdf())
        let fonts = try Poppler.fonts(of: pdf)
        #expect(fonts.allSatisfy { $0.embedded }, "\(fonts)")
        #expect(Set(fonts.map(\.name)).count == fonts.count, "a font is embedded twice: \(fonts.map(\.name))")
        #expect(fonts.count <= short.count + 1, "the long thread uses the same fonts as the short one: \(fonts.map(\.name)) against \(short.map(\.name))")
    }

    @Test("Han characters are set in the face of the text's language: Chinese, or Japanese beside kana")
    func hanFaceFollowsTheLanguage() throws {
        func cjkFonts(_ text: String) throws -> [String] {
            let pdf = ExportFixtures.export([ExportFixtures.message(1, .user, text)]).pdf()
            return try Poppler.fonts(of: pdf).map(\.name).filter { $0.contains("CJK") }
        }
        let chinese = try cjkFonts("李秀英 was born in 上海 in 1931; 她的女儿叫王芳。")
        #expect(!chinese.isEmpty && chinese.allSatisfy { $0.contains("CJKsc") }, "\(chinese)")
        let japanese = try cjkFonts("祖母は東京で生まれました。")
        #expect(!japanese.isEmpty && japanese.allSatisfy { $0.contains("CJKjp") }, "\(japanese)")
        #expect(PDFRenderer.hanLanguage(of: "할머니는 서울 漢江 근처에서 태어났어요") == "ko")
        #expect(PDFRenderer.hanLanguage(of: "Zofia Łukasiewicz") == nil)
    }

    @Test("The file is a PDF a reader accepts, with the thread's metadata")
    func metadata() throws {
        let pdf = shortThread.pdf()
        #expect(pdf.starts(with: Array("%PDF-1.".utf8)))
        let info = try Poppler.info(of: pdf)
        #expect(info["Pages"] == "1")
        #expect(info["Title"] == "Who was Aunt Lil?")
        #expect(info["Author"] == "coach@example.edu")
        #expect(info["Subject"] == "Confidential: Oral History 101 export")
        #expect(info["Creator"] == "Griot")
        #expect(info["CreationDate"] == "2025-05-02T09:00:00Z" || info["CreationDate"] == "2025-05-02T09:00:00+00")
    }

    @Test("A short thread fits on one page with the watermark, the header and the messages")
    func shortThreadOnePage() throws {
        let pdf = shortThread.pdf()
        let (raw, _) = try Poppler.text(of: pdf, raw: true)
        let rawLines = raw.split(whereSeparator: \.isNewline).map(String.init)
        #expect(Self.startsWithWatermark(rawLines), "the watermark is drawn first, under the text")
        #expect(rawLines.contains("Page 1 of 1"))
        #expect(rawLines.contains("Course: Oral History 101 · Exported 2025-05-02 09:00 UTC by coach@example.edu"))
        let (text, _) = try Poppler.text(of: pdf, noDiagonal: true)
        #expect(text.contains("Who was Aunt Lil?"))
        #expect(text.contains("She ran the boarding house on Dumaine Street from 1931."))
    }

    @Test("200 messages run to several pages, each with the watermark and its own page number")
    func longThread() throws {
        let pdf = ExportFixtures.export(ExportFixtures.longConversation(200)).pdf()
        let pageCount = try #require(Int(try Poppler.info(of: pdf)["Pages"] ?? ""))
        #expect(pageCount >= 5)
        for page in 1...pageCount {
            let (raw, _) = try Poppler.text(of: pdf, page: page, raw: true)
            let lines = raw.split(whereSeparator: \.isNewline).map(String.init)
            #expect(Self.startsWithWatermark(lines), "page \(page) has no watermark")
            #expect(lines.contains("Page \(page) of \(pageCount)"))
            #expect(lines.contains("Who was Aunt Lil?"), "page \(page) has no title in its header")
        }
        // Nothing is lost at the page breaks: every reply is there, the last on the last page.
        let (all, _) = try Poppler.text(of: pdf, noDiagonal: true)
        let flat = all.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for number in stride(from: 2, through: 200, by: 2) {
            #expect(flat.contains("Reply number \(number) ends here."))
        }
        #expect(try Poppler.text(of: pdf, page: pageCount, raw: true).text.contains("Reply number 200 ends here."))
    }

    @Test("The watermark runs up the page's diagonal in light grey, under the text")
    func watermarkIsDiagonalAndGrey() throws {
        let pdf = ExportFixtures.export([]).pdf()
        let words = try #require(try Poppler.words(of: pdf).first)
        // Poppler gives the rotated word in pieces of a letter or two; from the bottom of the
        // page up, each piece is further right, and they spell the word.
        let pieces = words.filter { $0.yMax - $0.yMin > 30 }.sorted { $0.yMin > $1.yMin }
        #expect(pieces.count >= 4)
        #expect(pieces.map(\.text).joined().hasPrefix("Confidentia"), "\(pieces.map(\.text))")
        for (lower, upper) in zip(pieces, pieces.dropFirst()) {
            #expect(upper.xMin > lower.xMin, "'\(upper.text)' is not to the right of '\(lower.text)'")
        }
        // At the page's centre the page shows the watermark's light grey, nothing darker.
        let image = try Poppler.grayImage(of: pdf, dpi: 36)
        var centre: [UInt8] = []
        let (midX, midY) = (image.width / 2, image.height / 2)
        for y in (midY - 6)...(midY + 6) {
            for x in (midX - 6)...(midX + 6) { centre.append(image.pixels[y * image.width + x]) }
        }
        let darkest = try #require(centre.min())
        #expect(darkest >= 190 && darkest <= 235, "the centre's darkest grey is \(darkest)")
    }

    @Test("Unfinished replies show their status on the page")
    func statusesOnThePage() throws {
        let export = ExportFixtures.export([
            ExportFixtures.message(1, .user, "Who was Aunt Lil?"),
            ExportFixtures.message(2, .assistant, "She ran the board", status: .stopped),
            ExportFixtures.message(3, .assistant, "", status: .failed),
        ])
        let (text, _) = try Poppler.text(of: export.pdf(), raw: true)
        #expect(text.contains("stopped by the user"))
        #expect(text.contains("failed (the model broke off)"))
        #expect(text.contains("(no text)"))
    }

    @Test("Markup characters, PDF syntax and control characters are text, read back as written")
    func awkwardText() throws {
        let messages = [
            "Unbalanced ) and ( and (nested (parens)) with C:\\lodgers\\ledger.txt",
            "<b>not bold</b> & <span foreground=\"red\">not red</span> 'quoted'",
            ") Tj ET %%EOF endstream",
            "“She said ‘never’ — twice…” Ünïcødé, e\u{301}tude",
        ]
        let export = ExportFixtures.export(
            messages.enumerated().map { ExportFixtures.message($0.offset + 1, .user, $0.element) }
                + [ExportFixtures.message(9, .assistant, "a NUL \u{0}here and a bell \u{7}there")],
            thread: ExportFixtures.thread(title: "Lil's (first) \\ <ledger> 📒"))
        let pdf = export.pdf()
        let (text, errors) = try Poppler.text(of: pdf, noDiagonal: true)
        #expect(errors.isEmpty, "poppler complained: \(errors)")
        let lines = text.split(whereSeparator: \.isNewline).map { Self.comparable(String($0)) }
        for message in messages {
            #expect(lines.contains(Self.comparable(message)), "'\(message)' is not on the page; pdftotext gave:\n\(text)")
        }
        #expect(lines.contains(Self.comparable("a NUL \u{FFFD}here and a bell \u{FFFD}there")), "a control character shows as �")
        #expect(text.contains("Lil's (first) \\ <ledger> 📒"))
    }

    @Test("Every word stays inside the page margins, on Letter and A4")
    func linesFitTheMeasure() throws {
        let words = "Aunt Lil's boarding house had eleven rooms, a pantry ledger, and a parrot named Mister Duplantier. "
        let export = ExportFixtures.export([
            ExportFixtures.message(1, .assistant, String(repeating: words, count: 12)),
            ExportFixtures.message(2, .user, String(repeating: "W", count: 400)),
            ExportFixtures.message(3, .user, String(repeating: "我想念她", count: 60)),
        ], thread: ExportFixtures.thread(title: String(repeating: "A very long thread title ", count: 10)))
        for (pageSize, name) in [(PDFPageSize.letter, "612 x 792"), (.a4, "595.28 x 841.89")] {
            let pdf = export.pdf(pageSize: pageSize)
            #expect(try Poppler.info(of: pdf)["Page size"]?.hasPrefix(name) == true)
            for page in try Poppler.words(of: pdf) {
                for word in page where word.yMax - word.yMin < 30 { // the watermark's letters are larger
                    #expect(word.xMin >= 54 - 0.5 && word.xMax <= pageSize.width - 54 + 0.5,
                            "'\(word.text)' runs past the margins (\(word.xMin)–\(word.xMax))")
                    #expect(word.yMin >= 54 - 4 && word.yMax <= pageSize.height - 54 + 4,
                            "'\(word.text)' runs past the top or bottom margin (\(word.yMin)–\(word.yMax))")
                }
            }
            // The title is cut with an ellipsis to fit beside the page number.
            #expect(try Poppler.text(of: pdf, page: 1, raw: true).text.contains("A very long thread title A very long"))
        }
    }

    @Test("A title with line breaks stays on the header's one line")
    func multilineTitle() throws {
        let export = ExportFixtures.export([], thread: ExportFixtures.thread(title: "Aunt Lil\r\nand the\nledger"))
        let (raw, _) = try Poppler.text(of: export.pdf(), raw: true)
        #expect(raw.split(whereSeparator: \.isNewline).contains("Aunt Lil and the ledger"))
    }

    @Test("A thread with no messages still gives a one-page PDF with the watermark")
    func emptyThread() throws {
        let pdf = ExportFixtures.export([]).pdf()
        #expect(try Poppler.info(of: pdf)["Pages"] == "1")
        let (raw, _) = try Poppler.text(of: pdf, raw: true)
        #expect(Self.startsWithWatermark(raw.split(whereSeparator: \.isNewline).map(String.init)))
        #expect(raw.contains("This thread has no messages to export."))
    }

    @Test("Exports made at once on many threads are each whole")
    func concurrentExports() async throws {
        let pdfs = await withTaskGroup(of: Data.self) { group in
            for index in 0..<8 {
                group.addTask { ExportFixtures.export(ExportFixtures.longConversation(20 + index)).pdf() }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for pdf in pdfs {
            let (text, errors) = try Poppler.text(of: pdf, noDiagonal: true)
            #expect(errors.isEmpty)
            #expect(text.contains("Reply number 20 ends here."))
        }
    }

    /// Whether the page's first drawn text is the watermark: in content order poppler gives the
    /// rotated word a glyph to a line ("fi" is one ligature).
    static func startsWithWatermark(_ lines: [String]) -> Bool {
        var word = ""
        for line in lines where word.count < TranscriptLayout.watermark.count { word += line }
        return word == TranscriptLayout.watermark
    }

    /// A line as compared: whitespace removed (pdftotext's line breaks and spacing are its
    /// own), and the bidirectional embedding marks it adds around right-to-left text dropped.
    static func comparable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter {
            !$0.properties.isWhitespace && !(0x202A...0x202E).contains($0.value) && !(0x2066...0x2069).contains($0.value)
        }))
    }
}
