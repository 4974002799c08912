import Foundation

extension ThreadExport {
    /// The export as a PDF: a header on every page (thread title, course, export time and
    /// person, "Page n of N"), each message with its role, time and — when it did not complete —
    /// its status, and a large diagonal light-grey "Confidential" on every page.
    ///
    /// Every message is set exactly as written, in any script: ``PDFRenderer`` shapes it with
    /// Pango and embeds a subset of each font used, so a PDF reader can select, search and copy
    /// the text.
    ///
    /// ```swift
    /// let pdf = export.pdf()
    /// try pdf.write(to: URL(fileURLWithPath: "thread.pdf"))
    /// ```
    public func pdf(pageSize: PDFPageSize = .letter) -> Data {
        let title = thread.title.isEmpty ? "Untitled conversation" : thread.title
        let metadata = PDFRenderer.Metadata(
            title: title, author: exportedBy, subject: "Confidential: \(courseTitle ?? "conversation") export",
            creationDate: exportedAt)
        return PDFRenderer.document(pageSize: pageSize, metadata: metadata) { renderer in
            TranscriptLayout(export: self, pageSize: pageSize).draw(with: renderer)
        }
    }
}
