import Foundation
@testable import GriotExport
import GriotImages
import GriotTestSupport
import Testing

/// Issue 39, item 5: a bedtime story as a PDF, read back by poppler-utils, an independent
/// reader. The text must come back as written and in the story's order, each drawing after the
/// paragraph the story placed it after; a PNG is embedded as an image and a JPEG as its own bytes.
@Suite("Story export as PDF")
struct StoryExportTests {
    static let paragraphs = [
        "Zofia Łukasiewicz climbed the hill behind the bakery to watch the sun go down.",
        "李秀英 sailed her paper boat across the puddle, all the way to the garden gate.",
        "جدتي فاطمة الزهراء كانت تحكي لنا قصة كل مساء في حلب",
    ]

    static func story(png: Data, jpeg: Data) -> StoryExport {
        StoryExport(title: "A bedtime story: Zofia Łukasiewicz and 李秀英", chapters: [
            .init(number: 1, paragraphs: [
                .init(text: paragraphs[0], drawings: [.init(bytes: png, mediaType: "image/png", caption: "Zofia's smiling sun")]),
                .init(text: paragraphs[1], drawings: [.init(bytes: jpeg, mediaType: "image/jpeg", caption: "李秀英的纸船")]),
                .init(text: paragraphs[2], drawings: [.init(bytes: png, mediaType: "image/png", caption: "قمر فاطمة")]),
            ]),
        ], exportedAt: Date(timeIntervalSince1970: 1_764_000_000))
    }

    @Test("A story with PNG and JPEG drawings reads back in order, in three scripts, with every drawing embedded")
    func drawingsAfterTheirParagraphs() throws {
        let png = TestPNG.make(width: 64, height: 48)
        let jpeg = try DrawingImage.thumbnail(TestPNG.make(width: 80, height: 60), maxSide: 80)
        let pdf = Self.story(png: png, jpeg: jpeg).pdf()

        let (text, errors) = try Poppler.text(of: pdf)
        #expect(errors.isEmpty, "poppler complained: \(errors)")
        let flat = Self.comparable(text)
        let expected = ["Abedtimestory:ZofiaŁukasiewiczand李秀英", Self.comparable(Self.paragraphs[0]), "Zofia'ssmilingsun",
                        Self.comparable(Self.paragraphs[1]), "李秀英的纸船", Self.comparable(Self.paragraphs[2]), Self.comparable("قمر فاطمة")]
        var position = flat.startIndex
        for piece in expected {
            let found = flat.range(of: piece, range: position..<flat.endIndex)
            #expect(found != nil, "'\(piece)' is not on the page after what comes before it; pdftotext gave:\n\(text)")
            if let found { position = found.upperBound }
        }
        #expect(try Poppler.info(of: pdf)["Title"] == "A bedtime story: Zofia Łukasiewicz and 李秀英")

        #expect(Self.imageObjects(in: pdf) == 3, "one image object for each drawing")
        #expect(pdf.range(of: jpeg) != nil, "the JPEG is embedded byte for byte, not decoded and recompressed")
        let images = try Self.images(of: pdf)
        #expect(images.map(\.encoding).sorted() == ["image", "image", "jpeg"], "\(images)")
        #expect(images.contains { $0.encoding == "jpeg" && $0.width == 80 && $0.height == 60 })
        #expect(images.contains { $0.encoding == "image" && $0.width == 64 && $0.height == 48 })
        for font in try Poppler.fonts(of: pdf) { #expect(font.embedded, "\(font.name) is not embedded") }
    }

    @Test("A drawing that cannot be read keeps its place as its caption in a frame")
    func unreadableDrawing() throws {
        let story = StoryExport(title: "Kites", chapters: [
            .init(number: 1, paragraphs: [
                .init(text: "The wind came up over the hill.", drawings: [.init(bytes: Data("not a picture at all".utf8), mediaType: "image/png", caption: "Łukasz's red kite")]),
                .init(text: "And the kite flew home.", drawings: [.init(bytes: Data(), mediaType: "image/jpeg", caption: "李秀英's kite")]),
            ], sample: true),
        ])
        let pdf = story.pdf()
        let flat = Self.comparable(try Poppler.text(of: pdf).text)
        let notice = Self.comparable(StoryExport.unreadableNotice)
        let order = ["Kites", Self.comparable(StoryExport.sampleNotice), "Thewindcameupoverthehill.", "Łukasz'sredkite", notice,
                     "Andthekiteflewhome.", "李秀英'skite", notice]
        var position = flat.startIndex
        for piece in order {
            let found = flat.range(of: piece, range: position..<flat.endIndex)
            #expect(found != nil, "'\(piece)' is missing or out of order in \(flat)")
            if let found { position = found.upperBound }
        }
        #expect(Self.imageObjects(in: pdf) == 0)
    }

    @Test("A wide drawing is scaled to the text's width, a tall one to the height limit, and neither is enlarged")
    func drawingsAreScaledToFit() throws {
        let pageWidth = PDFPageSize.letter.width, textWidth = pageWidth - 120
        let story = StoryExport(title: "Sizes", chapters: [
            .init(number: 1, paragraphs: [
                .init(text: "A wide one.", drawings: [.init(bytes: TestPNG.make(width: 1_200, height: 300), mediaType: "image/png", caption: "wide")]),
                .init(text: "A tall one.", drawings: [.init(bytes: TestPNG.make(width: 200, height: 1_000), mediaType: "image/png", caption: "tall")]),
                .init(text: "A small one.", drawings: [.init(bytes: TestPNG.make(width: 40, height: 30), mediaType: "image/png", caption: "small")]),
            ]),
        ])
        let images = try Self.images(of: story.pdf(maxDrawingHeight: 250))
        try #require(images.count == 3, "\(images)")
        // pdfimages gives pixels per inch as drawn: pixels over points, times 72.
        #expect(abs(images[0].xPPI - 1_200 / textWidth * 72) <= 1.5, "the wide one spans the text: \(images[0])")
        #expect(abs(images[1].yPPI - 1_000 / 250.0 * 72) <= 1.5, "the tall one is 250 pt tall: \(images[1])")
        #expect(abs(images[2].xPPI - 72) <= 1.5, "the small one is one point a pixel: \(images[2])")
    }

    @Test("A drawing that does not fit under the text goes whole to the next page, its caption with it")
    func aDrawingBreaksThePage() throws {
        // 34 lines fill a letter page under the title but for about 40 pt: no room for a 320 pt drawing.
        let lines = (1...34).map { "Line \($0) of the long first paragraph." }.joined(separator: "\n")
        let story = StoryExport(title: "A long evening", chapters: [
            .init(number: 1, paragraphs: [
                .init(text: lines, drawings: [.init(bytes: TestPNG.make(width: 300, height: 640), mediaType: "image/png", caption: "Zofia Łukasiewicz's owl")]),
                .init(text: "The owl said goodnight."),
            ]),
        ])
        let pdf = story.pdf()
        #expect(try Poppler.info(of: pdf)["Pages"] == "2")
        let images = try Self.images(of: pdf)
        #expect(images.map(\.page) == [2], "\(images)")
        let first = Self.comparable(try Poppler.text(of: pdf, page: 1).text)
        let second = Self.comparable(try Poppler.text(of: pdf, page: 2).text)
        #expect(first.contains("Line34ofthelongfirstparagraph.") && !first.contains("owl"))
        #expect(second.contains("ZofiaŁukasiewicz'sowl") && second.contains("Theowlsaidgoodnight."))
        #expect(first.contains("Page1") && second.contains("Page2"))
    }

    // MARK: Reading the PDF

    /// How many image XObjects the file holds (Cairo 1.16 writes object dictionaries uncompressed).
    static func imageObjects(in pdf: Data) -> Int {
        String(decoding: pdf, as: Unicode.ASCII.self).components(separatedBy: "/Subtype /Image").count - 1
    }

    struct EmbeddedImage: Sendable {
        var page: Int, width: Int, height: Int
        var encoding: String
        var xPPI: Double, yPPI: Double
    }

    /// `pdfimages -list`: every image drawn, page by page, with its pixel size, its encoding
    /// ("jpeg" for a DCT stream, "image" for Flate) and its resolution as drawn.
    static func images(of pdf: Data) throws -> [EmbeddedImage] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("griot-story-\(UUID().uuidString).pdf")
        try pdf.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/pdfimages"), "pdfimages (poppler-utils) is not installed: run scripts/setup.sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pdfimages")
        process.arguments = ["-list", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let listing = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Columns: page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio.
        return listing.split(separator: "\n").dropFirst(2).compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 14, let page = Int(fields[0]), let width = Int(fields[3]), let height = Int(fields[4]),
                  let xPPI = Double(fields[12]), let yPPI = Double(fields[13]) else { return nil }
            return EmbeddedImage(page: page, width: width, height: height, encoding: fields[8], xPPI: xPPI, yPPI: yPPI)
        }
    }

    /// Text as compared: whitespace and the bidirectional marks pdftotext adds removed.
    static func comparable(_ text: String) -> String {
        ThreadExportPDFTests.comparable(text)
    }

    // MARK: Pictures

}
