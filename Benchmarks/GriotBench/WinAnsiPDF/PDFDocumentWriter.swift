import Foundation
import GriotExport

/// Writes a PDF 1.4 file from page content streams: catalog, page tree, the two standard
/// Helvetica fonts in `WinAnsiEncoding`, an information dictionary, a cross-reference table
/// with each object's byte offset, the trailer and `%%EOF`.
///
/// The streams are stored uncompressed: exports are small, and plain operators keep the file
/// easy to inspect and test.
///
/// ```swift
/// var writer = PDFDocumentWriter(pageSize: .letter, info: .init(title: "Who was Aunt Lil?", creationDate: Date()))
/// writer.addPage(page)
/// let data = writer.write()
/// ```
struct PDFDocumentWriter: Sendable {
    /// What the reader's document properties show. Strings may hold any Unicode: they are
    /// written as UTF-16 text strings, not in the fonts' encoding.
    struct Info: Sendable {
        var title: String
        var author: String?
        var subject: String?
        var creator = "Griot"
        var creationDate: Date
    }

    var pageSize: PDFPageSize
    var info: Info
    private var pages: [PDFContentStream] = []

    init(pageSize: PDFPageSize, info: Info) {
        self.pageSize = pageSize
        self.info = info
    }

    mutating func addPage(_ page: PDFContentStream) {
        pages.append(page)
    }

    // Object numbers: the fixed objects first, then each page followed by its content stream.
    private static let catalogObject = 1
    private static let pageTreeObject = 2
    private static let infoObject = 3
    private static let firstFontObject = 4
    private var firstPageObject: Int { Self.firstFontObject + StandardFont.allCases.count }
    private func pageObject(_ index: Int) -> Int { firstPageObject + 2 * index }

    func write() -> Data {
        // A reader needs at least one page to show anything.
        let pages = self.pages.isEmpty ? [PDFContentStream()] : self.pages
        var file = PDFFileBuffer()
        // The comment of high bytes tells transfer tools the file is binary.
        file.append("%PDF-1.4\n")
        file.append([0x25, 0xE2, 0xE3, 0xCF, 0xD3, 0x0A])

        file.object(Self.catalogObject, "<< /Type /Catalog /Pages \(Self.pageTreeObject) 0 R >>")
        let kids = pages.indices.map { "\(pageObject($0)) 0 R" }.joined(separator: " ")
        file.object(Self.pageTreeObject, "<< /Type /Pages /Kids [\(kids)] /Count \(pages.count) >>")
        file.object(Self.infoObject, infoDictionary())
        for (offset, font) in StandardFont.allCases.enumerated() {
            file.object(Self.firstFontObject + offset,
                        "<< /Type /Font /Subtype /Type1 /BaseFont /\(font.baseFont) /Encoding /WinAnsiEncoding >>")
        }
        let fonts = StandardFont.allCases.enumerated()
            .map { "/\($1.resourceName) \(Self.firstFontObject + $0) 0 R" }.joined(separator: " ")
        let mediaBox = "[0 0 \(PDFContentStream.number(pageSize.width)) \(PDFContentStream.number(pageSize.height))]"
        for (index, page) in pages.enumerated() {
            let contents = pageObject(index) + 1
            file.object(pageObject(index), "<< /Type /Page /Parent \(Self.pageTreeObject) 0 R /MediaBox \(mediaBox) "
                        + "/Resources << /Font << \(fonts) >> /ProcSet [/PDF /Text] >> /Contents \(contents) 0 R >>")
            file.stream(contents, page.data)
        }
        file.finish(root: Self.catalogObject, info: Self.infoObject)
        return file.data
    }

    private func infoDictionary() -> String {
        var entries = ["/Title \(Self.textString(info.title))"]
        if let author = info.author { entries.append("/Author \(Self.textString(author))") }
        if let subject = info.subject { entries.append("/Subject \(Self.textString(subject))") }
        entries.append("/Creator \(Self.textString(info.creator))")
        entries.append("/Producer \(Self.textString("Griot PDFDocumentWriter"))")
        entries.append("/CreationDate (\(info.creationDate.pdfDate))")
        return "<< " + entries.joined(separator: " ") + " >>"
    }

    /// A PDF text string in UTF-16BE with its byte order mark, written in hex, so titles in any
    /// script (and with any parentheses) survive intact.
    static func textString(_ text: String) -> String {
        var hex = "<FEFF"
        for unit in text.utf16 {
            let digits = String(unit, radix: 16, uppercase: true)
            hex += String(repeating: "0", count: 4 - digits.count) + digits
        }
        return hex + ">"
    }
}

/// The bytes of a PDF file being written, and where each object starts in them.
private struct PDFFileBuffer {
    private(set) var data = Data()
    private var offsets: [Int: Int] = [:]

    mutating func append(_ text: String) { data.append(contentsOf: Array(text.utf8)) }
    mutating func append(_ bytes: [UInt8]) { data.append(contentsOf: bytes) }

    mutating func object(_ number: Int, _ body: String) {
        offsets[number] = data.count
        append("\(number) 0 obj\n\(body)\nendobj\n")
    }

    mutating func stream(_ number: Int, _ content: Data) {
        offsets[number] = data.count
        append("\(number) 0 obj\n<< /Length \(content.count) >>\nstream\n")
        data.append(content)
        append("\nendstream\nendobj\n")
    }

    /// The cross-reference table (every entry exactly 20 bytes), trailer and end-of-file marker.
    mutating func finish(root: Int, info: Int) {
        let size = (offsets.keys.max() ?? 0) + 1
        let xrefOffset = data.count
        append("xref\n0 \(size)\n")
        append("0000000000 65535 f\r\n")
        for number in 1..<size {
            // Every number below `size` is written; a gap would be a bug in the writer.
            let offset = offsets[number] ?? 0
            let digits = String(offset)
            append(String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n\r\n")
        }
        append("trailer\n<< /Size \(size) /Root \(root) 0 R /Info \(info) 0 R >>\n")
        append("startxref\n\(xrefOffset)\n%%EOF\n")
    }
}
