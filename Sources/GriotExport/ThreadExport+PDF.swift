import Foundation

extension ThreadExport {
    /// The export as a PDF 1.4 document: a header on every page (thread title, course, export
    /// time and person, "Page n of N"), each message with its role, time and — when it did not
    /// complete — its status, and a large diagonal light-grey "Confidential" on every page.
    ///
    /// Text is set in the standard Helvetica fonts, which cover WinAnsi (Western European)
    /// characters only: typographic quotes and dashes print as themselves, and characters the
    /// fonts cannot show — emoji, CJK, Cyrillic and the like — print as "?". Use ``json()`` when
    /// the exact text matters.
    ///
    /// ```swift
    /// let pdf = export.pdf()
    /// try pdf.write(to: URL(fileURLWithPath: "thread.pdf"))
    /// ```
    public func pdf(pageSize: PDFPageSize = .letter) -> Data {
        let title = thread.title.isEmpty ? "Untitled conversation" : thread.title
        var writer = PDFDocumentWriter(pageSize: pageSize, info: .init(
            title: title, author: exportedBy, subject: "Confidential: \(courseTitle ?? "conversation") export",
            creationDate: exportedAt))
        for page in TranscriptLayout(export: self, pageSize: pageSize).pages() {
            writer.addPage(page)
        }
        return writer.write()
    }
}
