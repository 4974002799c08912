import Foundation
import GriotExport
import GriotStore

/// Lays a thread export out on pages: the header on every page (thread title, course, when and
/// by whom it was exported, "Page n of N"), the messages wrapped to the measure with page breaks
/// between lines, and the diagonal "Confidential" watermark under everything.
///
/// ```swift
/// let pages = WinAnsiTranscriptLayout(export: export, pageSize: .letter).pages()
/// var writer = PDFDocumentWriter(pageSize: .letter, info: info)
/// pages.forEach { writer.addPage($0) }
/// ```
struct WinAnsiTranscriptLayout: Sendable {
    static let watermark = "Confidential"

    var export: ThreadExport
    var pageSize: PDFPageSize

    // Measurements in points.
    private let margin = 54.0
    private let headerHeight = 40.0
    private let bodyFont = StandardFont.helvetica
    private let bodySize = 10.5
    private let bodyLeading = 14.0
    private let labelSize = 10.0
    private let labelLeading = 15.0
    private let metaSize = 9.0
    private let messageIndent = 10.0
    private let messageGap = 10.0

    init(export: ThreadExport, pageSize: PDFPageSize) {
        self.export = export
        self.pageSize = pageSize
    }

    /// Every page's complete content stream, watermark first so the text sits on top of it.
    func pages() -> [PDFContentStream] {
        let bodies = bodyPages()
        return bodies.enumerated().map { index, body in
            var page = PDFContentStream()
            drawWatermark(on: &page)
            drawHeader(on: &page, pageNumber: index + 1, pageCount: bodies.count)
            page.append(body)
            return page
        }
    }

    // MARK: Body

    private var contentWidth: Double { pageSize.width - 2 * margin }
    private var bodyTop: Double { pageSize.height - margin - headerHeight }

    /// The messages set line by line, a new page whenever the next line would cross the bottom margin.
    private func bodyPages() -> [PDFContentStream] {
        var pages: [PDFContentStream] = []
        var page = PDFContentStream()
        var y = bodyTop
        func room(for height: Double) -> Bool { y - height >= margin }
        func newPage() {
            pages.append(page)
            page = PDFContentStream()
            y = bodyTop
        }

        for line in summaryLines() {
            y -= bodyLeading
            page.text(line, font: .helvetica, size: metaSize, x: margin, y: y, gray: 0.35)
        }
        if export.messages.isEmpty {
            y -= messageGap + bodyLeading
            page.text(WinAnsiEncoding.bytes(for: "This thread has no messages to export."), font: bodyFont, size: bodySize,
                      x: margin, y: y)
        }

        let breaker = LineBreaker(font: bodyFont, size: bodySize, width: contentWidth - messageIndent)
        for message in export.messages {
            var lines = breaker.lines(for: message.content)
            let isEmpty = lines.allSatisfy(\.isEmpty)
            if isEmpty { lines = [WinAnsiEncoding.bytes(for: "(no text)")] }
            // A label is never left alone at the foot of a page: it needs its first line with it.
            if !room(for: messageGap + labelLeading + bodyLeading) {
                newPage()
            } else {
                y -= messageGap
            }
            y -= labelLeading
            drawLabel(for: message, on: &page, y: y)
            for line in lines {
                if !room(for: bodyLeading) { newPage() }
                y -= bodyLeading
                page.text(line, font: bodyFont, size: bodySize, x: margin + messageIndent, y: y, gray: isEmpty ? 0.45 : 0)
            }
        }
        pages.append(page)
        return pages
    }

    /// Who the conversation is between and its size, once, at the top of the first page.
    private func summaryLines() -> [[UInt8]] {
        let thread = export.thread
        let summary = "Assistant: \(thread.assistant)  \u{B7}  User: \(thread.userID)  \u{B7}  "
            + "Started \(thread.createdAt.winAnsiTimestamp)  \u{B7}  \(export.messages.count) "
            + (export.messages.count == 1 ? "message" : "messages")
        return LineBreaker(font: .helvetica, size: metaSize, width: contentWidth).lines(for: summary)
    }

    /// "User · 2025-05-01 14:03 UTC", with the status in bold when the message did not complete.
    private func drawLabel(for message: MessageRecord, on page: inout PDFContentStream, y: Double) {
        let role = WinAnsiEncoding.bytes(for: message.role == .user ? "User" : "Assistant")
        page.text(role, font: .helveticaBold, size: labelSize, x: margin, y: y)
        var x = margin + StandardFont.helveticaBold.width(of: role, size: labelSize)
        let time = WinAnsiEncoding.bytes(for: "  \u{B7}  \(message.createdAt.winAnsiTimestamp)")
        page.text(time, font: .helvetica, size: metaSize, x: x, y: y, gray: 0.35)
        x += StandardFont.helvetica.width(of: time, size: metaSize)
        if message.status != .complete {
            let status = WinAnsiEncoding.bytes(for: "  \u{B7}  \(Self.statusNote(message.status))")
            page.text(status, font: .helveticaBold, size: metaSize, x: x, y: y)
        }
    }

    static func statusNote(_ status: MessageStatus) -> String {
        switch status {
        case .complete: "complete"
        case .streaming: "unfinished (still streaming at export)"
        case .stopped: "stopped by the user"
        case .failed: "failed (the model broke off)"
        case .blocked: "blocked by moderation (its text is not exported)"
        case .interrupted: "interrupted (the service stopped while writing it)"
        }
    }

    // MARK: Header and watermark

    private func drawHeader(on page: inout PDFContentStream, pageNumber: Int, pageCount: Int) {
        let top = pageSize.height - margin
        let pageLabel = WinAnsiEncoding.bytes(for: "Page \(pageNumber) of \(pageCount)")
        let pageLabelWidth = StandardFont.helvetica.width(of: pageLabel, size: metaSize)
        page.text(pageLabel, font: .helvetica, size: metaSize, x: pageSize.width - margin - pageLabelWidth, y: top - 12, gray: 0.35)

        let title = export.thread.title.isEmpty ? "Untitled conversation" : export.thread.title
        let titleBytes = Self.fitting(WinAnsiEncoding.bytes(for: Self.singleLine(title)),
                                      font: .helveticaBold, size: 12, width: contentWidth - pageLabelWidth - 12)
        page.text(titleBytes, font: .helveticaBold, size: 12, x: margin, y: top - 12)

        let course = export.courseTitle ?? export.thread.courseID ?? "none"
        let details = "Course: \(course)  \u{B7}  Exported \(export.exportedAt.winAnsiTimestamp) by \(export.exportedBy)"
        let detailBytes = Self.fitting(WinAnsiEncoding.bytes(for: Self.singleLine(details)),
                                       font: .helvetica, size: metaSize, width: contentWidth)
        page.text(detailBytes, font: .helvetica, size: metaSize, x: margin, y: top - 26, gray: 0.35)
        page.rule(fromX: margin, toX: pageSize.width - margin, y: top - 33)
    }

    /// A large light-grey "Confidential" across the page's diagonal, centred.
    private func drawWatermark(on page: inout PDFContentStream) {
        let font = StandardFont.helveticaBold
        let text = WinAnsiEncoding.bytes(for: Self.watermark)
        let diagonal = (pageSize.width * pageSize.width + pageSize.height * pageSize.height).squareRoot()
        let angle = atan2(pageSize.height, pageSize.width)
        // The word spans 60% of the diagonal, whatever the paper.
        let size = 0.6 * diagonal / font.width(of: text, size: 1)
        let halfWidth = font.width(of: text, size: size) / 2
        let halfCapHeight = 0.718 * size / 2 // Helvetica-Bold's cap height is 718/1000 em.
        // Start the baseline so the word's centre lands on the page's centre after rotation.
        let x = pageSize.width / 2 - (halfWidth * cos(angle) - halfCapHeight * sin(angle))
        let y = pageSize.height / 2 - (halfWidth * sin(angle) + halfCapHeight * cos(angle))
        page.rotatedText(text, font: font, size: size, x: x, y: y, angle: angle, gray: 0.85)
    }

    /// Header text on one line: every kind of line break ("\r\n", U+2028…) becomes a space.
    static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    /// `bytes` cut to fit `width`, ending in an ellipsis when anything was cut.
    static func fitting(_ bytes: [UInt8], font: StandardFont, size: Double, width: Double) -> [UInt8] {
        guard font.width(of: bytes, size: size) > width else { return bytes }
        let ellipsis: UInt8 = 0x85
        var cut = bytes
        while !cut.isEmpty, font.width(of: cut + [ellipsis], size: size) > width { cut.removeLast() }
        while cut.last == UInt8(ascii: " ") { cut.removeLast() }
        return cut + [ellipsis]
    }
}
