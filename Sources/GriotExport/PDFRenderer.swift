import CPangoCairo
import Foundation

/// Every PDF GriotExport writes goes through here: text laid out, broken into lines and shaped by
/// Pango (HarfBuzz underneath: right-to-left Arabic and Hebrew, CJK, combining marks, emoji),
/// drawn by Cairo onto a PDF surface that embeds a subset of each font it used, with a
/// Unicode map, so a reader can select and search the text.
///
/// Fonts come from fontconfig: Noto Sans first, and for a character it lacks, the installed font
/// fontconfig ranks first that has it (DejaVu Sans for Arabic and Hebrew, Noto Sans CJK, Noto
/// Color Emoji…; `scripts/setup.sh` installs them). A character no installed font has is drawn as
/// a box, never dropped.
///
/// A document is made inside ``document(pageSize:metadata:_:)``, which holds one lock:
/// fontconfig and Pango's font map are shared by every export of the process.
///
/// ```swift
/// let pdf = PDFRenderer.document(pageSize: .letter, metadata: .init(title: "Thread", creationDate: Date())) { pdf in
///     let hello = pdf.text("Zofia Łukasiewicz — 李秀英", style: .init(size: 11), width: 400)
///     pdf.draw(hello, x: 54, top: 54)
///     pdf.endPage()
/// }
/// ```
final class PDFRenderer {
    /// What a reader's document properties show; any Unicode.
    struct Metadata {
        var title: String
        var author: String?
        var subject: String?
        var creator = "Griot"
        var creationDate: Date
    }

    /// A run's font size (points), weight and grey level (0 black, 1 white).
    struct TextStyle: Sendable {
        var size: Double
        var bold = false
        var gray = 0.0
    }

    /// Text laid out by Pango: its lines, each with its height and baseline, ready to place.
    final class TextBlock {
        struct Line {
            fileprivate let line: UnsafeMutablePointer<PangoLayoutLine>
            /// Where the line starts from the block's left edge (right-to-left lines start further in).
            let x: Double
            /// The line's logical height, ascent included.
            let height: Double
            /// From the line's top to its baseline.
            let ascent: Double
            /// Whether a run is set in a colour (bitmap) font, which Cairo draws as an image.
            fileprivate let hasColourRuns: Bool
        }

        fileprivate let layout: OpaquePointer
        let lines: [Line]
        /// The widest line's logical width.
        let width: Double

        fileprivate init(layout: OpaquePointer, isColour: (UnsafeMutablePointer<PangoGlyphItem>) -> Bool) {
            self.layout = layout
            var lines: [Line] = []
            let iterator = pango_layout_get_iter(layout)
            repeat {
                var ink = PangoRectangle(), logical = PangoRectangle()
                pango_layout_iter_get_line_extents(iterator, &ink, &logical)
                let baseline = pango_layout_iter_get_baseline(iterator)
                if let line = pango_layout_iter_get_line_readonly(iterator) {
                    lines.append(Line(line: line, x: Self.points(logical.x), height: Self.points(logical.height),
                                      ascent: Self.points(baseline - logical.y),
                                      hasColourRuns: PDFRenderer.runs(of: line).contains(where: isColour)))
                }
            } while pango_layout_iter_next_line(iterator) != 0
            pango_layout_iter_free(iterator)
            self.lines = lines
            var ink = PangoRectangle(), logical = PangoRectangle()
            pango_layout_get_extents(layout, &ink, &logical)
            width = Self.points(logical.width)
        }

        deinit { g_object_unref(UnsafeMutableRawPointer(layout)) }

        /// The block's height when its lines are set `leading` apart, or further where a line is taller.
        func height(leading: Double) -> Double {
            lines.reduce(0) { $0 + max(leading, $1.height) }
        }

        fileprivate static func points(_ units: Int32) -> Double { Double(units) / Double(PANGO_SCALE) }
    }

    /// Lays out and draws a whole document; `build` must end each page with ``endPage()``.
    static func document(pageSize: PDFPageSize, metadata: Metadata, _ build: (PDFRenderer) -> Void) -> Data {
        lock.withLock {
            let renderer = PDFRenderer(pageSize: pageSize, metadata: metadata)
            build(renderer)
            return renderer.finish()
        }
    }

    // MARK: Text

    /// `text` laid out in `style`, broken into lines no wider than `width` (between words where
    /// it can, inside a word that is too long), or on one line when `width` is nil. With
    /// `ellipsized`, the text stays on one line and ends in "…" where it would pass `width`.
    func text(_ text: String, style: TextStyle, width: Double?, ellipsized: Bool = false) -> TextBlock {
        styledText([(text, style)], width: width, ellipsized: ellipsized)
    }

    /// Runs of text, each in its own style, laid out as one paragraph.
    func styledText(_ runs: [(String, TextStyle)], width: Double?, ellipsized: Bool = false) -> TextBlock {
        Self.layOut(runs, width: width, ellipsized: ellipsized, context: context, fonts: fontKinds)
    }

    /// Many paragraphs laid out at once, each as ``styledText(_:width:ellipsized:)`` would, on
    /// as many threads as the machine has cores (at most four). Shaping is most of an export's
    /// time; each thread has its own Pango font map and context, since Pango's are not to be
    /// shared between threads, and the blocks are drawn afterwards on this renderer's page.
    func texts(_ items: [[(String, TextStyle)]], width: Double?) -> [TextBlock] {
        let workers = min(Self.mostWorkers, ProcessInfo.processInfo.activeProcessorCount, max(1, items.count / 64))
        guard workers > 1 else { return items.map { styledText($0, width: width) } }
        let contexts = Self.workerContexts(workers)
        nonisolated(unsafe) var blocks = [TextBlock?](repeating: nil, count: items.count)
        blocks.withUnsafeMutableBufferPointer { slots in
            nonisolated(unsafe) let slots = slots
            nonisolated(unsafe) let contexts = contexts
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let fonts = FontKinds()
                for index in (items.count * worker / workers)..<(items.count * (worker + 1) / workers) {
                    slots[index] = Self.layOut(items[index], width: width, ellipsized: false, context: contexts[worker], fonts: fonts)
                }
            }
        }
        return blocks.map { $0! }
    }

    private static func layOut(_ runs: [(String, TextStyle)], width: Double?, ellipsized: Bool, context: OpaquePointer, fonts: FontKinds) -> TextBlock {
        let layout = pango_layout_new(context)!
        // The runs' styles as attributes over byte ranges of the joined text (no markup to build and parse).
        let attributes = pango_attr_list_new()
        var text = ""
        var start: UInt32 = 0
        for (piece, style) in runs {
            let drawn = drawable(piece)
            let end = start + UInt32(drawn.utf8.count)
            func insert(_ attribute: UnsafeMutablePointer<PangoAttribute>) {
                attribute.pointee.start_index = start
                attribute.pointee.end_index = end
                pango_attr_list_insert(attributes, attribute)
            }
            let description = pango_font_description_new()
            pango_font_description_set_family(description, fontFamily)
            pango_font_description_set_weight(description, style.bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL)
            pango_font_description_set_size(description, Int32((style.size * Double(PANGO_SCALE)).rounded()))
            insert(pango_attr_font_desc_new(description))
            pango_font_description_free(description)
            let level = UInt16((style.gray * 65535).rounded())
            insert(pango_attr_foreground_new(level, level, level))
            if let language = hanLanguage(of: piece) { insert(pango_attr_language_new(pango_language_from_string(language))) }
            text += drawn
            start = end
        }
        pango_layout_set_attributes(layout, attributes)
        pango_attr_list_unref(attributes)
        pango_layout_set_text(layout, text, -1)
        if let width {
            pango_layout_set_width(layout, Int32((width * Double(PANGO_SCALE)).rounded(.down)))
            if ellipsized {
                pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
                pango_layout_set_height(layout, -1) // one line
            } else {
                pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
            }
        }
        return TextBlock(layout: layout, isColour: fonts.isColour)
    }

    // MARK: Drawing

    /// Draws one line of `block` with its top at `top` (points from the page's top edge).
    func draw(_ line: TextBlock.Line, of block: TextBlock, x: Double, top: Double) {
        let baseline = top + line.ascent
        guard line.hasColourRuns else {
            cairo_move_to(cairo, x + line.x, baseline)
            pango_cairo_show_layout_line(cairo, line.line)
            return
        }
        // Cairo 1.16 (Debian 12) draws a colour emoji as an image with no text behind it, so a
        // reader could not find, select or copy it. Under each such run goes the same text in an
        // outline font (Symbola), in white, where the emoji covers it. Runs are drawn one by one,
        // left to right, so the text keeps its order in the file.
        let text = pango_layout_get_text(block.layout)!
        var runX = x + line.x
        for run in Self.runs(of: line.line) {
            let item = run.pointee.item.pointee
            let rise = Double(run.pointee.y_offset) / Double(PANGO_SCALE)
            if isColour(run) {
                let characters = String(decoding: UnsafeRawBufferPointer(start: text + Int(item.offset), count: Int(item.length)),
                                        as: UTF8.self)
                let description = pango_font_describe(item.analysis.font)
                let size = Double(pango_font_description_get_size(description)) / Double(PANGO_SCALE)
                pango_font_description_free(description)
                // Cairo's own text call, not Pango: Pango would pick the colour font again.
                cairo_save(cairo)
                cairo_select_font_face(cairo, Self.outlineEmojiFamily, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
                cairo_set_font_size(cairo, size)
                cairo_set_source_rgb(cairo, 1, 1, 1)
                cairo_move_to(cairo, runX, baseline - rise)
                cairo_show_text(cairo, characters)
                cairo_restore(cairo)
            }
            let (red, green, blue) = Self.foreground(of: item)
            cairo_set_source_rgb(cairo, red, green, blue)
            cairo_move_to(cairo, runX, baseline - rise)
            pango_cairo_show_glyph_item(cairo, text, run)
            runX += Double(pango_glyph_string_get_width(run.pointee.glyphs)) / Double(PANGO_SCALE)
        }
    }

    /// Draws every line of `block`, the first with its top at `top`, each under the one before.
    func draw(_ block: TextBlock, x: Double, top: Double) {
        var y = top
        for line in block.lines {
            draw(line, of: block, x: x, top: y)
            y += line.height
        }
    }

    /// Draws `block` on one line turned `angle` radians anticlockwise about its centre, which
    /// lands on (`centreX`, `centreY`).
    func drawRotated(_ block: TextBlock, centreX: Double, centreY: Double, angle: Double) {
        guard let line = block.lines.first else { return }
        cairo_save(cairo)
        cairo_translate(cairo, centreX, centreY)
        cairo_rotate(cairo, -angle) // Cairo's y axis points down the page.
        draw(line, of: block, x: -block.width / 2, top: -line.height / 2)
        cairo_restore(cairo)
    }

    /// A hairline rule across the page at `y`.
    func rule(fromX: Double, toX: Double, y: Double, gray: Double = 0.75, width: Double = 0.5) {
        cairo_save(cairo)
        cairo_set_source_rgb(cairo, gray, gray, gray)
        cairo_set_line_width(cairo, width)
        cairo_move_to(cairo, fromX, y)
        cairo_line_to(cairo, toX, y)
        cairo_stroke(cairo)
        cairo_restore(cairo)
    }

    /// Ends the page being drawn; the next drawing starts a new one.
    func endPage() {
        cairo_show_page(cairo)
        pageCount += 1
    }

    // MARK: Internals

    /// The families every run asks for, in order; past them fontconfig finds a font per character.
    static let fontFamily = "Noto Sans"
    private static let lock = NSLock()
    /// Pango's font map, made once (fontconfig reads its configuration and caches then).
    nonisolated(unsafe) private static var sharedFontMap: UnsafeMutablePointer<PangoFontMap>?

    private final class Sink {
        var data = Data()
    }

    private let sink = Sink()
    private let surface: OpaquePointer
    /// The page being drawn; `PDFRenderer+Images.swift` draws on it too.
    let cairo: OpaquePointer
    private let context: OpaquePointer
    private var pageCount = 0
    private let fontKinds = FontKinds()

    private init(pageSize: PDFPageSize, metadata: Metadata) {
        surface = cairo_pdf_surface_create_for_stream({ closure, bytes, length in
            guard let closure, let bytes else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue().data.append(bytes, count: Int(length))
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(sink).toOpaque(), pageSize.width, pageSize.height)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, metadata.title)
        if let author = metadata.author { cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_AUTHOR, author) }
        if let subject = metadata.subject { cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_SUBJECT, subject) }
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, metadata.creator)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, metadata.creationDate.iso8601Seconds)
        cairo = cairo_create(surface)

        if Self.sharedFontMap == nil { Self.sharedFontMap = pango_cairo_font_map_new() }
        context = Self.makeContext(Self.sharedFontMap!)
    }

    /// A Pango context on `fontMap` set up for PDF: 72 dpi, so sizes in points are sizes in PDF
    /// units, and the outlines' own advances, as the PDF draws them (no hinting, no rounding).
    private static func makeContext(_ fontMap: UnsafeMutablePointer<PangoFontMap>) -> OpaquePointer {
        let context = pango_font_map_create_context(fontMap)!
        pango_cairo_context_set_resolution(context, 72)
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
        pango_context_set_round_glyph_positions(context, 0)
        return context
    }

    /// At most this many threads lay text out for one document.
    private static let mostWorkers = 4
    /// One context (on its own font map) per layout thread, made on first use and kept, like the
    /// shared font map; only touched under `lock`.
    nonisolated(unsafe) private static var workerContextsMade: [OpaquePointer] = []

    private static func workerContexts(_ count: Int) -> [OpaquePointer] {
        while workerContextsMade.count < count { workerContextsMade.append(makeContext(pango_cairo_font_map_new()!)) }
        return Array(workerContextsMade.prefix(count))
    }

    private func finish() -> Data {
        if pageCount == 0 { endPage() } // a reader needs one page to show anything
        cairo_destroy(cairo)
        cairo_surface_finish(surface)
        cairo_surface_destroy(surface)
        g_object_unref(UnsafeMutableRawPointer(context))
        return sink.data
    }

    /// The language to set Han characters in, since Chinese, Japanese and Korean draw some of
    /// them differently and fontconfig picks the face by language: Japanese when the text has
    /// kana, Korean when it has Hangul, otherwise Chinese (simplified forms); nil without Han.
    static func hanLanguage(of text: String) -> String? {
        var han = false, kana = false, hangul = false
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0xF900...0xFAFF: han = true
            case 0x3040...0x30FF, 0x31F0...0x31FF: kana = true
            case 0xAC00...0xD7AF, 0x1100...0x11FF, 0x3130...0x318F: hangul = true
            default: continue
            }
        }
        guard han else { return nil }
        return kana ? "ja" : hangul ? "ko" : "zh-cn"
    }

    /// The emoji font drawn under colour emoji: outlines, so the PDF holds the characters as text.
    static let outlineEmojiFamily = "Symbola"

    /// The runs of `line`, left to right.
    fileprivate static func runs(of line: UnsafeMutablePointer<PangoLayoutLine>) -> [UnsafeMutablePointer<PangoGlyphItem>] {
        var runs: [UnsafeMutablePointer<PangoGlyphItem>] = []
        var node = line.pointee.runs
        while let current = node {
            if let data = current.pointee.data { runs.append(data.assumingMemoryBound(to: PangoGlyphItem.self)) }
            node = current.pointee.next
        }
        return runs
    }

    /// Whether a run is set in a colour emoji font, asked of every run of every line. A document
    /// uses a handful of fonts (which the font map keeps alive), so the answer is kept per font
    /// instead of describing the font again each time; one of these per thread.
    final class FontKinds {
        private var colour: [UnsafeMutableRawPointer: Bool] = [:]

        func isColour(_ run: UnsafeMutablePointer<PangoGlyphItem>) -> Bool {
            guard let font = run.pointee.item.pointee.analysis.font else { return false }
            let key = UnsafeMutableRawPointer(font)
            if let known = colour[key] { return known }
            var isColour = false
            if let description = pango_font_describe(font) {
                if let family = pango_font_description_get_family(description) {
                    isColour = String(cString: family).contains("Color Emoji")
                }
                pango_font_description_free(description)
            }
            colour[key] = isColour
            return isColour
        }
    }

    private func isColour(_ run: UnsafeMutablePointer<PangoGlyphItem>) -> Bool { fontKinds.isColour(run) }

    /// The run's foreground colour from its markup, black when it has none.
    private static func foreground(of item: PangoItem) -> (Double, Double, Double) {
        var node = item.analysis.extra_attrs
        while let current = node {
            if let attribute = current.pointee.data?.assumingMemoryBound(to: PangoAttribute.self),
               attribute.pointee.klass.pointee.type == PANGO_ATTR_FOREGROUND {
                let colour = UnsafeMutableRawPointer(attribute).assumingMemoryBound(to: PangoAttrColor.self).pointee.color
                return (Double(colour.red) / 65535, Double(colour.green) / 65535, Double(colour.blue) / 65535)
            }
            node = current.pointee.next
        }
        return (0, 0, 0)
    }

    /// Control characters other than tab and line breaks have no glyph (and a NUL would end the
    /// text Pango is given): each becomes U+FFFD, so the reader sees that something was there.
    private static func drawable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUndrawable) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append(isUndrawable(scalar) ? "\u{FFFD}" : scalar)
        }
        return String(out)
    }

    private static func isUndrawable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F: true
        default: false
        }
    }
}
