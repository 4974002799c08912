import Foundation
@testable import GriotExport
import GriotStore
import Testing

@Suite("Thread export as PDF")
struct ThreadExportPDFTests {
    private let shortThread = ExportFixtures.export([
        ExportFixtures.message(1, .user, "Who was Aunt Lil?"),
        ExportFixtures.message(2, .assistant, "She ran the boarding house on Dumaine Street from 1931."),
    ])

    @Test("The file starts with %PDF-1.4 and its last line is %%EOF")
    func headerAndEnd() throws {
        let pdf = shortThread.pdf()
        #expect(pdf.starts(with: Array("%PDF-1.4\n".utf8)))
        let text = String(decoding: pdf, as: UTF8.self)
        let lastLine = text.split(separator: "\n", omittingEmptySubsequences: true).last
        #expect(lastLine == "%%EOF")
    }

    @Test("Every xref offset points at its 'n 0 obj', and stream lengths are right")
    func crossReferenceTable() throws {
        // PDFInspection throws on a wrong offset, a bad entry, a trailer /Size mismatch or a wrong /Length.
        let inspection = try PDFInspection(shortThread.pdf())
        #expect(inspection.offsets.count >= 7) // catalog, pages, info, two fonts, a page and its content
        #expect(inspection.declaredPageCount == inspection.pageCount)
    }

    @Test("A short thread fits on one page with the watermark, the header and the messages")
    func shortThreadOnePage() throws {
        let inspection = try PDFInspection(shortThread.pdf())
        #expect(inspection.pageCount == 1)
        let page = try #require(inspection.pageContents.first)
        #expect(page.contains("(Confidential) Tj"))
        #expect(page.contains("(Page 1 of 1) Tj"))
        #expect(page.contains("(Who was Aunt Lil?) Tj"))
        #expect(page.contains("(Course: Oral History 101  \\267  Exported 2025-05-02 09:00 UTC by coach@example.edu) Tj"))
        #expect(page.contains("(She ran the boarding house on Dumaine Street from 1931.) Tj"))
    }

    @Test("200 messages run to several pages, each with the watermark and its own page number")
    func longThread() throws {
        let inspection = try PDFInspection(ExportFixtures.export(ExportFixtures.longConversation(200)).pdf())
        #expect(inspection.pageCount >= 5)
        #expect(inspection.declaredPageCount == inspection.pageCount)
        for (index, page) in inspection.pageContents.enumerated() {
            #expect(page.contains("(Confidential) Tj"), "page \(index + 1) has no watermark")
            #expect(page.contains("(Page \(index + 1) of \(inspection.pageCount)) Tj"))
            #expect(page.contains("(Who was Aunt Lil?) Tj"), "page \(index + 1) has no title in its header")
        }
        // Nothing is lost at the page breaks: the last reply's last words are on the last page.
        #expect(try #require(inspection.pageContents.last).contains("Reply number 200 ends here."))
    }

    @Test("The watermark is drawn rotated and in light grey")
    func watermarkIsDiagonalAndGrey() throws {
        let page = try #require(try PDFInspection(shortThread.pdf()).pageContents.first)
        let watermark = try #require(page.firstMatch(of: /q (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) [-\d.]+ [-\d.]+ cm BT \/F2 ([\d.]+) Tf ([\d.]+) g 0 0 Td \(Confidential\) Tj ET Q/))
        let (cosine, sine) = (Double(watermark.1)!, Double(watermark.2)!)
        #expect(sine > 0.5 && cosine > 0.5, "the word runs up the diagonal")
        #expect(Double(watermark.3)! == -sine && Double(watermark.4)! == cosine, "a pure rotation")
        #expect(Double(watermark.5)! >= 60, "large")
        #expect(Double(watermark.6)! >= 0.75 && Double(watermark.6)! < 1, "light grey")
    }

    @Test("Unfinished replies show their status on the page")
    func statusesOnThePage() throws {
        let export = ExportFixtures.export([
            ExportFixtures.message(1, .user, "Who was Aunt Lil?"),
            ExportFixtures.message(2, .assistant, "She ran the board", status: .stopped),
            ExportFixtures.message(3, .assistant, "", status: .failed),
        ])
        let page = try #require(try PDFInspection(export.pdf()).pageContents.first)
        #expect(page.contains("(  \\267  stopped by the user) Tj"))
        #expect(page.contains("(  \\267  failed \\(the model broke off\\)) Tj"))
        #expect(page.contains("(\\(no text\\)) Tj"))
    }

    @Test("Parentheses, backslashes, quotes, emoji and CJK leave a valid file, escaped or replaced")
    func awkwardText() throws {
        let export = ExportFixtures.export([
            ExportFixtures.message(1, .user, "Unbalanced ) and ( and (nested (parens)) with C:\\lodgers\\ledger.txt"),
            ExportFixtures.message(2, .assistant, "“She said ‘never’ — twice…” 🎉👨‍👩‍👧 上海 Ünïcødé"),
            ExportFixtures.message(3, .user, ") Tj ET\n%%EOF\nendstream"),
        ], thread: ExportFixtures.thread(title: "Lil's (first) \\ ledger 📒"))
        let inspection = try PDFInspection(export.pdf())
        let page = try #require(inspection.pageContents.first)
        #expect(page.contains("(Unbalanced \\) and \\( and \\(nested \\(parens\\)\\) with C:\\\\lodgers\\\\ledger.txt) Tj"))
        // Typographic quotes and dashes keep their WinAnsi codes; the emoji and each CJK character become "?".
        #expect(page.contains("(\\223She said \\221never\\222 \\227 twice\\205\\224 ?? ?? \\334n\\357c\\370d\\351) Tj"))
        #expect(page.contains("(\\) Tj ET) Tj"))
        #expect(page.contains("(Lil's \\(first\\) \\\\ ledger ?) Tj"))
        let runs = try PDFInspection.textRuns(in: page)
        #expect(runs.contains { $0.bytes == Array("%%EOF".utf8) })
    }

    @Test("Every line of text stays inside the page margins")
    func linesFitTheMeasure() throws {
        let words = "Aunt Lil's boarding house had eleven rooms, a pantry ledger, and a parrot named Mister Duplantier. "
        let export = ExportFixtures.export([
            ExportFixtures.message(1, .assistant, String(repeating: words, count: 12)),
            ExportFixtures.message(2, .user, String(repeating: "W", count: 400)),
        ], thread: ExportFixtures.thread(title: String(repeating: "A very long thread title ", count: 10)))
        for pageSize in [PDFPageSize.letter, .a4] {
            let inspection = try PDFInspection(export.pdf(pageSize: pageSize))
            for page in inspection.pageContents {
                for run in try PDFInspection.textRuns(in: page) where !run.isRotated {
                    let font = run.font == StandardFont.helveticaBold.resourceName ? StandardFont.helveticaBold : .helvetica
                    let width = font.width(of: run.bytes, size: run.size)
                    #expect(run.x + width <= pageSize.width - 54 + 0.01,
                            "'\(PDFInspection.latin1(run.bytes))' runs past the right margin")
                }
            }
        }
    }

    @Test("A title with line breaks stays on the header's one line")
    func multilineTitle() throws {
        let export = ExportFixtures.export([], thread: ExportFixtures.thread(title: "Aunt Lil\r\nand the\nledger"))
        let page = try #require(try PDFInspection(export.pdf()).pageContents.first)
        #expect(page.contains("(Aunt Lil and the ledger) Tj"))
    }

    @Test("A4 exports use the A4 media box, Letter is the default")
    func pageSizes() throws {
        #expect(try PDFInspection(shortThread.pdf()).mediaBoxes == ["0 0 612 792"])
        #expect(try PDFInspection(shortThread.pdf(pageSize: .a4)).mediaBoxes == ["0 0 595.28 841.89"])
    }

    @Test("A thread with no messages still gives a one-page PDF with the watermark")
    func emptyThread() throws {
        let inspection = try PDFInspection(ExportFixtures.export([]).pdf())
        #expect(inspection.pageCount == 1)
        #expect(try #require(inspection.pageContents.first).contains("(Confidential) Tj"))
    }

    @Test("pdftotext reads the watermark on every page and the messages back",
          .enabled(if: Poppler.pdftotext != nil, "pdftotext (poppler-utils) is not installed"))
    func popplerExtractsText() throws {
        let export = ExportFixtures.export(ExportFixtures.longConversation(40) + [
            ExportFixtures.message(41, .user, "“Quoted” (parenthesised) \\ text 🎉"),
        ])
        let pageCount = try PDFInspection(export.pdf()).pageCount
        let (text, errors) = try Poppler.text(of: export.pdf())
        #expect(errors.isEmpty, "poppler complained: \(errors)")
        // Poppler gives diagonal text glyph by glyph, one per line, in drawing order.
        let joined = text.filter { !$0.isWhitespace }
        #expect(joined.ranges(of: "Confidential").count == pageCount)
        #expect(text.contains("Aunt Lil ran the boarding house on Dumaine Street"))
        #expect(text.contains("Page 1 of \(pageCount)"))
        #expect(text.contains("“Quoted” (parenthesised) \\ text ?"))
    }
}
