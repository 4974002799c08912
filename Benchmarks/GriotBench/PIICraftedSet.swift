import ArgumentParser
import Foundation

/// The crafted-format files (`evals/pii/crafted-*.txt`): one text a line, values to mask written
/// `[[TYPE/format|value]]`, look-alikes that must stay written `{{KIND|value}}`, invisible or
/// unusual characters written `\u{XXXX}`. Read into the same records as pii-eval, with UTF-16
/// offsets, so one scorer serves both.
///
///     let records = try PIICraftedSet.load(URL(fileURLWithPath: "evals/pii/crafted-tuning.txt"))
enum PIICraftedSet {
    static func load(_ url: URL) throws -> [PIIRecord] {
        guard let contents = try? String(contentsOf: url, encoding: .utf8) else {
            throw ValidationError("cannot read \(url.path); run from the repository's root or pass the file's path")
        }
        var records: [PIIRecord] = []
        for (number, line) in contents.split(separator: "\n", omittingEmptySubsequences: true).enumerated()
        where !line.hasPrefix("#") && !line.allSatisfy(\.isWhitespace) {
            records.append(try record(String(line), id: "\(url.deletingPathExtension().lastPathComponent)-\(number + 1)"))
        }
        return records
    }

    /// One line's text and labels.
    static func record(_ line: String, id: String) throws -> PIIRecord {
        var text = ""
        var spans: [PIIRecord.Span] = []
        var negatives: [PIIRecord.Negative] = []
        var rest = Substring(line)
        func utf16Count(_ string: String) -> Int { string.utf16.count }
        while !rest.isEmpty {
            let nextSpan = rest.range(of: "[["), nextNegative = rest.range(of: "{{")
            let opener = [nextSpan, nextNegative].compactMap { $0 }.min { $0.lowerBound < $1.lowerBound }
            guard let opener else {
                text += unescape(rest)
                break
            }
            text += unescape(rest[..<opener.lowerBound])
            let isSpan = rest[opener] == "[["
            guard let closer = rest[opener.upperBound...].range(of: isSpan ? "]]" : "}}"),
                  let bar = rest[opener.upperBound..<closer.lowerBound].firstIndex(of: "|") else {
                throw ValidationError("\(id): a label is not closed or has no \"|\": \(line)")
            }
            let label = String(rest[opener.upperBound..<bar])
            let value = unescape(rest[rest.index(after: bar)..<closer.lowerBound])
            let start = utf16Count(text)
            text += value
            let end = utf16Count(text)
            if isSpan {
                let parts = label.split(separator: "/", maxSplits: 1).map(String.init)
                spans.append(.init(start: start, end: end, type: parts[0], value: value, format: parts.count > 1 ? parts[1] : nil))
            } else {
                negatives.append(.init(start: start, end: end, kind: label, value: value))
            }
            rest = rest[closer.upperBound...]
        }
        return PIIRecord(id: id, text: text, spans: spans, negatives: negatives)
    }

    /// `\u{XXXX}` to the scalar and `\n` to a line break; everything else as written.
    static func unescape(_ text: Substring) -> String {
        var result = ""
        var rest = text
        while let escape = rest.range(of: "\\") {
            result += rest[..<escape.lowerBound]
            let after = rest[escape.upperBound...]
            if after.hasPrefix("n") {
                result += "\n"
                rest = after.dropFirst()
            } else if after.hasPrefix("u{"), let close = after.firstIndex(of: "}"),
                      let value = UInt32(after[after.index(after.startIndex, offsetBy: 2)..<close], radix: 16),
                      let scalar = Unicode.Scalar(value) {
                result.unicodeScalars.append(scalar)
                rest = after[after.index(after: close)...]
            } else {
                result += "\\"
                rest = after
            }
        }
        return result + rest
    }
}
