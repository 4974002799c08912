import Foundation
import GriotExport

/// The thread export as Griot wrote it before the Pango and Cairo renderer (issue 23): PDF 1.4
/// by hand, the standard Helvetica fonts in WinAnsi, every character outside Windows-1252 as "?".
/// Kept here only as the peer of `griot-bench pdf-export`.
extension ThreadExport {
    func winAnsiPDF(pageSize: PDFPageSize = .letter) -> Data {
        let title = thread.title.isEmpty ? "Untitled conversation" : thread.title
        var writer = PDFDocumentWriter(pageSize: pageSize, info: .init(
            title: title, author: exportedBy, subject: "Confidential: \(courseTitle ?? "conversation") export",
            creationDate: exportedAt))
        for page in WinAnsiTranscriptLayout(export: self, pageSize: pageSize).pages() {
            writer.addPage(page)
        }
        return writer.write()
    }
}
