import Foundation

/// poppler-utils' `pdftotext`, when the machine has it: an independent PDF reader for the
/// tests that ask whether the file really reads back. Tests never install it.
enum Poppler {
    static let pdftotext: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("pdftotext") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// The text pdftotext extracts in content-stream order (`-raw`), and what it wrote to standard error.
    static func text(of pdf: Data) throws -> (text: String, errors: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("griot-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("thread.pdf")
        let output = directory.appendingPathComponent("thread.txt")
        try pdf.write(to: input)

        let process = Process()
        process.executableURL = pdftotext
        process.arguments = ["-raw", "-enc", "UTF-8", input.path, output.path]
        let errorPipe = Pipe()
        process.standardError = errorPipe
        try process.run()
        process.waitUntilExit()
        let errors = String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (try String(contentsOf: output, encoding: .utf8), errors)
    }
}
