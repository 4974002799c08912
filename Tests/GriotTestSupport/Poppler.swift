import Foundation

/// poppler-utils (`pdftotext`, `pdffonts`, `pdfinfo`, `pdftoppm`): an independent PDF reader for
/// the tests that ask whether a PDF the service wrote really reads back. `scripts/setup.sh`
/// installs it; a test that needs it fails with that advice when it is missing.
public enum Poppler {
    public struct Missing: Error, CustomStringConvertible {
        public let tool: String
        public var description: String { "\(tool) (poppler-utils) is not installed: run scripts/setup.sh" }
    }

    /// A word as `pdftotext -bbox` places it, in points from the page's top-left corner.
    public struct Word: Sendable {
        public var text: String
        public var xMin: Double, yMin: Double, xMax: Double, yMax: Double
    }

    /// The text of `page` (all when nil), and what pdftotext wrote to standard error: in reading
    /// order, or in the order the file draws it (`raw`); `noDiagonal` leaves out text set at an
    /// angle (a watermark).
    public static func text(of pdf: Data, page: Int? = nil, raw: Bool = false, noDiagonal: Bool = false) throws -> (text: String, errors: String) {
        var arguments = ["-enc", "UTF-8"]
        if raw { arguments.append("-raw") }
        if noDiagonal { arguments.append("-nodiag") }
        if let page { arguments += ["-f", String(page), "-l", String(page)] }
        let (output, errors) = try run("pdftotext", arguments, pdf: pdf, outputName: "thread.txt")
        return (String(decoding: output, as: UTF8.self), errors)
    }

    /// Every word of every page with its box (`pdftotext -bbox`), page by page.
    public static func words(of pdf: Data) throws -> [[Word]] {
        let (output, _) = try run("pdftotext", ["-enc", "UTF-8", "-bbox"], pdf: pdf, outputName: "thread.html")
        let html = String(decoding: output, as: UTF8.self)
        return html.components(separatedBy: "<page ").dropFirst().map { page in
            page.matches(of: /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/).map {
                Word(text: unescaped(String($0.5)), xMin: Double($0.1)!, yMin: Double($0.2)!, xMax: Double($0.3)!, yMax: Double($0.4)!)
            }
        }
    }

    /// `pdfinfo`'s fields ("Pages", "Page size", "Title", …).
    public static func info(of pdf: Data) throws -> [String: String] {
        let (output, _) = try run("pdfinfo", ["-isodates"], pdf: pdf, outputName: nil)
        var fields: [String: String] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// `pdffonts`' table: each font's name, type and whether it is embedded.
    public static func fonts(of pdf: Data) throws -> [(name: String, type: String, embedded: Bool)] {
        let (output, _) = try run("pdffonts", [], pdf: pdf, outputName: nil)
        return String(decoding: output, as: UTF8.self).split(separator: "\n").dropFirst(2).map { line in
            // Columns: name, type (may be two words), encoding, emb, sub, uni, object ID.
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            let embedded = fields.count >= 6 ? fields[fields.count - 5] == "yes" : false
            return (fields.first ?? "", fields.dropFirst().prefix(2).joined(separator: " "), embedded)
        }
    }

    /// Page `page` as an 8-bit grey image at `dpi` (`pdftoppm -gray`): its width, height and pixels.
    public static func grayImage(of pdf: Data, page: Int = 1, dpi: Int = 36) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let (output, _) = try run("pdftoppm", ["-gray", "-r", String(dpi), "-f", String(page), "-l", String(page), "-singlefile"],
                                  pdf: pdf, outputName: "page", outputSuffix: ".pgm")
        // A binary PGM: "P5", width, height, maximum, then one byte per pixel.
        var fields: [Int] = []
        var index = 2
        while fields.count < 3 {
            while index < output.count, output[index] == 0x20 || output[index] == 0x0A { index += 1 }
            var number = 0
            while index < output.count, (0x30...0x39).contains(output[index]) {
                number = number * 10 + Int(output[index] - 0x30)
                index += 1
            }
            fields.append(number)
        }
        return (fields[0], fields[1], Array(output[(index + 1)...]))
    }

    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    private static func tool(_ name: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let url = path.split(separator: ":")
            .map({ URL(fileURLWithPath: String($0)).appendingPathComponent(name) })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else { throw Missing(tool: name) }
        return url
    }

    /// Runs `name` on `pdf`; its output is the file `outputName` it writes, or its standard output when nil.
    private static func run(_ name: String, _ arguments: [String], pdf: Data, outputName: String?,
                            outputSuffix: String = "") throws -> (Data, String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("griot-pdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("input.pdf")
        try pdf.write(to: input)
        let process = Process()
        process.executableURL = try tool(name)
        var all = arguments + [input.path]
        if let outputName { all.append(directory.appendingPathComponent(outputName).path) }
        process.arguments = all
        let outputPipe = Pipe(), errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        try process.run()
        let standardOutput = outputPipe.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let outputName else { return (standardOutput, errors) }
        return (try Data(contentsOf: directory.appendingPathComponent(outputName + outputSuffix)), errors)
    }
}
