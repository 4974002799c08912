/// The paper a PDF export is laid out on, in points (1/72 inch).
///
/// ```swift
/// let export = ThreadExport(thread: thread, messages: messages, courseTitle: "Oral History 101",
///                           exportedBy: "coach@example.edu", exportedAt: Date())
/// let pdf = export.pdf(pageSize: .a4)
/// ```
public struct PDFPageSize: Sendable, Hashable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// US Letter, 8.5 × 11 in.
    public static let letter = PDFPageSize(width: 612, height: 792)
    /// ISO A4, 210 × 297 mm.
    public static let a4 = PDFPageSize(width: 595.28, height: 841.89)
}
