import Foundation
@testable import GriotExport
import Testing

@Suite("PDF building blocks: encoding, widths, line breaking, literals")
struct PDFBuildingBlockTests {
    @Test("Typographic quotes, dashes and Latin-1 letters get their WinAnsi codes")
    func winAnsiCodes() {
        #expect(WinAnsiEncoding.bytes(for: "‘’“”–—…•€™") == [0x91, 0x92, 0x93, 0x94, 0x96, 0x97, 0x85, 0x95, 0x80, 0x99])
        #expect(WinAnsiEncoding.bytes(for: "Café Ñ ß") == [0x43, 0x61, 0x66, 0xE9, 0x20, 0xD1, 0x20, 0xDF])
        // A decomposed é (e + combining acute) is composed first.
        #expect(WinAnsiEncoding.bytes(for: "e\u{301}") == [0xE9])
    }

    @Test("Emoji and CJK become one '?' per character; invisible marks disappear")
    func replacements() {
        #expect(WinAnsiEncoding.bytes(for: "a🎉b") == Array("a?b".utf8))
        #expect(WinAnsiEncoding.bytes(for: "👨‍👩‍👧") == Array("?".utf8), "a ZWJ family is one character")
        #expect(WinAnsiEncoding.bytes(for: "上海市") == Array("???".utf8))
        #expect(WinAnsiEncoding.bytes(for: "Привет") == Array("??????".utf8))
        #expect(WinAnsiEncoding.bytes(for: "soft\u{AD}hyphen\u{200B}") == Array("softhyphen".utf8))
        #expect(WinAnsiEncoding.bytes(for: "©\u{FE0F}") == [0xA9], "a presentation selector does not hide the ©")
        #expect(WinAnsiEncoding.bytes(for: "x\u{2212}1\u{2009}\u{2011}") == Array("x-1 -".utf8))
    }

    @Test("Widths are Adobe's Helvetica AFM metrics")
    func helveticaWidths() {
        // H e l l o = 722 + 556 + 222 + 222 + 556 thousandths of 12 pt.
        #expect(abs(StandardFont.helvetica.width(of: "Hello", size: 12) - 27.336) < 1e-9)
        #expect(StandardFont.helveticaBold.width(of: "Confidential", size: 1000) == 5778)
        // Entries that differ between the faces or are easy to get wrong.
        #expect(StandardFont.helvetica.advance(of: 0x27) == 191 && StandardFont.helveticaBold.advance(of: 0x27) == 238)
        #expect(StandardFont.helvetica.advance(of: 0x40) == 1015 && StandardFont.helveticaBold.advance(of: 0x40) == 975)
        #expect(StandardFont.helvetica.advance(of: 0x93) == 333 && StandardFont.helveticaBold.advance(of: 0x93) == 500)
        #expect(StandardFont.helvetica.advance(of: 0xB6) == 537 && StandardFont.helveticaBold.advance(of: 0xB6) == 556)
        #expect(StandardFont.helvetica.advance(of: 0xFF) == 500 && StandardFont.helveticaBold.advance(of: 0xFF) == 556)
    }

    @Test("Every code WinAnsi defines has a glyph width, and only those")
    func widthTableCoverage() {
        let undefined: Set<UInt8> = [0x7F, 0x81, 0x8D, 0x8F, 0x90, 0x9D]
        for font in StandardFont.allCases {
            for code in UInt8(32)...UInt8(255) {
                #expect((font.advance(of: code) > 0) == !undefined.contains(code), "\(font) code \(code)")
            }
        }
    }

    @Test("Lines break at spaces and never exceed the measure")
    func breaksAtSpaces() {
        let breaker = LineBreaker(font: .helvetica, size: 10, width: 120)
        let text = "Aunt Lil ran the boarding house on Dumaine Street from 1931 until the flood came."
        let lines = breaker.lines(for: text)
        #expect(lines.count > 1)
        for line in lines {
            #expect(StandardFont.helvetica.width(of: line, size: 10) <= 120)
            #expect(line.first != UInt8(ascii: " ") && line.last != UInt8(ascii: " "))
        }
        #expect(lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ") == text)
    }

    @Test("Each line is as full as it can be: the next word would not have fitted")
    func greedyLines() {
        let breaker = LineBreaker(font: .helvetica, size: 10, width: 120)
        let lines = breaker.lines(for: "Aunt Lil ran the boarding house on Dumaine Street from 1931 until the flood came.")
        for (line, next) in zip(lines, lines.dropFirst()) {
            let nextWord = next.prefix { $0 != UInt8(ascii: " ") }
            #expect(StandardFont.helvetica.width(of: line + [UInt8(ascii: " ")] + nextWord, size: 10) > 120)
        }
    }

    @Test("A word longer than the line is cut rather than running off the page")
    func longWord() {
        let breaker = LineBreaker(font: .helvetica, size: 10, width: 100)
        let word = String(repeating: "W", count: 40)
        let lines = breaker.lines(for: word)
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { StandardFont.helvetica.width(of: $0, size: 10) <= 100 })
        #expect(lines.joined().count == 40)
    }

    @Test("Newlines start new lines and blank lines are kept")
    func paragraphs() {
        let breaker = LineBreaker(font: .helvetica, size: 10, width: 500)
        let lines = breaker.lines(for: "First paragraph.\n\nSecond,\r\nthird.")
        #expect(lines.map { String(decoding: $0, as: UTF8.self) } == ["First paragraph.", "", "Second,", "third."])
    }

    @Test("Literal strings escape parentheses and backslashes, and write other bytes in octal")
    func literals() {
        #expect(PDFContentStream.literal(Array("a (b) \\ c".utf8)) == "(a \\(b\\) \\\\ c)")
        #expect(PDFContentStream.literal([0x93, 0x41, 0x94, 0x0A]) == "(\\223A\\224\\012)")
    }

    @Test("Numbers are plain decimals whatever their size")
    func numbers() {
        #expect(PDFContentStream.number(612) == "612")
        #expect(PDFContentStream.number(0.5) == "0.5")
        #expect(PDFContentStream.number(-12.34567) == "-12.346")
        #expect(PDFContentStream.number(0.0001) == "0")
        #expect(PDFContentStream.number(0.78901, decimals: 4) == "0.789")
    }

    @Test("Document properties take any Unicode as UTF-16 text strings")
    func textStrings() {
        #expect(PDFDocumentWriter.textString("A(") == "<FEFF00410028>")
        #expect(PDFDocumentWriter.textString("🎉") == "<FEFFD83CDF89>")
    }
}
