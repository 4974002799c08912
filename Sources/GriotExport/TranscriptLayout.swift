import Foundation
import GriotStore

/// Lays a thread export out on pages: the header on every page (thread title, course, when and
/// by whom it was exported, "Page n of N"), the messages wrapped to the measure with page breaks
/// between lines, and the diagonal "Confidential" watermark under everything. Text in any script
/// is set as written (``PDFRenderer`` shapes it and finds a font for every character).
///
/// ```swift
/// let pdf = PDFRenderer.document(pageSize: .letter, metadata: metadata) { renderer in
///     TranscriptLayout(export: export, pageSize: .letter).draw(with: renderer)
/// }
/// ```
struct TranscriptLayout {
    static let watermark = "Confidential"

    var export: ThreadExport
    var pageSize: PDFPageSize

    // Measurements in points.
    private let margin = 54.0
    private let headerHeight = 40.0
    private let bodySize = 10.5
    private let bodyLeading = 14.0
    private let labelSize = 10.0
    private let labelLeading = 15.0
    private let metaSize = 9.0
    private let metaGray = 0.35
    private let messageIndent = 10.0
    private let messageGap = 10.0

    init(export: ThreadExport, pageSize: PDFPageSize) {
        self.export = export
        self.pageSize = pageSize
    }

    /// One line of the body placed on a page: which block, which of its lines, where.
    private struct PlacedLine {
        var block: PDFRenderer.TextBlock
        var line: Int
        var x: Double
        var top: Double
    }

    /// Lays out every page, then draws each: watermark first, so the text sits on top of it.
    func draw(with renderer: PDFRenderer) {
        let pages = bodyPages(renderer)
        // The same on every page: laid out once.
        let watermark = watermarkBlock(renderer)
        let details = detailsBlock(renderer)
        for (index, lines) in pages.enumerated() {
            renderer.drawRotated(watermark, centreX: pageSize.width / 2, centreY: pageSize.height / 2,
                                 angle: atan2(pageSize.height, pageSize.width))
            drawHeader(renderer, details: details, pageNumber: index + 1, pageCount: pages.count)
            for placed in lines {
                renderer.draw(placed.block.lines[placed.line], of: placed.block, x: placed.x, top: placed.top)
            }
            renderer.endPage()
        }
    }

    // MARK: Body

    private var contentWidth: Double { pageSize.width - 2 * margin }
    private var bodyTop: Double { margin + headerHeight }
    private var bodyBottom: Double { pageSize.height - margin }

    /// The messages set line by line, a new page whenever the next line would cross the bottom margin.
    private func bodyPages(_ renderer: PDFRenderer) -> [[PlacedLine]] {
        var pages: [[PlacedLine]] = []
        var page: [PlacedLine] = []
        var y = bodyTop
        func room(for height: Double) -> Bool { y + height <= bodyBottom }
        func newPage() {
            pages.append(page)
            page = []
            y = bodyTop
        }
        func place(_ block: PDFRenderer.TextBlock, x: Double, leading: Double) {
            for (index, line) in block.lines.enumerated() {
                let height = max(leading, line.height)
                if !room(for: height), !page.isEmpty { newPage() }
                page.append(PlacedLine(block: block, line: index, x: x, top: y))
                y += height
            }
        }

        let meta = PDFRenderer.TextStyle(size: metaSize, gray: metaGray)
        place(renderer.text(summary, style: meta, width: contentWidth), x: margin, leading: bodyLeading)
        if export.messages.isEmpty {
            y += messageGap
            place(renderer.text("This thread has no messages to export.", style: .init(size: bodySize), width: contentWidth),
                  x: margin, leading: bodyLeading)
        }

        // Every message's label and body laid out first, on all cores; then placed in order.
        let bodies = renderer.texts(export.messages.map { message in
            message.content.allSatisfy(\.isWhitespace)
                ? [("(no text)", PDFRenderer.TextStyle(size: bodySize, gray: 0.45))]
                : [(message.content, PDFRenderer.TextStyle(size: bodySize))]
        }, width: contentWidth - messageIndent)
        let labels = renderer.texts(export.messages.map(labelRuns), width: contentWidth)
        for (body, label) in zip(bodies, labels) {
            // A label is never left alone at the foot of a page: it needs its first line with it.
            let firstLine = max(bodyLeading, body.lines.first?.height ?? 0)
            let labelHeight = label.height(leading: labelLeading)
            if !room(for: messageGap + labelHeight + firstLine) {
                newPage()
            } else {
                y += messageGap
            }
            place(label, x: margin, leading: labelLeading)
            place(body, x: margin + messageIndent, leading: bodyLeading)
        }
        pages.append(page)
        return pages
    }

    /// Who the conversation is between and its size, once, at the top of the first page.
    private var summary: String {
        let thread = export.thread
        return "Assistant: \(thread.assistant)  \u{B7}  User: \(thread.userID)  \u{B7}  "
            + "Started \(thread.createdAt.exportTimestamp)  \u{B7}  \(export.messages.count) "
            + (export.messages.count == 1 ? "message" : "messages")
    }

    /// "User · 2025-05-01 14:03 UTC", with the status in bold when the message did not complete.
    private func labelRuns(for message: MessageRecord) -> [(String, PDFRenderer.TextStyle)] {
        var runs: [(String, PDFRenderer.TextStyle)] = [
            (message.role == .user ? "User" : "Assistant", .init(size: labelSize, bold: true)),
            ("  \u{B7}  \(message.createdAt.exportTimestamp)", .init(size: metaSize, gray: metaGray)),
        ]
        if message.status != .complete {
            runs.append(("  \u{B7}  \(Self.statusNote(message.status))", .init(size: metaSize, bold: true)))
        }
        return runs
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

    /// The header, whose title shares its line with this page's "Page n of N".
    private func drawHeader(_ renderer: PDFRenderer, details: PDFRenderer.TextBlock, pageNumber: Int, pageCount: Int) {
        let meta = PDFRenderer.TextStyle(size: metaSize, gray: metaGray)
        let pageLabel = renderer.text("Page \(pageNumber) of \(pageCount)", style: meta, width: nil)
        renderer.draw(pageLabel, x: pageSize.width - margin - pageLabel.width, top: margin + 2)

        let title = export.thread.title.isEmpty ? "Untitled conversation" : export.thread.title
        let titleBlock = renderer.text(Self.singleLine(title), style: .init(size: 12, bold: true),
                                       width: contentWidth - pageLabel.width - 12, ellipsized: true)
        renderer.draw(titleBlock, x: margin, top: margin)

        renderer.draw(details, x: margin, top: margin + 17)
        renderer.rule(fromX: margin, toX: pageSize.width - margin, y: margin + 33)
    }

    /// The header's second line: the course, and when and by whom the thread was exported.
    private func detailsBlock(_ renderer: PDFRenderer) -> PDFRenderer.TextBlock {
        let course = export.courseTitle ?? export.thread.courseID ?? "none"
        let details = "Course: \(course)  \u{B7}  Exported \(export.exportedAt.exportTimestamp) by \(export.exportedBy)"
        return renderer.text(Self.singleLine(details), style: .init(size: metaSize, gray: metaGray), width: contentWidth, ellipsized: true)
    }

    /// A large light-grey "Confidential", to go across the page's diagonal, centred.
    private func watermarkBlock(_ renderer: PDFRenderer) -> PDFRenderer.TextBlock {
        let diagonal = (pageSize.width * pageSize.width + pageSize.height * pageSize.height).squareRoot()
        // The word spans 60% of the diagonal, whatever the paper: measured at 100 pt, then scaled.
        let probe = renderer.text(Self.watermark, style: .init(size: 100, bold: true), width: nil)
        let size = 100 * 0.6 * diagonal / probe.width
        return renderer.text(Self.watermark, style: .init(size: size, bold: true, gray: 0.85), width: nil)
    }

    /// Header text on one line: every kind of line break ("\r\n", U+2028…) becomes a space.
    static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
