/// One of the PDF standard Type 1 fonts the export uses, with its glyph widths.
///
/// Every PDF reader carries Helvetica, so the file embeds no font program; it names the font,
/// asks for `WinAnsiEncoding`, and measures text with the widths below so that wrapped lines fit.
///
/// ```swift
/// let bytes = WinAnsiEncoding.bytes(for: "Who was Aunt Lil?")
/// let points = StandardFont.helvetica.width(of: bytes, size: 10.5)
/// let fits = points <= 504
/// ```
enum StandardFont: Sendable, CaseIterable {
    case helvetica
    case helveticaBold

    /// The `/BaseFont` name of the standard 14 fonts.
    var baseFont: String {
        switch self {
        case .helvetica: "Helvetica"
        case .helveticaBold: "Helvetica-Bold"
        }
    }

    /// The resource name content streams use (`/F1 10 Tf`).
    var resourceName: String {
        switch self {
        case .helvetica: "F1"
        case .helveticaBold: "F2"
        }
    }

    /// Advance width of one WinAnsi code in thousandths of the font size; 0 for codes with no glyph.
    func advance(of code: UInt8) -> Int {
        guard code >= 32 else { return 0 }
        let table = switch self {
        case .helvetica: Self.helveticaWidths
        case .helveticaBold: Self.helveticaBoldWidths
        }
        return table[Int(code) - 32]
    }

    /// Width in points of WinAnsi-encoded text set at `size` points.
    func width(of bytes: some Sequence<UInt8>, size: Double) -> Double {
        Double(bytes.reduce(0) { $0 + advance(of: $1) }) * size / 1000
    }

    /// Width in points of `text` after WinAnsi encoding.
    func width(of text: String, size: Double) -> Double {
        width(of: WinAnsiEncoding.bytes(for: text), size: size)
    }

    // The widths are Adobe's Helvetica and Helvetica-Bold AFM metrics (Core 14 AFM files, 1997),
    // laid out in WinAnsi code order from 32 to 255. Codes WinAnsi leaves undefined (127, 129,
    // 141, 143, 144, 157) are 0: the encoder never writes them.

    private static let helveticaWidths: [Int] = [
        // 32-47:  space ! " # $ % & ' ( ) * + , - . /
        278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
        // 48-63:  0-9 : ; < = > ?
        556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
        // 64-79:  @ A-O
        1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
        // 80-95:  P-Z [ \ ] ^ _
        667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
        // 96-111: ` a-o
        333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
        // 112-127: p-z { | } ~ (127 undefined)
        556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, 0,
        // 128-143: Euro, -, quotesinglbase, florin, quotedblbase, ellipsis, dagger, daggerdbl,
        //          circumflex, perthousand, Scaron, guilsinglleft, OE, -, Zcaron, -
        556, 0, 222, 556, 333, 1000, 556, 556, 333, 1000, 667, 333, 1000, 0, 611, 0,
        // 144-159: -, quoteleft, quoteright, quotedblleft, quotedblright, bullet, endash, emdash,
        //          tilde, trademark, scaron, guilsinglright, oe, -, zcaron, Ydieresis
        0, 222, 222, 333, 333, 350, 556, 1000, 333, 1000, 500, 333, 944, 0, 500, 667,
        // 160-175: nbsp, exclamdown, cent, sterling, currency, yen, brokenbar, section,
        //          dieresis, copyright, ordfeminine, guillemotleft, logicalnot, hyphen, registered, macron
        278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 333,
        // 176-191: degree, plusminus, twosuperior, threesuperior, acute, mu, paragraph, periodcentered,
        //          cedilla, onesuperior, ordmasculine, guillemotright, onequarter, onehalf, threequarters, questiondown
        400, 584, 333, 333, 333, 556, 537, 278, 333, 333, 365, 556, 834, 834, 834, 611,
        // 192-207: Agrave ... Idieresis
        667, 667, 667, 667, 667, 667, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
        // 208-223: Eth ... germandbls
        722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
        // 224-239: agrave ... idieresis
        556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278,
        // 240-255: eth ... ydieresis
        556, 556, 556, 556, 556, 556, 556, 584, 611, 556, 556, 556, 556, 500, 556, 500,
    ]

    private static let helveticaBoldWidths: [Int] = [
        // 32-47
        278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
        // 48-63
        556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
        // 64-79
        975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
        // 80-95
        667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
        // 96-111
        333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
        // 112-127
        611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584, 0,
        // 128-143
        556, 0, 278, 556, 500, 1000, 556, 556, 333, 1000, 667, 333, 1000, 0, 611, 0,
        // 144-159
        0, 278, 278, 500, 500, 350, 556, 1000, 333, 1000, 556, 333, 944, 0, 500, 667,
        // 160-175
        278, 333, 556, 556, 556, 556, 280, 556, 333, 737, 370, 556, 584, 333, 737, 333,
        // 176-191
        400, 584, 333, 333, 333, 611, 556, 278, 333, 333, 365, 556, 834, 834, 834, 611,
        // 192-207
        722, 722, 722, 722, 722, 722, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
        // 208-223
        722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
        // 224-239
        556, 556, 556, 556, 556, 556, 889, 556, 556, 556, 556, 556, 278, 278, 278, 278,
        // 240-255
        611, 611, 611, 611, 611, 611, 611, 584, 611, 611, 611, 611, 611, 556, 611, 556,
    ]
}
