import Foundation

/// The drawing operators of one PDF page: text in the standard fonts, grey fills, rules.
///
/// Text arrives already WinAnsi-encoded (see ``WinAnsiEncoding``) and is written as a literal
/// string with `(`, `)` and `\` escaped and every byte outside printable ASCII as an octal escape,
/// so the stream itself is plain ASCII.
///
/// ```swift
/// var page = PDFContentStream()
/// page.text(WinAnsiEncoding.bytes(for: "Who was Aunt Lil?"), font: .helvetica, size: 10.5, x: 54, y: 700)
/// page.rule(fromX: 54, toX: 558, y: 690)
/// ```
struct PDFContentStream: Sendable {
    private(set) var operators = ""

    var data: Data { Data(operators.utf8) }

    /// Sets `bytes` with its baseline starting at (`x`, `y`), in `gray` (0 black, 1 white).
    mutating func text(_ bytes: [UInt8], font: StandardFont, size: Double, x: Double, y: Double, gray: Double = 0) {
        operators += "BT /\(font.resourceName) \(Self.number(size)) Tf \(Self.number(gray)) g "
            + "\(Self.number(x)) \(Self.number(y)) Td \(Self.literal(bytes)) Tj ET\n"
    }

    /// Sets `bytes` with its baseline starting at (`x`, `y`) and turned `angle` radians
    /// anticlockwise about that point: the coordinate system is rotated with `cm` inside `q … Q`.
    mutating func rotatedText(_ bytes: [UInt8], font: StandardFont, size: Double, x: Double, y: Double,
                              angle: Double, gray: Double) {
        let (cosine, sine) = (cos(angle), sin(angle))
        let matrix = [cosine, sine, -sine, cosine, x, y].map { Self.number($0, decimals: 4) }.joined(separator: " ")
        operators += "q \(matrix) cm BT /\(font.resourceName) \(Self.number(size)) Tf \(Self.number(gray)) g "
            + "0 0 Td \(Self.literal(bytes)) Tj ET Q\n"
    }

    /// A horizontal hairline, for the rule under the page header.
    mutating func rule(fromX: Double, toX: Double, y: Double, width: Double = 0.5, gray: Double = 0.6) {
        operators += "q \(Self.number(gray)) G \(Self.number(width)) w "
            + "\(Self.number(fromX)) \(Self.number(y)) m \(Self.number(toX)) \(Self.number(y)) l S Q\n"
    }

    /// Appends another stream's operators, drawn after (over) this one's.
    mutating func append(_ other: PDFContentStream) {
        operators += other.operators
    }

    /// A PDF literal string: parentheses and backslashes escaped, anything not printable ASCII
    /// as `\ddd` so no line break or high byte can end up raw in the stream.
    static func literal(_ bytes: [UInt8]) -> String {
        var string = "("
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"):
                string += "\\" + String(UnicodeScalar(byte))
            case 0x20...0x7E:
                string.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let octal = String(byte, radix: 8)
                string += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return string + ")"
    }

    /// A PDF real: fixed point, no exponent, no trailing zeros, whatever the locale.
    static func number(_ value: Double, decimals: Int = 3) -> String {
        let scale = (0..<decimals).reduce(1) { value, _ in value * 10 }
        let scaled = Int((value * Double(scale)).rounded())
        guard scaled != 0 else { return "0" }
        let magnitude = abs(scaled)
        var text = (scaled < 0 ? "-" : "") + String(magnitude / scale)
        var fraction = String(magnitude % scale)
        fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        if !fraction.isEmpty { text += "." + fraction }
        return text
    }
}
