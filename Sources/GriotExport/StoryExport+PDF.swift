import Foundation

extension StoryExport {
    /// The story as a PDF to print or keep: its title, each chapter's paragraphs with the drawings
    /// the story placed after them, scaled to the text's width (and at most `maxDrawingHeight`
    /// points tall), each with its caption under it, and "Page n" at the foot of every page.
    ///
    /// A drawing whose bytes cannot be read as PNG or JPEG keeps its place as its caption in a
    /// frame, so a reader sees that a picture belongs there. Text in any script is set as written
    /// (``PDFRenderer`` shapes it and embeds a subset of every font it used).
    ///
    /// ```swift
    /// let pdf = story.pdf(pageSize: .a4)
    /// try pdf.write(to: URL(fileURLWithPath: "story.pdf"))
    /// ```
    public func pdf(pageSize: PDFPageSize = .letter, maxDrawingHeight: Double = 320) -> Data {
        let title = Self.singleLine(self.title).isEmpty ? "A bedtime story" : self.title
        let metadata = PDFRenderer.Metadata(title: Self.singleLine(title), subject: "A bedtime story", creationDate: exportedAt)
        return PDFRenderer.document(pageSize: pageSize, metadata: metadata) { renderer in
            var layout = StoryLayout(renderer: renderer, pageSize: pageSize, maxDrawingHeight: maxDrawingHeight)
            layout.draw(title: title, chapters: chapters)
        }
    }

    /// What a chapter written by the offline sample storyteller says before its first paragraph.
    static let sampleNotice = "A sample story, written without the storytelling model."
    /// What stands in a frame, under its caption, for a drawing that could not be read.
    static let unreadableNotice = "(this drawing could not be shown)"

    /// Title text on one line: every kind of line break becomes a space.
    static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 }).trimmingCharacters(in: .whitespaces)
    }
}

/// Sets a story on pages from the top down, drawing as it goes: a block of text breaks between
/// its lines, a drawing goes whole to the next page when the rest of this one cannot hold it, and
/// its caption stays with it.
private struct StoryLayout {
    let renderer: PDFRenderer
    let pageSize: PDFPageSize
    let maxDrawingHeight: Double

    // Measurements in points.
    private let margin = 60.0
    private let footerGap = 24.0
    private let titleSize = 20.0
    private let headingSize = 14.0
    private let bodySize = 12.0
    private let bodyLeading = 17.0
    private let paragraphGap = 9.0
    private let captionSize = 9.5
    private let captionGray = 0.35
    private let drawingGap = 10.0

    private var y: Double
    private var pageNumber = 1
    private var pageHasContent = false

    init(renderer: PDFRenderer, pageSize: PDFPageSize, maxDrawingHeight: Double) {
        self.renderer = renderer
        self.pageSize = pageSize
        self.maxDrawingHeight = maxDrawingHeight
        y = 60
    }

    private var width: Double { pageSize.width - 2 * margin }
    private var bottom: Double { pageSize.height - margin }
    /// The tallest a drawing may be: its maximum, or the whole text area on a short page.
    private var drawingHeightLimit: Double { min(maxDrawingHeight, bottom - margin - 40) }

    mutating func draw(title: String, chapters: [StoryExport.Chapter]) {
        place(renderer.text(title, style: .init(size: titleSize, bold: true), width: width), leading: titleSize * 1.3)
        y += paragraphGap * 2
        for chapter in chapters {
            if chapters.count > 1 {
                let heading = renderer.text("Chapter \(chapter.number)", style: .init(size: headingSize, bold: true), width: width)
                // A heading is not left alone at the foot of a page: it needs room for a line under it.
                if y + headingSize * 1.4 + paragraphGap + bodyLeading > bottom { newPage() }
                place(heading, leading: headingSize * 1.4)
                y += paragraphGap
            }
            if chapter.sample {
                place(renderer.text(StoryExport.sampleNotice, style: .init(size: captionSize, gray: captionGray), width: width), leading: bodyLeading)
                y += paragraphGap
            }
            for paragraph in chapter.paragraphs {
                place(renderer.text(paragraph.text, style: .init(size: bodySize), width: width), leading: bodyLeading)
                y += paragraphGap
                for drawing in paragraph.drawings { place(drawing) }
            }
            y += paragraphGap
        }
        endPage()
    }

    /// Draws `block` line by line from `y`, starting a page whenever the next line would cross the bottom margin.
    private mutating func place(_ block: PDFRenderer.TextBlock, leading: Double) {
        for line in block.lines {
            let height = max(leading, line.height)
            if y + height > bottom, pageHasContent { newPage() }
            renderer.draw(line, of: block, x: margin, top: y)
            y += height
            pageHasContent = true
        }
    }

    /// A drawing scaled to the text's width and the height limit, centred, with its caption
    /// under it; its caption in a frame when its bytes cannot be read.
    private mutating func place(_ drawing: StoryExport.Drawing) {
        // Centred on one line when it fits (unwrapped, so a right-to-left caption is not pushed to the
        // measure's right edge); otherwise wrapped to the measure.
        let style = PDFRenderer.TextStyle(size: captionSize, gray: captionGray)
        let oneLine = renderer.text(StoryExport.singleLine(drawing.caption), style: style, width: nil)
        let caption = oneLine.width <= width ? oneLine : renderer.text(drawing.caption, style: style, width: width)
        let captionHeight = caption.height(leading: captionSize * 1.4)
        if let image = renderer.image(drawing.bytes) {
            let size = image.fitted(width: width, maxHeight: drawingHeightLimit)
            if y + drawingGap + size.height + 4 + captionHeight > bottom, pageHasContent { newPage() }
            y += drawingGap
            renderer.draw(image, x: margin + (width - size.width) / 2, top: y, width: size.width, height: size.height)
            y += size.height + 4
            pageHasContent = true
            for line in caption.lines {
                renderer.draw(line, of: caption, x: margin + max(0, (width - caption.width) / 2), top: y)
                y += max(captionSize * 1.4, line.height)
            }
        } else {
            let notice = renderer.text(StoryExport.unreadableNotice, style: .init(size: captionSize, gray: captionGray), width: width - 24)
            let inner = renderer.text(drawing.caption, style: .init(size: bodySize), width: width - 24)
            let height = 12 + inner.height(leading: bodyLeading) + notice.height(leading: captionSize * 1.4) + 12
            if y + drawingGap + height > bottom, pageHasContent { newPage() }
            y += drawingGap
            renderer.frame(x: margin, top: y, width: width, height: height)
            var top = y + 12
            for line in inner.lines {
                renderer.draw(line, of: inner, x: margin + 12, top: top)
                top += max(bodyLeading, line.height)
            }
            renderer.draw(notice, x: margin + 12, top: top)
            y += height
            pageHasContent = true
        }
        y += drawingGap
    }

    private mutating func newPage() {
        endPage()
        pageNumber += 1
        y = margin
        pageHasContent = false
    }

    /// "Page n" at the foot of the page, then the page ends.
    private func endPage() {
        let label = renderer.text("Page \(pageNumber)", style: .init(size: captionSize, gray: captionGray), width: nil)
        renderer.draw(label, x: (pageSize.width - label.width) / 2, top: bottom + footerGap - captionSize)
        renderer.endPage()
    }
}
