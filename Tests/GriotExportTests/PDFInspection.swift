import Foundation

/// Reads back what the export wrote, the way a PDF reader finds its way through a file:
/// `startxref` to the cross-reference table, the table to each object, the page tree to the
/// pages and each page to its content stream. Every step that does not hold throws.
struct PDFInspection {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A text-showing operation in a content stream, its string decoded back to WinAnsi bytes.
    struct TextRun {
        var font: String
        var size: Double
        var x: Double
        var bytes: [UInt8]
        /// Set in a rotated coordinate system (`cm` just before `BT`), as the watermark is.
        var isRotated: Bool
    }

    let bytes: [UInt8]
    /// Byte offset of each object, from the cross-reference table.
    private(set) var offsets: [Int: Int] = [:]
    /// The page objects' content streams, in page order.
    private(set) var pageContents: [String] = []
    private(set) var mediaBoxes: [String] = []
    private(set) var declaredPageCount = 0

    init(_ data: Data) throws {
        bytes = Array(data)
        try readCrossReferenceTable()
        try readPages()
    }

    var pageCount: Int { pageContents.count }

    /// The file as text with one character per byte, so positions match byte offsets.
    var latin1: String { Self.latin1(bytes) }

    static func latin1(_ bytes: some Sequence<UInt8>) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    func object(_ number: Int) throws -> String {
        guard let start = offsets[number] else { throw Failure(description: "no xref entry for object \(number)") }
        let rest = Array(bytes[start...])
        guard let end = rest.firstRange(of: Array("endobj".utf8)) else {
            throw Failure(description: "object \(number) has no endobj")
        }
        return Self.latin1(rest[..<end.lowerBound])
    }

    // MARK: Reading

    private mutating func readCrossReferenceTable() throws {
        let text = latin1
        guard let marker = text.range(of: "startxref\n", options: .backwards),
              let end = text[marker.upperBound...].firstIndex(of: "\n"),
              let xrefOffset = Int(text[marker.upperBound..<end]) else {
            throw Failure(description: "no startxref")
        }
        let table = Array(bytes[xrefOffset...])
        guard table.starts(with: Array("xref\n".utf8)) else {
            throw Failure(description: "startxref \(xrefOffset) does not point at 'xref'")
        }
        let lines = Self.latin1(table).split(separator: "\n", omittingEmptySubsequences: false)
        let subsection = lines[1].split(separator: " ")
        guard subsection.count == 2, subsection[0] == "0", let size = Int(subsection[1]) else {
            throw Failure(description: "bad xref subsection header '\(lines[1])'")
        }
        // Entries are exactly 20 bytes each, starting after "xref\n0 N\n".
        let entriesStart = 5 + lines[1].utf8.count + 1
        for number in 0..<size {
            let entry = Self.latin1(table[(entriesStart + 20 * number)..<(entriesStart + 20 * (number + 1))])
            guard entry.hasSuffix("\r\n") || entry.hasSuffix(" \n") || entry.hasSuffix(" \r") else {
                throw Failure(description: "xref entry \(number) is not 20 bytes: '\(entry)'")
            }
            let fields = entry.split(separator: " ")
            guard fields.count >= 3, let offset = Int(fields[0]) else {
                throw Failure(description: "bad xref entry \(number): '\(entry)'")
            }
            if number == 0 {
                guard entry.hasPrefix("0000000000 65535 f") else { throw Failure(description: "object 0 must be free") }
                continue
            }
            guard fields[2].hasPrefix("n") else { throw Failure(description: "object \(number) is not in use") }
            let header = Array("\(number) 0 obj".utf8)
            guard offset + header.count <= bytes.count, Array(bytes[offset..<(offset + header.count)]) == header else {
                throw Failure(description: "xref offset \(offset) of object \(number) does not point at '\(number) 0 obj'")
            }
            offsets[number] = offset
        }
        guard text.contains("trailer\n<< /Size \(size) ") else {
            throw Failure(description: "trailer /Size does not match the xref's \(size) entries")
        }
    }

    private mutating func readPages() throws {
        let text = latin1
        guard let trailer = text.range(of: "trailer", options: .backwards) else { throw Failure(description: "no trailer") }
        let root = try Self.reference(after: "/Root", in: String(text[trailer.lowerBound...]))
        let pageTree = try Self.reference(after: "/Pages", in: object(root))
        let tree = try object(pageTree)
        guard let count = tree.firstMatch(of: /\/Count (\d+)/), let kids = tree.firstMatch(of: /\/Kids \[([^\]]*)\]/) else {
            throw Failure(description: "page tree without /Count or /Kids")
        }
        declaredPageCount = Int(count.1)!
        for kid in kids.1.matches(of: /(\d+) 0 R/) {
            let page = try object(Int(kid.1)!)
            guard page.contains("/Type /Page ") else { throw Failure(description: "kid \(kid.1) is not a page") }
            mediaBoxes.append(String(page.firstMatch(of: /\/MediaBox \[([^\]]*)\]/)?.1 ?? ""))
            pageContents.append(try stream(Self.reference(after: "/Contents", in: page)))
        }
    }

    /// A stream object's data, checked against its /Length.
    private func stream(_ number: Int) throws -> String {
        let body = try object(number)
        guard let length = body.firstMatch(of: /\/Length (\d+)/).flatMap({ Int($0.1) }),
              let start = body.range(of: ">>\nstream\n")?.upperBound,
              let end = body.range(of: "\nendstream", options: .backwards)?.lowerBound else {
            throw Failure(description: "object \(number) is not a stream")
        }
        let data = body[start..<end]
        guard data.unicodeScalars.count == length else {
            throw Failure(description: "stream \(number) has /Length \(length) but \(data.unicodeScalars.count) bytes")
        }
        return String(data)
    }

    private static func reference(after key: String, in dictionary: String) throws -> Int {
        guard let range = dictionary.range(of: key + " "),
              let match = dictionary[range.upperBound...].prefixMatch(of: /(\d+) 0 R/) else {
            throw Failure(description: "no \(key) reference")
        }
        return Int(match.1)!
    }

    // MARK: Text operations

    /// Every `BT /Fn size Tf gray g x y Td (string) Tj ET` in a content stream, with the
    /// literal string parsed escape by escape (so a ")" in the text cannot end it early).
    static func textRuns(in content: String) throws -> [TextRun] {
        var runs: [TextRun] = []
        let scalars = Array(content.unicodeScalars)
        for match in content.matches(of: /(cm )?BT \/(F\d) ([\d.]+) Tf [\d.]+ g (-?[\d.]+) -?[\d.]+ Td \(/) {
            var index = content.unicodeScalars.distance(from: content.unicodeScalars.startIndex, to: match.range.upperBound)
            var bytes: [UInt8] = []
            var depth = 0
            parsing: while true {
                guard index < scalars.count else { throw Failure(description: "unterminated string") }
                let scalar = scalars[index]
                index += 1
                switch scalar {
                case "\\":
                    let next = scalars[index]
                    if ("0"..."7").contains(next) {
                        let digits = String(String.UnicodeScalarView(scalars[index..<(index + 3)]))
                        guard let value = UInt8(digits, radix: 8) else { throw Failure(description: "bad octal \\\(digits)") }
                        bytes.append(value)
                        index += 3
                    } else {
                        bytes.append(UInt8(next.value))
                        index += 1
                    }
                case "(":
                    depth += 1
                    bytes.append(UInt8(ascii: "("))
                case ")":
                    if depth == 0 { break parsing }
                    depth -= 1
                    bytes.append(UInt8(ascii: ")"))
                default:
                    guard scalar.value < 0x80 else { throw Failure(description: "raw high byte in a content stream") }
                    bytes.append(UInt8(scalar.value))
                }
            }
            guard String(String.UnicodeScalarView(scalars[index..<min(index + 6, scalars.count)])) == " Tj ET" else {
                throw Failure(description: "string not followed by Tj ET")
            }
            runs.append(TextRun(font: String(match.2), size: Double(match.3)!, x: Double(match.4)!, bytes: bytes,
                                isRotated: match.1 != nil))
        }
        return runs
    }
}
